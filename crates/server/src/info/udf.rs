//! `udf-list`, `udf-put`, `udf-get` and `udf-remove`: the node's UDF modules.

use base64::Engine as _;

use super::{param, params};
use crate::Shared;

pub fn udf_list(shared: &Shared) -> String {
    shared
        .udfs
        .list()
        .into_iter()
        .map(|(name, hash)| format!("filename={name},hash={hash},type=LUA;"))
        .collect()
}

pub fn udf_put(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    let (Some(file), Some(content)) = (param(&ps, &["filename"]), param(&ps, &["content"])) else {
        return "error=invalid_filename_or_content".into();
    };
    let Ok(code) = base64::engine::general_purpose::STANDARD.decode(content) else {
        return "error=invalid_base64_content".into();
    };
    match shared.udfs.register(file, &code) {
        Ok(()) => "ok".into(),
        Err(msg) => {
            let msg = base64::engine::general_purpose::STANDARD.encode(msg.as_bytes());
            format!("error=compile_error;file={file};line=0;message={msg}")
        }
    }
}

pub fn udf_get(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    match param(&ps, &["filename"]).and_then(|f| shared.udfs.get(f)) {
        // As a real server, the content ends with a `;` (clients read up to it).
        Some(code) => format!(
            "type=LUA;content={};",
            base64::engine::general_purpose::STANDARD.encode(code)
        ),
        None => "error=not_found".into(),
    }
}

pub fn udf_remove(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    let file = param(&ps, &["filename"]).unwrap_or("");
    // Removing a module that is not there is not an error (as a real server).
    shared.udfs.remove(file);
    "ok".into()
}
