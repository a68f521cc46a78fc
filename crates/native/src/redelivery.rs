//! Drops records a scan delivers twice.
//!
//! When a node fails mid-scan, the crate retries its partitions from the cursor it has
//! committed, which can lag the records already queued for us: those come again. Within one
//! partition a scan returns records in one digest order (descending on Aerospike 8), and a
//! retry continues in that order from an earlier point, so a record is new exactly when it
//! lies beyond the last one delivered for its partition. One entry per partition: bounded.
//! A secondary-index query returns a partition's records in index order instead (a real
//! server: by indexed value, then digest), so there every digest delivered is remembered.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

/// Per partition: the last digest delivered and the direction records move in; for an index
/// query, every digest delivered.
#[derive(Default)]
pub struct Redelivery {
    parts: HashMap<u16, (Digest, Option<Ordering>)>,
    delivered: Option<HashSet<Digest>>,
}

type Digest = [u8; 20];

impl Redelivery {
    /// For a scan (`indexed` false) or a secondary-index query.
    pub fn new(indexed: bool) -> Self {
        Redelivery {
            parts: HashMap::new(),
            delivered: indexed.then(HashSet::new),
        }
    }

    /// Whether the record `digest` of partition `pid` is new (and remember it if so).
    pub fn is_new(&mut self, pid: u16, digest: Digest) -> bool {
        if let Some(delivered) = &mut self.delivered {
            return delivered.insert(digest);
        }
        let Some((last, direction)) = self.parts.get_mut(&pid) else {
            self.parts.insert(pid, (digest, None));
            return true;
        };
        let step = digest.cmp(last);
        let new = match direction {
            None => step != Ordering::Equal,
            Some(d) => step == *d,
        };
        if new {
            *direction = Some(step);
            *last = digest;
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(b: u8) -> Digest {
        [b; 20]
    }

    #[test]
    fn a_retry_from_an_earlier_point_repeats_nothing() {
        let mut r = Redelivery::default();
        let first: Vec<bool> = [9, 7, 5].iter().map(|&b| r.is_new(1, d(b))).collect();
        assert_eq!(first, [true, true, true]);
        // The retry starts again at 7 (the crate's cursor lagged): 7 and 5 are repeats.
        let again: Vec<bool> = [7, 5, 3, 1].iter().map(|&b| r.is_new(1, d(b))).collect();
        assert_eq!(again, [false, false, true, true]);
    }

    #[test]
    fn ascending_servers_are_followed_too() {
        let mut r = Redelivery::default();
        let got: Vec<bool> = [1, 3, 1, 3, 5].iter().map(|&b| r.is_new(2, d(b))).collect();
        assert_eq!(got, [true, true, false, false, true]);
    }

    #[test]
    fn an_index_query_keeps_records_in_any_digest_order_and_drops_repeats() {
        let mut r = Redelivery::new(true);
        let got: Vec<bool> = [5, 9, 1, 7, 9, 1]
            .iter()
            .map(|&b| r.is_new(3, d(b)))
            .collect();
        assert_eq!(got, [true, true, true, true, false, false]);
    }

    #[test]
    fn a_repeated_first_record_is_dropped_and_partitions_are_separate() {
        let mut r = Redelivery::default();
        assert!(r.is_new(1, d(4)));
        assert!(!r.is_new(1, d(4)));
        assert!(r.is_new(2, d(4)));
    }
}
