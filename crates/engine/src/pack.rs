//! msgpack <-> [`Value`] with Aerospike's conventions, and particle <-> [`Value`].
//!
//! Strings/blobs/GeoJSON inside msgpack are str/bin with a leading particle-type byte; ordered
//! lists and maps start with an ext header element (ext type = order flags, no data, map value
//! nil); wildcard / infinity are fixext1 type 0xff with data 0x00 / 0x01.

use bytes::Bytes;
use rmpv::Value as Mp;

use crate::particle_type as pt;
use crate::result::PARAMETER_ERROR;
use crate::value::{List, Map, Value};
use crate::{Particle, ResultCode};

/// Deepest nesting of lists and maps accepted in a request (deeper values are a parameter
/// error): every later pass over a value (conversion, CDT ops, expressions, Lua, drop) recurses.
pub const MAX_NESTING: usize = 256;
/// The `max_depth` that lets rmpv read [`MAX_NESTING`] levels: it counts a list or map twice
/// (the value, then its items) and the innermost scalar once.
pub const RMPV_MAX_DEPTH: usize = 2 * MAX_NESTING + 1;

/// Reads one msgpack value from the front of `buf`, advancing it.
pub fn read_mp(buf: &mut &[u8]) -> Result<Mp, ResultCode> {
    rmpv::decode::read_value_with_max_depth(buf, RMPV_MAX_DEPTH).map_err(|_| PARAMETER_ERROR)
}

/// Decodes a complete msgpack buffer into a [`Value`].
pub fn decode(mut buf: &[u8]) -> Result<Value, ResultCode> {
    let mp = read_mp(&mut buf)?;
    from_mp(mp)
}

fn typed_bytes(b: Vec<u8>) -> Value {
    match b.split_first() {
        Some((&pt::STRING, rest)) => Value::Str(String::from_utf8_lossy(rest).into_owned()),
        Some((&pt::GEOJSON, rest)) => Value::GeoJson(String::from_utf8_lossy(rest).into_owned()),
        Some((&t, rest)) => Value::Bytes(t, rest.to_vec()),
        None => Value::Bytes(pt::BLOB, Vec::new()),
    }
}

/// Converts an rmpv value into a [`Value`].
pub fn from_mp(mp: Mp) -> Result<Value, ResultCode> {
    from_mp_noting(mp, &mut false)
}

/// [`from_mp`], setting `reordered` when a map arrived out of key order (or with a key twice),
/// so that its encoding changes.
pub(crate) fn from_mp_noting(mp: Mp, reordered: &mut bool) -> Result<Value, ResultCode> {
    let conv = |mp, reordered: &mut bool| from_mp_noting(mp, reordered);
    Ok(match mp {
        Mp::Nil => Value::Nil,
        Mp::Boolean(b) => Value::Bool(b),
        Mp::Integer(i) => Value::Int(
            i.as_i64()
                .or_else(|| i.as_u64().map(|u| u as i64))
                .unwrap_or(0),
        ),
        Mp::F32(f) => Value::Float(f64::from(f)),
        Mp::F64(f) => Value::Float(f),
        Mp::String(s) => typed_bytes(s.into_bytes()),
        Mp::Binary(b) => typed_bytes(b),
        Mp::Ext(-1, d) if d.first() == Some(&1) => Value::Inf,
        Mp::Ext(-1, _) => Value::Wildcard,
        Mp::Ext(..) => return Err(PARAMETER_ERROR),
        Mp::Array(items) => {
            let mut it = items.into_iter().peekable();
            let mut flags = 0;
            if let Some(Mp::Ext(t, d)) = it.peek() {
                if d.is_empty() && *t >= 0 {
                    flags = *t as u8;
                    it.next();
                }
            }
            let items = it
                .map(|x| conv(x, reordered))
                .collect::<Result<Vec<_>, _>>()?;
            Value::List(List { flags, items })
        }
        Mp::Map(entries) => {
            let mut flags = 0;
            let mut out = Vec::with_capacity(entries.len());
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if let (0, Mp::Ext(t, d)) = (i, &k) {
                    if d.is_empty() && *t >= 0 {
                        flags = *t as u8;
                        continue;
                    }
                }
                out.push((conv(k, reordered)?, conv(v, reordered)?));
            }
            // Every map is kept in key order, whatever order it arrived in.
            *reordered |= !out.windows(2).all(|w| w[0].0 < w[1].0);
            Value::Map(Map::new(flags, out))
        }
    })
}

fn write_typed(out: &mut Vec<u8>, t: u8, data: &[u8], as_str: bool) {
    let len = data.len() as u32 + 1;
    // Writes to a Vec cannot fail.
    let _ = if as_str {
        rmp::encode::write_str_len(out, len)
    } else {
        rmp::encode::write_bin_len(out, len)
    };
    out.push(t);
    out.extend_from_slice(data);
}

fn write_ext_header(out: &mut Vec<u8>, flags: u8) {
    out.extend_from_slice(&[0xc7, 0x00, flags]);
}

/// Appends the msgpack encoding of `v` to `out`.
pub fn encode_into(v: &Value, out: &mut Vec<u8>) {
    use rmp::encode as e;
    match v {
        Value::Nil => e::write_nil(out).unwrap_or(()),
        Value::Bool(b) => e::write_bool(out, *b).unwrap_or(()),
        Value::Int(i) => {
            let _ = e::write_sint(out, *i);
        }
        Value::Float(f) => {
            let _ = e::write_f64(out, *f);
        }
        Value::Str(s) => write_typed(out, pt::STRING, s.as_bytes(), true),
        Value::GeoJson(s) => write_typed(out, pt::GEOJSON, s.as_bytes(), true),
        Value::Bytes(t, b) => write_typed(out, *t, b, false),
        Value::Inf => out.extend_from_slice(&[0xd4, 0xff, 0x01]),
        Value::Wildcard => out.extend_from_slice(&[0xd4, 0xff, 0x00]),
        Value::List(l) => {
            let hdr = l.flags != 0;
            let _ = e::write_array_len(out, (l.items.len() + usize::from(hdr)) as u32);
            if hdr {
                write_ext_header(out, l.flags);
            }
            for it in &l.items {
                encode_into(it, out);
            }
        }
        Value::Map(m) => {
            let hdr = m.flags != 0;
            let _ = e::write_map_len(out, (m.entries.len() + usize::from(hdr)) as u32);
            if hdr {
                write_ext_header(out, m.flags);
                out.push(0xc0);
            }
            for (k, v) in &m.entries {
                encode_into(k, out);
                encode_into(v, out);
            }
        }
    }
}

/// msgpack encoding of `v`.
pub fn encode(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(v, &mut out);
    out
}

/// Decodes a stored bin particle.
pub fn from_particle(p: &Particle) -> Result<Value, ResultCode> {
    let d = &p.data[..];
    Ok(match p.ptype {
        pt::NULL => Value::Nil,
        pt::INTEGER => Value::Int(i64::from_be_bytes(be8(d)?)),
        pt::FLOAT => Value::Float(f64::from_be_bytes(be8(d)?)),
        pt::STRING => Value::Str(String::from_utf8_lossy(d).into_owned()),
        pt::BOOL => Value::Bool(d.first().is_some_and(|b| *b != 0)),
        pt::GEOJSON => Value::GeoJson(geo_text(d)?),
        pt::LIST | pt::MAP => decode(d)?,
        t => Value::Bytes(t, d.to_vec()),
    })
}

fn be8(d: &[u8]) -> Result<[u8; 8], ResultCode> {
    match d.len() {
        8 => d.try_into().map_err(|_| PARAMETER_ERROR),
        // Integers may arrive shorter on the wire (1/2/4 bytes): sign-extend.
        1..=7 => {
            let fill = if d[0] & 0x80 != 0 { 0xff } else { 0 };
            let mut b = [fill; 8];
            b[8 - d.len()..].copy_from_slice(d);
            Ok(b)
        }
        _ => Err(PARAMETER_ERROR),
    }
}

/// GeoJSON particle: flags (1), cell count (u16 BE), cells (8 each), then the JSON text.
fn geo_text(d: &[u8]) -> Result<String, ResultCode> {
    let n = match d {
        [_, a, b, ..] => usize::from(u16::from_be_bytes([*a, *b])),
        _ => return Err(PARAMETER_ERROR),
    };
    let text = d.get(3 + n * 8..).ok_or(PARAMETER_ERROR)?;
    Ok(String::from_utf8_lossy(text).into_owned())
}

/// Encodes a value as a bin particle (None for nil / markers: no bin).
pub fn to_particle(v: &Value) -> Option<Particle> {
    let (ptype, data): (u8, Vec<u8>) = match v {
        Value::Nil | Value::Inf | Value::Wildcard => return None,
        Value::Int(i) => (pt::INTEGER, i.to_be_bytes().to_vec()),
        Value::Float(f) => (pt::FLOAT, f.to_be_bytes().to_vec()),
        Value::Str(s) => (pt::STRING, s.as_bytes().to_vec()),
        Value::Bool(b) => (pt::BOOL, vec![u8::from(*b)]),
        Value::GeoJson(s) => {
            let mut d = vec![0, 0, 0];
            d.extend_from_slice(s.as_bytes());
            (pt::GEOJSON, d)
        }
        Value::Bytes(t, b) => (*t, b.clone()),
        Value::List(_) => (pt::LIST, encode(v)),
        Value::Map(_) => (pt::MAP, encode(v)),
    };
    Some(Particle {
        ptype,
        data: Bytes::from(data),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_ordered_containers() {
        let m = Value::Map(Map::new(
            1,
            vec![
                (Value::Str("b".into()), Value::Int(2)),
                (Value::Str("a".into()), Value::Int(1)),
            ],
        ));
        let bytes = encode(&m);
        assert_eq!(&bytes[..5], &[0x83, 0xc7, 0x00, 0x01, 0xc0]);
        assert_eq!(&bytes[5..8], &[0xa2, 0x03, b'a']);
        let back = decode(&bytes).unwrap();
        match back {
            Value::Map(mm) => assert!(mm.ordered() && mm.entries.len() == 2),
            _ => panic!("not a map"),
        }
        let l = Value::List(List::new(1, vec![Value::Int(3), Value::Int(1)]));
        assert_eq!(encode(&l), vec![0x93, 0xc7, 0x00, 0x01, 0x01, 0x03]);
    }

    #[test]
    fn nesting_is_bounded_at_max_levels() {
        let nested = |levels: usize| {
            let mut v = vec![0x91; levels];
            v.push(0x01);
            v
        };
        assert!(decode(&nested(MAX_NESTING)).is_ok());
        assert_eq!(decode(&nested(MAX_NESTING + 1)), Err(PARAMETER_ERROR));
        assert_eq!(decode(&nested(100_000)), Err(PARAMETER_ERROR));
    }

    #[test]
    fn particles() {
        let p = Particle {
            ptype: pt::INTEGER,
            data: Bytes::from_static(&[0xff, 0xfe]),
        };
        assert_eq!(from_particle(&p).unwrap(), Value::Int(-2));
        let g = Particle {
            ptype: pt::GEOJSON,
            data: Bytes::from_static(b"\0\0\0{}"),
        };
        assert!(matches!(from_particle(&g).unwrap(), Value::GeoJson(s) if s == "{}"));
        assert!(decode(&[0xd4, 0xff, 0x01]).unwrap() == Value::Inf);
        assert!(decode(&[0x92, 0x01]).is_err());
    }
}
