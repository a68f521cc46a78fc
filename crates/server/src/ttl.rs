//! The record TTLs a write may carry, checked as a real node checks them.

/// The longest TTL a real node accepts: 10 years.
pub const MAX_ALLOWED: u32 = 10 * 365 * 24 * 3600;
/// Wire TTL: the record never expires.
pub const NEVER_EXPIRE: u32 = u32::MAX;
/// Wire TTL: keep the record's TTL (the namespace default for a new record).
pub const DONT_UPDATE: u32 = u32::MAX - 1;

/// Whether a write may carry `ttl`: 0 (the namespace default) up to [`MAX_ALLOWED`], or one of
/// the two special values. Anything else (0xFFFFFFFD included: a client-side sentinel a node
/// does not know) is a ParameterError on a real node.
pub fn is_valid(ttl: u32) -> bool {
    ttl <= MAX_ALLOWED || ttl == NEVER_EXPIRE || ttl == DONT_UPDATE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_nodes_ttl_rules() {
        for ok in [0, 1, MAX_ALLOWED, NEVER_EXPIRE, DONT_UPDATE] {
            assert!(is_valid(ok), "{ok}");
        }
        for bad in [MAX_ALLOWED + 1, 4_000_000_000, u32::MAX - 2] {
            assert!(!is_valid(bad), "{bad}");
        }
    }
}
