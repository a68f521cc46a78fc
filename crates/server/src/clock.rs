//! Time in the units the wire uses.

use std::time::{SystemTime, UNIX_EPOCH};

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
