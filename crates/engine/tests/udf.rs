//! Record UDFs against an in-memory `RecordMut`.

mod common;
use common::rec::Rec;
use common::*;
use std::time::{Duration, Instant};

use engine::udf::{Registry, TIMEOUT_MESSAGE};
use engine::RecordView;

const MODULE: &str = r#"
local function helper(x) return x * 2 end

function add(rec, bin, n)
  rec[bin] = (rec[bin] or 0) + n
  if aerospike:exists(rec) then aerospike:update(rec) else aerospike:create(rec) end
  return rec[bin]
end

function fail(rec, msg)
  error(msg)
end

function stage_only(rec)
  rec['x'] = 5
  return 'staged'
end

function build(rec)
  local l = list{1, 2}
  list.append(l, helper(3))
  local m = map()
  m['k'] = l
  m['gen'] = record.gen(rec)
  return m
end

function sum_list(rec, l)
  local s = 0
  for v in list.iterator(l) do s = s + v end
  return s
end

function drop(rec)
  record.set_ttl(rec, 100)
  aerospike:remove(rec)
  return nil
end

function spin(rec)
  while true do end
end

function count_to(rec, n)
  local i = 0
  while i < n do i = i + 1 end
  return i
end
"#;

fn reg() -> Registry {
    let r = Registry::new();
    r.register("m.lua", MODULE.as_bytes()).unwrap();
    r
}

fn args(v: Vec<engine::value::Value>) -> Vec<u8> {
    engine::pack::encode(&l(v))
}

#[test]
fn register_list_get_remove() {
    let r = reg();
    let listed = r.list();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].0, "m.lua");
    assert_eq!(listed[0].1.len(), 40);
    assert_eq!(r.get("m.lua").unwrap(), MODULE.as_bytes());
    assert!(r.register("bad.lua", b"function (").is_err());
    assert!(r.remove("m.lua"));
    assert!(!r.remove("m.lua"));
}

#[test]
fn apply_creates_and_updates() {
    let r = reg();
    let mut rec = Rec::default();
    let out = r
        .apply("m", "add", &args(vec![s("n"), i(5)]), &mut rec, later())
        .unwrap();
    assert_eq!(out.value, Some(int_p(5)));
    assert!(rec.created && rec.exists);
    assert_eq!(rec.bin("n"), Some(&int_p(5)));
    let out = r
        .apply("m", "add", &args(vec![s("n"), i(2)]), &mut rec, later())
        .unwrap();
    assert_eq!(out.value, Some(int_p(7)));
    assert!(rec.updated);
}

#[test]
fn staged_writes_need_update() {
    let r = reg();
    let mut rec = Rec::default();
    r.apply("m", "stage_only", &args(vec![]), &mut rec, later())
        .unwrap();
    assert!(rec.bins.is_empty() && !rec.created && !rec.updated);
}

#[test]
fn errors_are_udf_bad_response() {
    let r = reg();
    let mut rec = Rec::default();
    let e = r
        .apply("m", "fail", &args(vec![s("boom")]), &mut rec, later())
        .unwrap_err();
    assert_eq!(e.code, 100);
    assert!(
        e.message.contains("m.lua:") && e.message.ends_with("boom"),
        "{}",
        e.message
    );
    assert_eq!(
        r.apply("nope", "f", &args(vec![]), &mut rec, later())
            .unwrap_err()
            .code,
        100
    );
    assert_eq!(
        r.apply("m", "nope", &args(vec![]), &mut rec, later())
            .unwrap_err()
            .code,
        100
    );
}

#[test]
fn lua_stops_at_the_deadline_with_the_servers_message() {
    let r = reg();
    let mut rec = Rec::default();
    let soon = Instant::now() + Duration::from_millis(50);
    let e = r
        .apply("m", "spin", &args(vec![]), &mut rec, soon)
        .unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (100, TIMEOUT_MESSAGE));
    // A deadline, not an instruction count: short work past its deadline stops too.
    let past = Instant::now();
    let e = r
        .apply("m", "count_to", &args(vec![i(100_000)]), &mut rec, past)
        .unwrap_err();
    assert_eq!(e.message, TIMEOUT_MESSAGE);
    let out = r.apply("m", "count_to", &args(vec![i(100_000)]), &mut rec, later());
    assert_eq!(out.unwrap().value, Some(int_p(100_000)));
}

#[test]
fn lists_maps_and_record_api() {
    let r = reg();
    let mut rec = Rec::default();
    let out = r
        .apply("m", "build", &args(vec![]), &mut rec, later())
        .unwrap()
        .value
        .unwrap();
    assert_eq!(
        dec(&out),
        m(vec![(s("k"), l(vec![i(1), i(2), i(6)])), (s("gen"), i(4))])
    );
    let out = r
        .apply(
            "m",
            "sum_list",
            &args(vec![l(vec![i(1), i(2), i(3)])]),
            &mut rec,
            later(),
        )
        .unwrap();
    assert_eq!(out.value, Some(int_p(6)));
    rec.exists = true;
    let out = r
        .apply("m", "drop", &args(vec![]), &mut rec, later())
        .unwrap();
    assert_eq!(out.value, None);
    assert!(rec.removed && rec.ttl == Some(100));
}
