//! A bin's value as the server sent it (particle type + bytes) decoded to an `aerospike::Value`,
//! the form the slow paths (lists, maps, rare types) convert from.
//!
//! Lists and maps are MessagePack with Aerospike's conventions: strings and blobs carry their
//! particle type as a first byte, a leading extension element holds a list's or map's order
//! flags, other extensions read as nil. Nesting stops at [`MAX_READ_DEPTH`].

use std::collections::BTreeMap;

use aerospike::{IndexMap, Value};
use rmp::Marker;

use crate::convert::depth::MAX_READ_DEPTH;

pub use engine::particle_type::{
    BLOB, BOOL, FLOAT, GEOJSON, HLL, INTEGER, LIST, MAP, NULL as NIL, STRING,
};

/// Why bytes could not be decoded.
#[derive(Debug, PartialEq)]
pub enum Bad {
    /// Malformed bytes (the message).
    Malformed(String),
    /// Lists/maps nested deeper than [`MAX_READ_DEPTH`].
    TooDeep,
}

fn malformed(what: impl Into<String>) -> Bad {
    Bad::Malformed(what.into())
}

/// The value of a particle of type `ptype`.
pub fn decode(ptype: u8, b: &[u8]) -> Result<Value, Bad> {
    Ok(match ptype {
        NIL => Value::Nil,
        INTEGER => Value::Int(int(b)?),
        FLOAT => Value::from(float(b)?),
        STRING => Value::String(text(b)?.to_owned()),
        BLOB => Value::Blob(b.to_vec()),
        HLL => Value::Hll(b.to_vec()),
        BOOL => Value::Bool(b.first().is_some_and(|&x| x != 0)),
        GEOJSON => Value::GeoJson(geojson(b)?.to_owned()),
        LIST if b.is_empty() => Value::List(Vec::new()),
        MAP if b.is_empty() => Value::OrderedMap(IndexMap::new()),
        LIST | MAP => {
            // up to MAX_READ_DEPTH frames: on the deep stack, as the crate's decoding was
            let v = crate::safety::deep_stack::run(|| Reader { b, depth: 0 }.value())?;
            let top_ok = match v {
                Value::List(_) => ptype == LIST,
                Value::OrderedMap(_) | Value::SortedMap(_) | Value::KeyValueList(_) => ptype == MAP,
                _ => false,
            };
            if !top_ok {
                return Err(malformed("a list/map particle that holds no list/map"));
            }
            v
        }
        other => Value::Unknown(other, b.to_vec()),
    })
}

/// An integer particle (big-endian, 8 bytes; shorter ones sign-extended).
pub fn int(b: &[u8]) -> Result<i64, Bad> {
    if b.is_empty() || b.len() > 8 {
        return Err(malformed(format!(
            "an integer particle of {} bytes",
            b.len()
        )));
    }
    let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut w = [fill; 8];
    w[8 - b.len()..].copy_from_slice(b);
    Ok(i64::from_be_bytes(w))
}

/// A float particle (big-endian f64).
pub fn float(b: &[u8]) -> Result<f64, Bad> {
    let w: [u8; 8] = b
        .try_into()
        .map_err(|_| malformed(format!("a float particle of {} bytes", b.len())))?;
    Ok(f64::from_be_bytes(w))
}

/// A string particle.
pub fn text(b: &[u8]) -> Result<&str, Bad> {
    std::str::from_utf8(b).map_err(|_| malformed("a string that is not UTF-8"))
}

/// A GeoJSON particle's text (after its flags byte and cell ids).
pub fn geojson(b: &[u8]) -> Result<&str, Bad> {
    let short = || malformed("a GeoJSON particle shorter than its header");
    let head = b.get(..3).ok_or_else(short)?;
    let cells = usize::from(u16::from_be_bytes([head[1], head[2]]));
    text(b.get(3 + cells * 8..).ok_or_else(short)?)
}

/// Whether the list/map bytes `b` nest deeper than [`MAX_READ_DEPTH`], found without decoding
/// them. Malformed bytes answer false: decoding them reports what is wrong.
pub fn nests_too_deep(b: &[u8]) -> bool {
    // Each level takes a byte at least.
    if b.len() <= MAX_READ_DEPTH {
        return false;
    }
    // Items left to read in each open list or map; the first entry is the top value.
    let mut open: Vec<usize> = vec![1];
    let mut r = Reader { b, depth: 0 };
    while let Some(left) = open.last_mut() {
        if *left == 0 {
            open.pop();
            continue;
        }
        *left -= 1;
        let Ok(items) = r.skip_item() else {
            return false;
        };
        if let Some(n) = items {
            if open.len() > MAX_READ_DEPTH {
                return true;
            }
            open.push(n);
        }
    }
    false
}

struct Reader<'a> {
    b: &'a [u8],
    depth: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Bad> {
        if self.b.len() < n {
            return Err(malformed("a list/map cut short"));
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(head)
    }

    fn be(&mut self, n: usize) -> Result<u64, Bad> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |a, &x| (a << 8) | u64::from(x)))
    }

    fn len(&mut self, n: usize) -> Result<usize, Bad> {
        usize::try_from(self.be(n)?).map_err(|_| malformed("a length beyond memory"))
    }

    fn peek_is_ext(&self) -> bool {
        matches!(
            self.b.first().map(|&x| Marker::from_u8(x)),
            Some(
                Marker::FixExt1
                    | Marker::FixExt2
                    | Marker::FixExt4
                    | Marker::FixExt8
                    | Marker::FixExt16
                    | Marker::Ext8
                    | Marker::Ext16
                    | Marker::Ext32
            )
        )
    }

    fn value(&mut self) -> Result<Value, Bad> {
        let first = self.take(1)?[0];
        #[allow(clippy::cast_possible_wrap)]
        Ok(match Marker::from_u8(first) {
            Marker::FixPos(n) => Value::Int(i64::from(n)),
            Marker::FixNeg(n) => Value::Int(i64::from(n)),
            Marker::Null => Value::Nil,
            Marker::True => Value::Bool(true),
            Marker::False => Value::Bool(false),
            Marker::U8 => Value::Int(self.be(1)? as i64),
            Marker::U16 => Value::Int(self.be(2)? as i64),
            Marker::U32 => Value::Int(self.be(4)? as i64),
            Marker::U64 => Value::Int(self.be(8)? as i64),
            Marker::I8 => Value::Int(i64::from(self.be(1)? as u8 as i8)),
            Marker::I16 => Value::Int(i64::from(self.be(2)? as u16 as i16)),
            Marker::I32 => Value::Int(i64::from(self.be(4)? as u32 as i32)),
            Marker::I64 => Value::Int(self.be(8)? as i64),
            #[allow(clippy::cast_possible_truncation)]
            Marker::F32 => Value::from(f32::from_bits(self.be(4)? as u32)),
            Marker::F64 => Value::from(f64::from_bits(self.be(8)?)),
            Marker::FixStr(n) => self.particle(usize::from(n))?,
            Marker::Str8 | Marker::Bin8 => {
                let n = self.len(1)?;
                self.particle(n)?
            }
            Marker::Str16 | Marker::Bin16 => {
                let n = self.len(2)?;
                self.particle(n)?
            }
            Marker::Str32 | Marker::Bin32 => {
                let n = self.len(4)?;
                self.particle(n)?
            }
            Marker::FixArray(n) => self.list(usize::from(n))?,
            Marker::Array16 => {
                let n = self.len(2)?;
                self.list(n)?
            }
            Marker::Array32 => {
                let n = self.len(4)?;
                self.list(n)?
            }
            Marker::FixMap(n) => self.map(usize::from(n))?,
            Marker::Map16 => {
                let n = self.len(2)?;
                self.map(n)?
            }
            Marker::Map32 => {
                let n = self.len(4)?;
                self.map(n)?
            }
            Marker::FixExt1 => self.skip(2)?,
            Marker::FixExt2 => self.skip(3)?,
            Marker::FixExt4 => self.skip(5)?,
            Marker::FixExt8 => self.skip(9)?,
            Marker::FixExt16 => self.skip(17)?,
            Marker::Ext8 => {
                let n = self.len(1)?;
                self.skip(n + 1)?
            }
            Marker::Ext16 => {
                let n = self.len(2)?;
                self.skip(n + 1)?
            }
            Marker::Ext32 => {
                let n = self.len(4)?;
                self.skip(n + 1)?
            }
            Marker::Reserved => return Err(malformed(format!("MessagePack byte {first:#04x}"))),
        })
    }

    /// Pass over one item without decoding it; for a list or map, how many items it holds
    /// (a map: keys and values).
    fn skip_item(&mut self) -> Result<Option<usize>, Bad> {
        let first = self.take(1)?[0];
        let (skip, items) = match Marker::from_u8(first) {
            Marker::FixPos(_) | Marker::FixNeg(_) | Marker::Null | Marker::True | Marker::False => {
                (0, None)
            }
            Marker::U8 | Marker::I8 => (1, None),
            Marker::U16 | Marker::I16 => (2, None),
            Marker::U32 | Marker::I32 | Marker::F32 => (4, None),
            Marker::U64 | Marker::I64 | Marker::F64 => (8, None),
            Marker::FixStr(n) => (usize::from(n), None),
            Marker::Str8 | Marker::Bin8 => (self.len(1)?, None),
            Marker::Str16 | Marker::Bin16 => (self.len(2)?, None),
            Marker::Str32 | Marker::Bin32 => (self.len(4)?, None),
            Marker::FixArray(n) => (0, Some(usize::from(n))),
            Marker::Array16 => (0, Some(self.len(2)?)),
            Marker::Array32 => (0, Some(self.len(4)?)),
            Marker::FixMap(n) => (0, Some(2 * usize::from(n))),
            Marker::Map16 => (0, Some(2 * self.len(2)?)),
            Marker::Map32 => (0, Some(self.len(4)?.saturating_mul(2))),
            Marker::FixExt1 => (2, None),
            Marker::FixExt2 => (3, None),
            Marker::FixExt4 => (5, None),
            Marker::FixExt8 => (9, None),
            Marker::FixExt16 => (17, None),
            Marker::Ext8 => (self.len(1)? + 1, None),
            Marker::Ext16 => (self.len(2)? + 1, None),
            Marker::Ext32 => (self.len(4)?.saturating_add(1), None),
            Marker::Reserved => return Err(malformed(format!("MessagePack byte {first:#04x}"))),
        };
        self.take(skip)?;
        Ok(items)
    }

    fn skip(&mut self, n: usize) -> Result<Value, Bad> {
        self.take(n)?;
        Ok(Value::Nil)
    }

    /// A string or blob: its first byte is its particle type.
    fn particle(&mut self, n: usize) -> Result<Value, Bad> {
        let b = self.take(n)?;
        let (&ptype, rest) = b
            .split_first()
            .ok_or_else(|| malformed("an empty string particle"))?;
        Ok(match ptype {
            STRING => Value::String(text(rest)?.to_owned()),
            BLOB => Value::Blob(rest.to_vec()),
            HLL => Value::Hll(rest.to_vec()),
            GEOJSON => Value::GeoJson(text(rest)?.to_owned()),
            other => Value::Unknown(other, rest.to_vec()),
        })
    }

    fn enter(&mut self) -> Result<(), Bad> {
        self.depth += 1;
        if self.depth > MAX_READ_DEPTH {
            return Err(Bad::TooDeep);
        }
        Ok(())
    }

    fn list(&mut self, mut n: usize) -> Result<Value, Bad> {
        self.enter()?;
        if n > 0 && self.peek_is_ext() {
            self.value()?;
            n -= 1;
        }
        let mut items = Vec::with_capacity(n.min(self.b.len()));
        for _ in 0..n {
            items.push(self.value()?);
        }
        self.depth -= 1;
        Ok(Value::List(items))
    }

    fn map(&mut self, mut n: usize) -> Result<Value, Bad> {
        self.enter()?;
        let mut flags = 0u8;
        if n > 0 && self.peek_is_ext() {
            // an empty ext8 whose type is the order flags: 0x01 by key, 0x08 by key and value
            if let [0xc7, 0, f, ..] = self.b {
                flags = *f;
            }
            self.value()?;
            self.value()?;
            n -= 1;
        }
        let cap = n.min(self.b.len());
        let v = if flags & 0x08 != 0 {
            let mut kv = Vec::with_capacity(cap);
            for _ in 0..n {
                kv.push((self.value()?, self.value()?));
            }
            Value::KeyValueList(kv)
        } else if flags & 0x01 != 0 {
            let mut m = BTreeMap::new();
            for _ in 0..n {
                let k = self.key()?;
                m.insert(k, self.value()?);
            }
            Value::SortedMap(m)
        } else {
            let mut m = IndexMap::with_capacity(cap);
            for _ in 0..n {
                let k = self.key()?;
                m.insert(k, self.value()?);
            }
            Value::OrderedMap(m)
        };
        self.depth -= 1;
        Ok(v)
    }

    fn key(&mut self) -> Result<Value, Bad> {
        let k = self.value()?;
        match k {
            Value::Nil | Value::Int(_) | Value::String(_) | Value::Blob(_) => Ok(k),
            _ => Err(malformed(
                "a map key that is not nil, an int, a string or bytes",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_decode() {
        assert_eq!(decode(INTEGER, &(-5i64).to_be_bytes()), Ok(Value::Int(-5)));
        assert_eq!(decode(INTEGER, &[0xff]), Ok(Value::Int(-1)));
        assert_eq!(decode(FLOAT, &1.5f64.to_be_bytes()), Ok(Value::from(1.5)));
        assert_eq!(decode(STRING, b"hi"), Ok(Value::from("hi")));
        assert_eq!(decode(BOOL, &[1]), Ok(Value::Bool(true)));
        assert!(decode(FLOAT, &[1, 2]).is_err());
    }

    #[test]
    fn lists_and_maps_follow_the_particle_conventions() {
        // [1, "a", -1]
        let v = decode(LIST, &[0x93, 0x01, 0xa2, 0x03, b'a', 0xff]).unwrap();
        assert_eq!(
            v,
            Value::List(vec![Value::Int(1), Value::from("a"), Value::Int(-1)])
        );
        // key-ordered {2: 1, 1: 2}: the order marker comes first and is dropped
        let v = decode(MAP, &[0x83, 0xc7, 0x00, 0x01, 0xc0, 0x02, 0x01, 0x01, 0x02]);
        let Ok(Value::SortedMap(m)) = v else {
            panic!("{v:?}")
        };
        assert_eq!(
            m.keys().collect::<Vec<_>>(),
            [&Value::Int(1), &Value::Int(2)]
        );
        // a float map key is refused
        assert!(decode(MAP, &[0x81, 0xca, 0, 0, 0, 0, 0x01]).is_err());
    }

    #[test]
    fn nesting_stops_at_the_read_limit() {
        let deep = MAX_READ_DEPTH + 1;
        let mut b = vec![0x91; deep];
        b.push(0x01);
        assert_eq!(decode(LIST, &b), Err(Bad::TooDeep));
        assert!(decode(LIST, &b[1..]).is_ok());
        assert!(nests_too_deep(&b));
        assert!(!nests_too_deep(&b[1..]));
    }

    #[test]
    fn nesting_is_measured_past_long_values_and_wide_maps() {
        // {"k": "x" * 600} holds one level only
        let mut b = vec![0x81, 0xa2, 0x03, b'k', 0xda, 0x02, 0x59, 0x03];
        b.extend(std::iter::repeat_n(b'x', 600));
        assert!(!nests_too_deep(&b));
        // a map whose second value nests MAX_READ_DEPTH lists: one level too many
        let mut b = vec![0x82, 0x01, 0x02, 0x02];
        b.extend(std::iter::repeat_n(0x91, MAX_READ_DEPTH));
        b.push(0x01);
        assert!(nests_too_deep(&b));
        assert_eq!(decode(MAP, &b), Err(Bad::TooDeep));
    }
}
