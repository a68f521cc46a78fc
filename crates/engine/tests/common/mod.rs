//! Helpers: build values and op payloads exactly as the client encodes them.
#![allow(dead_code)]

pub mod rec;

use bytes::Bytes;
use engine::pack::{decode, encode, encode_into, from_particle};
use engine::value::{List, Map, Value};
use engine::Particle;

/// A deadline no test call reaches.
pub fn later() -> std::time::Instant {
    std::time::Instant::now() + std::time::Duration::from_secs(60)
}

pub fn i(v: i64) -> Value {
    Value::Int(v)
}
pub fn f(v: f64) -> Value {
    Value::Float(v)
}
pub fn s(v: &str) -> Value {
    Value::Str(v.into())
}
pub fn b(v: bool) -> Value {
    Value::Bool(v)
}
pub fn nil() -> Value {
    Value::Nil
}
pub fn l(items: Vec<Value>) -> Value {
    Value::List(List { flags: 0, items })
}
pub fn m(entries: Vec<(Value, Value)>) -> Value {
    Value::Map(Map::new(0, entries))
}
pub fn km(entries: Vec<(Value, Value)>) -> Value {
    Value::Map(Map::new(1, entries))
}

/// `[code, args...]` as the client's `pack_cdt_op` writes it.
pub fn op(code: i64, args: Vec<Value>) -> Vec<u8> {
    let mut out = Vec::new();
    rmp::encode::write_array_len(&mut out, args.len() as u32 + 1).unwrap();
    rmp::encode::write_sint(&mut out, code).unwrap();
    for a in &args {
        encode_into(a, &mut out);
    }
    out
}

/// `[0xff, [ctx...], [code, args...]]` with ctx pairs `(id, value)`.
pub fn op_ctx(ctx: Vec<(i64, Value)>, code: i64, args: Vec<Value>) -> Vec<u8> {
    let mut out = Vec::new();
    rmp::encode::write_array_len(&mut out, 3).unwrap();
    rmp::encode::write_sint(&mut out, 0xff).unwrap();
    rmp::encode::write_array_len(&mut out, ctx.len() as u32 * 2).unwrap();
    for (id, v) in &ctx {
        rmp::encode::write_sint(&mut out, *id).unwrap();
        encode_into(v, &mut out);
    }
    out.extend(op(code, args));
    out
}

pub fn list_p(items: Vec<Value>) -> Particle {
    Particle {
        ptype: 20,
        data: Bytes::from(encode(&l(items))),
    }
}
pub fn map_p(v: Value) -> Particle {
    Particle {
        ptype: 19,
        data: Bytes::from(encode(&v)),
    }
}
pub fn int_p(v: i64) -> Particle {
    Particle {
        ptype: 1,
        data: Bytes::from(v.to_be_bytes().to_vec()),
    }
}
pub fn str_p(v: &str) -> Particle {
    Particle {
        ptype: 3,
        data: Bytes::from(v.as_bytes().to_vec()),
    }
}
pub fn dec(p: &Particle) -> Value {
    from_particle(p).unwrap()
}
pub fn dec_mp(b: &[u8]) -> Value {
    decode(b).unwrap()
}
