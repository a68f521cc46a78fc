//! Drops records a scan or query delivers twice.
//!
//! A scan returns a partition's records in one digest order (descending on Aerospike 8); a
//! retry continues in that order from an earlier point (the crate's cursor can lag the
//! records already queued for us), so a record is new exactly when it lies beyond the last
//! one delivered for its partition. An index query returns a partition's records in
//! (bval, digest) order and resumes strictly after the position it is sent, so on our wire
//! path only a repeat of the last position can come again. A record with several entries in
//! the index (list or map elements, geo cells) can come once per entry, and the crate's path
//! does not report positions: there every digest delivered is remembered.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

type Digest = [u8; 20];

/// A hasher for partition ids and digests, which are uniform already: SipHash cost more per
/// record than the rest of the check.
#[derive(Default)]
struct Spread(u64);

impl Hasher for Spread {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for word in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..word.len()].copy_from_slice(word);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(29) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type Spreading = BuildHasherDefault<Spread>;

/// Which records can come again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// A scan: records move in one digest order per partition.
    #[default]
    Scan,
    /// An index query with one entry per record, read with its positions.
    Index,
    /// Any record delivered may come again.
    Any,
}

/// What one partition delivered, as far as needed to recognise a repeat.
enum Seen {
    /// The last digest and the direction digests move in.
    Last(Digest, Option<Ordering>),
    /// The last position: (bval, digest).
    At(Option<u64>, Digest),
    Every(HashSet<Digest, Spreading>),
}

/// Per partition, what was delivered.
#[derive(Default)]
pub struct Redelivery {
    mode: Mode,
    parts: HashMap<u16, Seen, Spreading>,
}

impl Redelivery {
    pub fn new(mode: Mode) -> Self {
        Redelivery {
            mode,
            parts: HashMap::default(),
        }
    }

    /// Whether the record `digest` (at `bval` in an index) of partition `pid` is new, and
    /// remember it if so.
    pub fn is_new(&mut self, pid: u16, digest: Digest, bval: Option<u64>) -> bool {
        let Some(seen) = self.parts.get_mut(&pid) else {
            let first = match self.mode {
                Mode::Scan => Seen::Last(digest, None),
                Mode::Index => Seen::At(bval, digest),
                Mode::Any => Seen::Every(HashSet::from_iter([digest])),
            };
            self.parts.insert(pid, first);
            return true;
        };
        match seen {
            Seen::Every(delivered) => delivered.insert(digest),
            Seen::At(last_bval, last) => {
                let new = (bval, digest) != (*last_bval, *last);
                (*last_bval, *last) = (bval, digest);
                new
            }
            Seen::Last(last, direction) => {
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
    }

    /// Move the partitions `pids` out (to read them elsewhere; [`Self::absorb`] takes them
    /// back).
    pub fn split(&mut self, pids: impl IntoIterator<Item = u16>) -> Redelivery {
        let parts = pids
            .into_iter()
            .filter_map(|pid| self.parts.remove(&pid).map(|s| (pid, s)))
            .collect();
        Redelivery {
            mode: self.mode,
            parts,
        }
    }

    pub fn absorb(&mut self, other: Redelivery) {
        self.parts.extend(other.parts);
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
        let first: Vec<bool> = [9, 7, 5].iter().map(|&b| r.is_new(1, d(b), None)).collect();
        assert_eq!(first, [true, true, true]);
        // The retry starts again at 7 (the crate's cursor lagged): 7 and 5 are repeats.
        let again: Vec<bool> = [7, 5, 3, 1]
            .iter()
            .map(|&b| r.is_new(1, d(b), None))
            .collect();
        assert_eq!(again, [false, false, true, true]);
    }

    #[test]
    fn ascending_servers_are_followed_too() {
        let mut r = Redelivery::default();
        let got: Vec<bool> = [1, 3, 1, 3, 5]
            .iter()
            .map(|&b| r.is_new(2, d(b), None))
            .collect();
        assert_eq!(got, [true, true, false, false, true]);
    }

    #[test]
    fn any_mode_keeps_records_in_any_digest_order_and_drops_repeats() {
        let mut r = Redelivery::new(Mode::Any);
        let got: Vec<bool> = [5, 9, 1, 7, 9, 1]
            .iter()
            .map(|&b| r.is_new(3, d(b), None))
            .collect();
        assert_eq!(got, [true, true, true, true, false, false]);
    }

    #[test]
    fn an_index_query_drops_only_a_repeat_of_the_last_position() {
        let mut r = Redelivery::new(Mode::Index);
        // Index order: any digest order; the resume point sent again is a repeat.
        let got: Vec<bool> = [(1, 5), (2, 9), (2, 1), (2, 1), (3, 9)]
            .iter()
            .map(|&(b, x)| r.is_new(3, d(x), Some(b)))
            .collect();
        assert_eq!(got, [true, true, true, false, true]);
    }

    #[test]
    fn a_repeated_first_record_is_dropped_and_partitions_are_separate() {
        let mut r = Redelivery::default();
        assert!(r.is_new(1, d(4), None));
        assert!(!r.is_new(1, d(4), None));
        assert!(r.is_new(2, d(4), None));
    }

    #[test]
    fn partitions_split_off_come_back_with_what_they_saw() {
        let mut r = Redelivery::new(Mode::Any);
        assert!(r.is_new(1, d(1), None));
        assert!(r.is_new(2, d(2), None));
        let mut part = r.split([1]);
        assert!(!part.is_new(1, d(1), None));
        assert!(part.is_new(1, d(3), None));
        r.absorb(part);
        assert!(!r.is_new(1, d(3), None));
        assert!(!r.is_new(2, d(2), None));
    }
}
