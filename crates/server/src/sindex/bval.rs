//! Index-query order: a real server walks an index query's partition in (bval, digest) order,
//! where the bval of an indexed integer is the integer and that of a string, blob or GeoJSON
//! value is a 64-bit hash of it, sends each record's bval with it (field BVAL_ARRAY), and
//! resumes a partition strictly after the (bval, digest) a client sends back.

use ripemd::{Digest as _, Ripemd160};

use engine::value::Value;

use crate::store::Digest;

/// Where a record stands in its partition's index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    order: u64,
    digest: Digest,
}

impl Position {
    /// Before every entry.
    pub const FIRST: Position = Position {
        order: 0,
        digest: [0; 20],
    };
    /// After every entry.
    pub const LAST: Position = Position {
        order: u64::MAX,
        digest: [0xFF; 20],
    };

    /// The position of the entry `(bval, digest)`; the bvals of a `geo` index order as
    /// unsigned numbers, all others (integers, and hashes of strings and blobs) as signed ones.
    pub fn new(bval: i64, digest: Digest, geo: bool) -> Position {
        let order = if geo {
            bval as u64
        } else {
            (bval as u64) ^ (1 << 63)
        };
        Position { order, digest }
    }

    /// The bval of the entry (`geo` as given to [`Position::new`]).
    pub fn bval(&self, geo: bool) -> i64 {
        if geo {
            self.order as i64
        } else {
            (self.order ^ (1 << 63)) as i64
        }
    }

    pub fn digest(&self) -> &Digest {
        &self.digest
    }
}

/// The bval of a string, blob or GeoJSON text: a hash of its bytes.
pub fn hashed(bytes: &[u8]) -> i64 {
    let h = Ripemd160::digest(bytes);
    i64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]])
}

/// The bval of an indexed element, None for a type no index holds.
pub fn of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Str(s) | Value::GeoJson(s) => Some(hashed(s.as_bytes())),
        Value::Bytes(_, b) => Some(hashed(b)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_order_as_signed_numbers_then_by_digest() {
        let p = |b, d| Position::new(b, [d; 20], false);
        assert!(p(-5, 9) < p(-1, 0));
        assert!(p(-1, 9) < p(0, 0));
        assert!(p(3, 1) < p(3, 2));
        assert!(p(i64::MAX, 0) > p(i64::MIN, 9));
    }

    #[test]
    fn geo_bvals_order_as_unsigned_numbers_and_string_hashes_as_signed() {
        assert!(Position::new(-1, [0; 20], true) > Position::new(1, [0; 20], true));
        assert!(Position::new(-1, [0; 20], false) < Position::new(1, [0; 20], false));
    }

    #[test]
    fn a_position_gives_back_its_bval() {
        for b in [i64::MIN, -7, 0, 9, i64::MAX] {
            assert_eq!(Position::new(b, [1; 20], false).bval(false), b);
            assert_eq!(Position::new(b, [1; 20], true).bval(true), b);
        }
    }

    #[test]
    fn a_string_bval_is_stable_and_depends_on_the_text() {
        let a = of(&Value::Str("alice".into()));
        assert_eq!(a, of(&Value::Str("alice".into())));
        assert_ne!(a, of(&Value::Str("bob".into())));
    }
}
