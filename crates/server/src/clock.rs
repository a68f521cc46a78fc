//! Time in the units the wire uses.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Seconds from the Unix epoch to the Aerospike ("citrusleaf") epoch, 2010-01-01.
pub const CITRUSLEAF_EPOCH: u64 = 1_262_304_000;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Seconds since the citrusleaf epoch for a Unix time in milliseconds.
pub fn cl_secs(unix_ms: u64) -> u32 {
    (unix_ms / 1000).saturating_sub(CITRUSLEAF_EPOCH) as u32
}

/// How long a transaction may run when its request gives no timeout (a real server's
/// `transaction-max-ms` default).
const TRANSACTION_MAX_MS: u32 = 1_000;

/// When a transaction starting now must end: `timeout_ms` from the request header, or
/// [`TRANSACTION_MAX_MS`] when it is 0. A record UDF still running then fails, as on a real
/// server, with code 100 and "UDF Execution Timeout".
pub fn transaction_deadline(timeout_ms: u32) -> Instant {
    let ms = if timeout_ms == 0 {
        TRANSACTION_MAX_MS
    } else {
        timeout_ms
    };
    Instant::now() + Duration::from_millis(u64::from(ms))
}
