//! How an info command refuses: the result codes a reply carries and the `ERROR:` line.

/// Result codes an info reply carries.
pub const UNKNOWN: u8 = 1;
pub const NOT_FOUND: u8 = 2;
pub const PARAMETER: u8 = 4;
pub const CLUSTER_KEY_MISMATCH: u8 = 7;
pub const NAMESPACE: u8 = 20;
pub const ENTERPRISE_ONLY: u8 = 25;

/// An error reply as a node writes it: `ERROR:<code>:<message>`, the code left out for
/// [`UNKNOWN`].
pub fn error(code: u8, message: impl std::fmt::Display) -> String {
    if code == UNKNOWN {
        format!("ERROR::{message}")
    } else {
        format!("ERROR:{code}:{message}")
    }
}

pub fn unrecognized() -> String {
    error(PARAMETER, "unrecognized command")
}

pub fn reply(result: Result<String, String>) -> String {
    result.unwrap_or_else(|refused| refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_leave_out_the_unknown_code() {
        assert_eq!(error(UNKNOWN, "unknown"), "ERROR::unknown");
        assert_eq!(error(PARAMETER, "bad id"), "ERROR:4:bad id");
    }
}
