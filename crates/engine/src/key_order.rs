//! Stored maps in key order: a real node stores every map, unordered ones included, with its
//! keys sorted (Int < String < Blob), at the top level and nested in lists and maps, whatever
//! order the client wrote them in.

use bytes::Bytes;

use crate::pack::{encode, from_mp_noting, read_mp};
use crate::particle_type as pt;

/// The bytes a written bin particle is stored as: a list or map with its maps in key order.
pub fn stored(ptype: u8, data: &[u8]) -> Bytes {
    match ptype {
        pt::LIST | pt::MAP => {
            normalized(data).map_or_else(|| Bytes::copy_from_slice(data), Bytes::from)
        }
        _ => Bytes::copy_from_slice(data),
    }
}

/// The msgpack `data` re-encoded with every map in key order, or None when it needs no change
/// (no map of two or more entries, all maps already in order, or not msgpack: kept as sent).
pub fn normalized(data: &[u8]) -> Option<Vec<u8>> {
    if !holds_a_map(data) {
        return None;
    }
    let mut reordered = false;
    let v = from_mp_noting(read_mp(&mut &data[..]).ok()?, &mut reordered).ok()?;
    reordered.then(|| encode(&v))
}

/// Whether the msgpack in `data` holds a map of two or more entries, found by skipping over
/// elements without decoding them (so a list of scalars costs one pass and no allocation).
fn holds_a_map(data: &[u8]) -> bool {
    let mut at = 0usize;
    let mut pending: u64 = 1;
    while pending > 0 {
        pending -= 1;
        let Some(&m) = data.get(at) else {
            return false;
        };
        at += 1;
        let be = |at: usize, n: usize| -> Option<u64> {
            let b = data.get(at..at + n)?;
            Some(b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
        };
        // (bytes of length field, extra fixed bytes, element count, entry count)
        let (len_bytes, fixed, items, entries): (usize, u64, u64, u64) = match m {
            0x80..=0x8f => (0, 0, 0, u64::from(m & 0x0f)),
            0x90..=0x9f => (0, 0, u64::from(m & 0x0f), 0),
            0xa0..=0xbf => (0, u64::from(m & 0x1f), 0, 0),
            0xc4 | 0xd9 => (1, 0, 0, 0),
            0xc5 | 0xda => (2, 0, 0, 0),
            0xc6 | 0xdb => (4, 0, 0, 0),
            0xc7 => (1, 1, 0, 0),
            0xc8 => (2, 1, 0, 0),
            0xc9 => (4, 1, 0, 0),
            0xca | 0xce | 0xd2 => (0, 4, 0, 0),
            0xcb | 0xcf | 0xd3 => (0, 8, 0, 0),
            0xcc | 0xd0 => (0, 1, 0, 0),
            0xcd | 0xd1 => (0, 2, 0, 0),
            0xd4 => (0, 2, 0, 0),
            0xd5 => (0, 3, 0, 0),
            0xd6 => (0, 5, 0, 0),
            0xd7 => (0, 9, 0, 0),
            0xd8 => (0, 17, 0, 0),
            0xdc => match be(at, 2) {
                Some(n) => (2, 0, n, 0),
                None => return false,
            },
            0xdd => match be(at, 4) {
                Some(n) => (4, 0, n, 0),
                None => return false,
            },
            0xde => match be(at, 2) {
                Some(n) => (2, 0, 0, n),
                None => return false,
            },
            0xdf => match be(at, 4) {
                Some(n) => (4, 0, 0, n),
                None => return false,
            },
            0xc1 => return false,
            _ => (0, 0, 0, 0), // fixints, nil, booleans
        };
        if entries >= 2 {
            return true;
        }
        let counted = matches!(m, 0xdc..=0xdf);
        let var_len = if len_bytes > 0 && !counted {
            match be(at, len_bytes) {
                Some(n) => n,
                None => return false,
            }
        } else {
            0
        };
        let skip = len_bytes as u64 + fixed + var_len;
        at = match usize::try_from(skip).ok().and_then(|s| at.checked_add(s)) {
            Some(next) => next,
            None => return false,
        };
        pending = pending.saturating_add(items).saturating_add(entries * 2);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::decode;
    use crate::value::Value;

    fn keys(v: &Value) -> Vec<Value> {
        match v {
            Value::Map(m) => m.entries.iter().map(|e| e.0.clone()).collect(),
            _ => panic!("not a map: {v:?}"),
        }
    }

    #[test]
    fn maps_are_put_in_key_order_at_every_level() {
        // {"z": 0, "m": 5, "a": [{"y": 1, "b": 2}], 7: nil}
        let mut data = vec![
            0x84, 0xa2, 3, b'z', 0, 0xa2, 3, b'm', 5, 0xa2, 3, b'a', 0x91,
        ];
        data.extend_from_slice(&[0x82, 0xa2, 3, b'y', 1, 0xa2, 3, b'b', 2, 7, 0xc0]);
        let out = normalized(&data).expect("reordered");
        let v = decode(&out).unwrap();
        let s = |x: &str| Value::Str(x.into());
        assert_eq!(keys(&v), vec![Value::Int(7), s("a"), s("m"), s("z")]);
        let Value::Map(m) = &v else { unreachable!() };
        let Value::List(l) = &m.entries[1].1 else {
            panic!("not a list")
        };
        assert_eq!(keys(&l.items[0]), vec![s("b"), s("y")]);
        assert_eq!(normalized(&out), None, "already in order");
    }

    #[test]
    fn values_without_an_unordered_map_are_kept_as_sent() {
        // A list of scalars, a string that looks like a map header, a one-entry map.
        let list = [0x93, 0x01, 0xa2, 0x82, 0x82, 0xcd, 0x01, 0x00];
        assert!(!holds_a_map(&list));
        assert_eq!(normalized(&list), None);
        assert_eq!(normalized(&[0x81, 0x01, 0x02]), None);
        assert_eq!(normalized(&[0x82, 0x01]), None, "truncated: kept as sent");
        // A map in a list behind a 16-bit array header is found.
        assert!(holds_a_map(&[0xdc, 0x00, 0x02, 0x01, 0x82, 2, 0, 1, 0]));
        assert!(normalized(&[0xdc, 0x00, 0x02, 0x01, 0x82, 2, 0, 1, 0]).is_some());
    }
}
