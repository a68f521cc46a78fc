//! What a failed UDF call answers: the real node's text in bin `FAILURE`, and the detail a
//! server log keeps beside it.

use crate::result::UDF_BAD_RESPONSE;
use crate::ResultCode;

/// Where a real node loads user modules from (mod-lua's default `user-path`): Lua names a
/// module's chunk, and so its error positions, by this path.
pub const USER_PATH: &str = "/opt/aerospike/usr/udf/lua";

/// A real node's answer when the module has no such function.
pub const FUNCTION_NOT_FOUND: &str = "function not found";

/// A failed UDF call: result code, the text a real node sends in bin `FAILURE`, and what a
/// server log adds (empty when the text says it all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UdfFailure {
    pub code: ResultCode,
    pub message: String,
    pub detail: String,
}

impl UdfFailure {
    /// A Lua error (code 100, UDF_BAD_RESPONSE) whose text is the whole story.
    pub fn lua(message: String) -> UdfFailure {
        UdfFailure {
            code: UDF_BAD_RESPONSE,
            message,
            detail: String::new(),
        }
    }

    /// `module` is not registered: a real node cannot build a Lua state for it and answers
    /// mod-lua's generic "execution error 1".
    pub fn module_not_found(module: &str) -> UdfFailure {
        UdfFailure {
            code: UDF_BAD_RESPONSE,
            message: "UDF: Execution Error 1".into(),
            detail: format!("module {module} not found"),
        }
    }

    /// The module has no `function`.
    pub fn function_not_found(module: &str, function: &str) -> UdfFailure {
        UdfFailure {
            code: UDF_BAD_RESPONSE,
            message: FUNCTION_NOT_FOUND.into(),
            detail: format!("{module}.{function}"),
        }
    }

    /// Another failure with a result code of its own.
    pub fn other(code: ResultCode, message: &str) -> UdfFailure {
        UdfFailure {
            code,
            message: message.into(),
            detail: String::new(),
        }
    }

    /// The line a server log writes for it.
    pub fn log_line(&self) -> String {
        if self.detail.is_empty() {
            format!("lua-error: result {}", self.message)
        } else {
            format!("lua-error: result {} ({})", self.message, self.detail)
        }
    }
}

/// The chunk name of module file `file` (`name.lua`), as a real node's Lua names it.
pub fn chunk_name(file: &str) -> String {
    format!("@{USER_PATH}/{file}")
}
