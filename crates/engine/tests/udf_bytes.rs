//! Blobs in record and stream UDFs: Lua sees `bytes` values that keep the particle type, and
//! they go back as blobs (bins keep their type, results are plain blobs).

mod common;
use bytes::Bytes;
use common::rec::Rec;
use common::*;
use engine::udf::{reduce_partials, Registry};
use engine::value::Value;
use engine::{Particle, RecordView};

const MODULE: &str = r#"
function echo(rec) return rec.b end
function kind(rec) return type(rec.b) .. ":" .. type(rec.s) end
function type_of(rec) return bytes.get_type(rec.b) end
function rewrite(rec) rec.b = rec.b aerospike:update(rec) return 0 end
function patch(rec)
  local b = rec.b
  b[1] = 0x41
  bytes.append_byte(b, 0xff)
  rec.b = b
  aerospike:update(rec)
  return b
end
function retype(rec, t)
  local b = rec.b
  bytes.set_type(b, t)
  rec.b = b
  aerospike:update(rec)
  return 0
end
function nest(rec)
  local b = rec.b
  rec.l = list{b, "s"}
  aerospike:update(rec)
  return map{k = b}
end
function arg_size(rec, b) return bytes.size(b) .. ":" .. bytes.get_type(b) end
function digest(rec) local d = record.digest(rec) return bytes.size(d) .. ":" .. type(d) end
"#;

fn reg() -> Registry {
    let r = Registry::new();
    r.register("m.lua", MODULE.as_bytes()).unwrap();
    r
}

fn blob_p(ptype: u8, data: &[u8]) -> Particle {
    Particle {
        ptype,
        data: Bytes::from(data.to_vec()),
    }
}

/// A record with blob bin `b` of particle type `ptype` and string bin `s`.
fn rec(ptype: u8, data: &[u8]) -> Rec {
    Rec {
        bins: vec![
            ("b".to_string(), blob_p(ptype, data)),
            ("s".to_string(), str_p("text")),
        ],
        exists: true,
        ..Rec::default()
    }
}

fn call(r: &Registry, f: &str, args: Vec<Value>, rec: &mut Rec) -> Option<Particle> {
    r.apply("m", f, &engine::pack::encode(&l(args)), rec, later())
        .unwrap()
        .value
}

const NOT_UTF8: &[u8] = &[0xff, 0xfe, 0x00, 0x80];

#[test]
fn a_blob_bin_is_bytes_and_a_string_bin_a_string() {
    let r = reg();
    let mut rc = rec(4, NOT_UTF8);
    assert_eq!(
        call(&r, "kind", vec![], &mut rc),
        Some(str_p("userdata:string"))
    );
    assert_eq!(call(&r, "echo", vec![], &mut rc), Some(blob_p(4, NOT_UTF8)));
}

#[test]
fn a_blob_written_back_keeps_its_bytes_and_type() {
    let r = reg();
    for ptype in [4u8, 7, 9, 18] {
        let mut rc = rec(ptype, NOT_UTF8);
        assert_eq!(
            call(&r, "type_of", vec![], &mut rc),
            Some(int_p(i64::from(ptype)))
        );
        call(&r, "rewrite", vec![], &mut rc);
        assert_eq!(rc.bin("b"), Some(&blob_p(ptype, NOT_UTF8)), "type {ptype}");
    }
}

#[test]
fn a_modified_blob_is_written_with_its_type_and_returned_as_a_plain_blob() {
    let r = reg();
    let mut rc = rec(7, NOT_UTF8);
    let out = call(&r, "patch", vec![], &mut rc);
    let want = [0x41, 0xfe, 0x00, 0x80, 0xff];
    assert_eq!(rc.bin("b"), Some(&blob_p(7, &want)));
    assert_eq!(out, Some(blob_p(4, &want)));
}

#[test]
fn the_type_decides_the_particle_written() {
    let r = reg();
    let mut rc = rec(4, b"abc");
    call(&r, "retype", vec![i(3)], &mut rc);
    assert_eq!(rc.bin("b"), Some(&str_p("abc")), "3 makes a string");
    for (ty, ptype) in [(9, 9u8), (18, 18), (5, 4), (99, 4), (-1, 4)] {
        let mut rc = rec(4, b"abc");
        call(&r, "retype", vec![i(ty)], &mut rc);
        assert_eq!(rc.bin("b"), Some(&blob_p(ptype, b"abc")), "type {ty}");
    }
}

fn blob_in(v: &Value) -> (u8, Vec<u8>) {
    match v {
        Value::Bytes(t, b) => (*t, b.clone()),
        other => panic!("not bytes: {other:?}"),
    }
}

#[test]
fn bytes_inside_lists_and_maps_keep_their_type() {
    let r = reg();
    let mut rc = rec(9, NOT_UTF8);
    let out = call(&r, "nest", vec![], &mut rc).unwrap();
    let Value::Map(m) = dec(&out) else {
        panic!("not a map")
    };
    assert_eq!(blob_in(&m.entries[0].1), (9, NOT_UTF8.to_vec()));
    let Value::List(l) = dec(rc.bin("l").unwrap()) else {
        panic!("not a list")
    };
    assert_eq!(blob_in(&l.items[0]), (9, NOT_UTF8.to_vec()));
    assert!(matches!(&l.items[1], Value::Str(s) if s == "s"));
}

#[test]
fn blob_arguments_and_the_digest_are_bytes() {
    let r = reg();
    let mut rc = rec(4, b"");
    let arg = Value::Bytes(4, vec![1, 2, 3]);
    assert_eq!(call(&r, "arg_size", vec![arg], &mut rc), Some(str_p("3:4")));
    assert_eq!(
        call(&r, "digest", vec![], &mut rc),
        Some(str_p("20:userdata"))
    );
}

const STREAM: &[u8] = br#"
function blobs(s)
  return s:map(function(r)
    bytes.append_byte(r.b, 0xfe)
    return list{r.b, bytes.get_type(r.b)}
  end)
end
function joined(s)
  return s:map(function(r) return r.b end):reduce(function(a, b)
    local out = bytes(0)
    bytes.append_bytes(out, a, bytes.size(a))
    bytes.append_bytes(out, b, bytes.size(b))
    return out
  end)
end
"#;

#[test]
fn stream_records_see_bytes_and_outputs_carry_blobs() {
    let r = Registry::new();
    r.register("m.lua", STREAM).unwrap();
    let mut out = Vec::new();
    let recs = vec![rec(7, &[0xff]), rec(7, &[0x00])];
    let mut emit = |v| {
        out.push(v);
        true
    };
    r.aggregate("m", "blobs", &[], std::iter::once(recs), &mut emit, later())
        .unwrap();
    assert_eq!(out.len(), 2);
    let Value::List(first) = &out[0] else {
        panic!("not a list")
    };
    assert_eq!(blob_in(&first.items[0]), (7, vec![0xff, 0xfe]));
    assert_eq!(first.items[1], i(7));

    let partials = vec![Value::Bytes(4, vec![0xff]), Value::Bytes(4, vec![0x80])];
    let reduced = reduce_partials("m", STREAM, "joined", &[], partials, later()).unwrap();
    assert_eq!(reduced.len(), 1);
    assert_eq!(blob_in(&reduced[0]), (4, vec![0xff, 0x80]));
}
