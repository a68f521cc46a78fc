//! The server's log: a line of a context goes to stderr, as a real node's console sink writes
//! it, when that context's level (`log-set`, INFO at start) lets it through.

use crate::{info, Shared};

const WARNING: u8 = 1;

/// Logs `line` at WARNING in `context` (a real node's context name, e.g. `udf`).
pub fn warning(shared: &Shared, context: &str, line: &str) {
    if info::log_enabled(shared, context, WARNING) {
        eprintln!("WARNING ({context}): {line}");
    }
}
