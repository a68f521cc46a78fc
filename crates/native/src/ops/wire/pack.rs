//! Values as the server's MessagePack: strings, blobs, GeoJSON and HLLs carry their particle
//! type as the first byte of a msgpack `str`; a key-ordered map opens with an order entry;
//! `INFINITY` and `WILDCARD` are one-byte extensions.

use aerospike::{FloatValue, Value};

pub(crate) use engine::particle_type as particle;

/// Why a value cannot be packed (names what was wrong; the caller adds where).
pub(crate) type PackError = String;

pub(crate) fn nil(out: &mut Vec<u8>) {
    out.push(0xc0);
}

pub(crate) fn int(out: &mut Vec<u8>, v: i64) {
    match v {
        0..=0x7f => out.push(v as u8),
        -32..=-1 => out.push(v as u8),
        0x80..=0xff => out.extend_from_slice(&[0xcc, v as u8]),
        0x100..=0xffff => {
            out.push(0xcd);
            out.extend_from_slice(&(v as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(0xce);
            out.extend_from_slice(&(v as u32).to_be_bytes());
        }
        0x1_0000_0000.. => {
            out.push(0xcf);
            out.extend_from_slice(&(v as u64).to_be_bytes());
        }
        -0x80..=-33 => out.extend_from_slice(&[0xd0, v as u8]),
        -0x8000..=-0x81 => {
            out.push(0xd1);
            out.extend_from_slice(&(v as i16).to_be_bytes());
        }
        -0x8000_0000..=-0x8001 => {
            out.push(0xd2);
            out.extend_from_slice(&(v as i32).to_be_bytes());
        }
        _ => {
            out.push(0xd3);
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}

fn sized(out: &mut Vec<u8>, n: usize, (fix, fix_max): (u8, usize), (m16, m32): (u8, u8)) {
    if n < fix_max {
        out.push(fix | n as u8);
    } else if n < 1 << 16 {
        out.push(m16);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(m32);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

pub(crate) fn array_begin(out: &mut Vec<u8>, n: usize) {
    sized(out, n, (0x90, 16), (0xdc, 0xdd));
}

fn map_header(out: &mut Vec<u8>, n: usize) {
    sized(out, n, (0x80, 16), (0xde, 0xdf));
}

/// A map of `n` entries; a key-ordered one opens with the order entry the server reads.
fn map_begin(out: &mut Vec<u8>, n: usize, key_ordered: bool) {
    if key_ordered {
        map_header(out, n + 1);
        out.extend_from_slice(&[0xc7, 0, 1, 0xc0]);
    } else {
        map_header(out, n);
    }
}

fn str_begin(out: &mut Vec<u8>, n: usize) {
    if n < 32 {
        out.push(0xa0 | n as u8);
    } else if n < 256 {
        out.extend_from_slice(&[0xd9, n as u8]);
    } else {
        sized(out, n, (0, 0), (0xda, 0xdb));
    }
}

/// A msgpack `str` whose first byte is the particle type.
fn typed_bytes(out: &mut Vec<u8>, ptype: u8, bytes: &[u8]) {
    str_begin(out, bytes.len() + 1);
    out.push(ptype);
    out.extend_from_slice(bytes);
}

pub(crate) fn value(out: &mut Vec<u8>, v: &Value) -> Result<(), PackError> {
    match v {
        Value::Nil => nil(out),
        Value::Int(i) => int(out, *i),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Float(f @ FloatValue::F32(_)) => {
            out.push(0xca);
            out.extend_from_slice(&f32::from(f).to_be_bytes());
        }
        Value::Float(f) => {
            out.push(0xcb);
            out.extend_from_slice(&f64::from(f).to_be_bytes());
        }
        Value::String(s) => typed_bytes(out, particle::STRING, s.as_bytes()),
        Value::Blob(b) => typed_bytes(out, particle::BLOB, b),
        Value::Hll(b) => typed_bytes(out, particle::HLL, b),
        Value::GeoJson(s) => typed_bytes(out, particle::GEOJSON, s.as_bytes()),
        Value::List(items) => list(out, items)?,
        Value::HashMap(m) => entries(out, m.len(), false, m.iter())?,
        Value::OrderedMap(m) => entries(out, m.len(), false, m.iter())?,
        Value::SortedMap(m) => entries(out, m.len(), true, m.iter())?,
        Value::Infinity => out.extend_from_slice(&[0xd4, 0xff, 0x01]),
        Value::Wildcard => out.extend_from_slice(&[0xd4, 0xff, 0x00]),
        _ => {
            return Err(format!(
                "a {} cannot be sent inside a list, map or operation",
                label(v)
            ))
        }
    }
    Ok(())
}

pub(crate) fn list(out: &mut Vec<u8>, items: &[Value]) -> Result<(), PackError> {
    array_begin(out, items.len());
    items.iter().try_for_each(|item| value(out, item))
}

/// A map's entries, in the order given (`key_ordered`: marked as a key-ordered map).
pub(crate) fn entries<'a>(
    out: &mut Vec<u8>,
    n: usize,
    key_ordered: bool,
    items: impl Iterator<Item = (&'a Value, &'a Value)>,
) -> Result<(), PackError> {
    map_begin(out, n, key_ordered);
    for (k, v) in items {
        if !matches!(k, Value::Int(_) | Value::String(_) | Value::Blob(_)) {
            return Err(format!(
                "{} cannot be a map key; only integers, strings and blobs can",
                label(k)
            ));
        }
        value(out, k)?;
        value(out, v)?;
    }
    Ok(())
}

/// What a value is, in a message.
fn label(v: &Value) -> &'static str {
    match v {
        Value::Float(_) => "float",
        Value::Bool(_) => "bool",
        Value::List(_) => "list",
        Value::HashMap(_) | Value::OrderedMap(_) | Value::SortedMap(_) => "map",
        Value::Infinity => "INFINITY",
        Value::Wildcard => "WILDCARD",
        Value::GeoJson(_) => "GeoJSON value",
        Value::Nil => "None",
        _ => "value of this type",
    }
}

/// A bin value as a write op carries it: its particle type and bytes.
pub(crate) fn particle_of(out: &mut Vec<u8>, v: &Value) -> Result<u8, PackError> {
    Ok(match v {
        Value::Nil => particle::NULL,
        Value::Int(i) => {
            out.extend_from_slice(&i.to_be_bytes());
            particle::INTEGER
        }
        Value::Float(f) => {
            out.extend_from_slice(&f64::from(f).to_be_bytes());
            particle::FLOAT
        }
        Value::String(s) => {
            out.extend_from_slice(s.as_bytes());
            particle::STRING
        }
        Value::Blob(b) => {
            out.extend_from_slice(b);
            particle::BLOB
        }
        Value::Hll(b) => {
            out.extend_from_slice(b);
            particle::HLL
        }
        Value::Bool(b) => {
            out.push(u8::from(*b));
            particle::BOOL
        }
        Value::GeoJson(s) => {
            out.extend_from_slice(&[0, 0, 0]);
            out.extend_from_slice(s.as_bytes());
            particle::GEOJSON
        }
        Value::List(_) => {
            value(out, v)?;
            particle::LIST
        }
        Value::HashMap(_) | Value::OrderedMap(_) | Value::SortedMap(_) => {
            value(out, v)?;
            particle::MAP
        }
        Value::Infinity | Value::Wildcard => {
            return Err(format!(
                "{} is only valid inside a collection or a range bound, not as a bin value",
                label(v)
            ))
        }
        _ => return Err(format!("a {} cannot be written", label(v))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packed(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        value(&mut out, v).unwrap();
        out
    }

    #[test]
    fn integers_take_the_smallest_msgpack_form() {
        let cases: [(i64, &[u8]); 9] = [
            (5, &[5]),
            (-1, &[0xff]),
            (-32, &[0xe0]),
            (-33, &[0xd0, 0xdf]),
            (200, &[0xcc, 200]),
            (300, &[0xcd, 1, 44]),
            (-300, &[0xd1, 0xfe, 0xd4]),
            (1 << 40, &[0xcf, 0, 0, 1, 0, 0, 0, 0, 0]),
            (i64::MIN, &[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]),
        ];
        for (v, want) in cases {
            assert_eq!(packed(&Value::Int(v)), want, "{v}");
        }
    }

    #[test]
    fn strings_and_blobs_carry_their_particle_type() {
        assert_eq!(packed(&Value::from("ab")), [0xa3, 3, b'a', b'b']);
        assert_eq!(packed(&Value::Blob(vec![9])), [0xa2, 4, 9]);
        let long = "x".repeat(40);
        assert_eq!(&packed(&Value::from(long.as_str()))[..3], [0xd9, 41, 3]);
    }

    #[test]
    fn a_key_ordered_map_opens_with_its_order_entry() {
        let m = std::collections::BTreeMap::from([(Value::Int(1), Value::Int(2))]);
        assert_eq!(packed(&Value::SortedMap(m)), [0x82, 0xc7, 0, 1, 0xc0, 1, 2]);
    }

    #[test]
    fn a_float_key_is_refused() {
        let m = std::collections::HashMap::from([(Value::from(1.5), Value::Int(2))]);
        assert!(value(&mut Vec::new(), &Value::HashMap(m)).is_err());
    }
}
