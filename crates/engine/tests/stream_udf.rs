//! Stream UDFs: the server half (up to and including the first reduce) over records, the
//! client half (from that reduce on) over the nodes' partial results.

mod common;
use common::rec::Rec;
use common::*;
use engine::udf::{reduce_partials, Registry};
use engine::value::Value;

const CODE: &[u8] = br#"
local function add(a, b) return a + b end
function sum_then_scale(s)
  return s:map(function(r) return r.n end):reduce(add):map(function(x) return x * 10 end)
end
function odd(s)
  return s:filter(function(r) return r.n % 2 == 1 end):map(function(r) return r.n end)
end
function total(s, init)
  return s:aggregate(init, function(acc, r) return acc + r.n end)
end
function gens(s)
  return s:map(function(r) return record.gen(r) end):reduce(add)
end
function nil_at(s, k)
  return s:map(function(r) if r.n == k then return nil end return r.n end)
end
function groups(s)
  return s:aggregate(map(), function(m, r) m[r.n % 2] = (m[r.n % 2] or 0) + 1 return m end)
end
"#;

fn registry() -> Registry {
    let r = Registry::new();
    r.register("m.lua", CODE).unwrap();
    r
}

fn records(ns: &[i64]) -> Vec<Rec> {
    ns.iter()
        .map(|&n| Rec {
            bins: vec![("n".to_string(), int_p(n))],
            exists: true,
            ..Rec::default()
        })
        .collect()
}

fn server(function: &str, args: &[u8], ns: &[i64]) -> Vec<Value> {
    partitions(function, args, &[ns])
}

/// The server half run once per partition's records.
fn partitions(function: &str, args: &[u8], parts: &[&[i64]]) -> Vec<Value> {
    let mut out = Vec::new();
    registry()
        .aggregate(
            "m",
            function,
            args,
            parts.iter().map(|ns| records(ns)),
            &mut |v| {
                out.push(v);
                true
            },
            later(),
        )
        .unwrap();
    out
}

fn client(function: &str, args: &[Value], partials: Vec<Value>) -> Vec<Value> {
    reduce_partials("m", CODE, function, args, partials, later()).unwrap()
}

#[test]
fn the_server_stops_after_the_first_reduce_and_the_client_goes_on_from_it() {
    assert_eq!(server("sum_then_scale", &[], &[1, 2, 3]), vec![i(6)]);
    assert_eq!(
        client("sum_then_scale", &[], vec![i(6), i(4)]),
        vec![i(100)]
    );
}

#[test]
fn without_a_reduce_the_server_streams_every_value_and_the_client_passes_them_on() {
    assert_eq!(server("odd", &[], &[1, 2, 3, 5]), vec![i(1), i(3), i(5)]);
    assert_eq!(client("odd", &[], vec![i(1), i(3)]), vec![i(1), i(3)]);
}

#[test]
fn aggregate_starts_from_its_initial_value_and_no_records_send_nothing() {
    let args = engine::pack::encode(&l(vec![i(100)]));
    assert_eq!(server("total", &args, &[1, 2]), vec![i(103)]);
    assert_eq!(server("total", &args, &[]), Vec::<Value>::new());
}

#[test]
fn reduce_over_nothing_gives_nothing() {
    assert_eq!(server("sum_then_scale", &[], &[]), Vec::<Value>::new());
    assert_eq!(client("sum_then_scale", &[], vec![]), Vec::<Value>::new());
}

#[test]
fn records_in_a_stream_have_their_metadata() {
    assert_eq!(server("gens", &[], &[1, 1]), vec![i(8)]);
}

#[test]
fn a_lua_error_is_a_udf_failure_with_its_message() {
    let r = Registry::new();
    r.register(
        "bad.lua",
        b"function f(s) return s:map(function(r) error('kaboom') end) end",
    )
    .unwrap();
    let err = r
        .aggregate(
            "bad",
            "f",
            &[],
            std::iter::once(records(&[1])),
            &mut |_| true,
            later(),
        )
        .unwrap_err();
    assert_eq!(err.code, engine::result::UDF_BAD_RESPONSE);
    assert!(err.message.contains("kaboom"), "{}", err.message);
}

#[test]
fn outputs_are_emitted_as_they_come_and_a_refusal_stops_the_stream() {
    let r = registry();
    let mut seen = 0;
    let err = r
        .aggregate(
            "m",
            "odd",
            &[],
            std::iter::once(records(&[1, 3, 5, 7])),
            &mut |_| {
                seen += 1;
                seen < 2
            },
            later(),
        )
        .unwrap_err();
    assert_eq!(seen, 2);
    assert!(err.message.contains("gone"), "{}", err.message);
}

/// As a real server: each partition's records are a stream of their own.
#[test]
fn each_partition_is_a_stream_of_its_own() {
    // `nil` from a step ends only its partition's stream
    assert_eq!(
        partitions("nil_at", b"\x91\x02", &[&[1, 2, 3], &[4, 5]]),
        vec![i(1), i(4), i(5)]
    );
    // an aggregate without a reduce sends one value per partition
    assert_eq!(
        partitions("total", b"\x91\x00", &[&[1, 2], &[3], &[4]]),
        vec![i(3), i(3), i(4)]
    );
    // no records, no run: not even an aggregate's initial value
    assert_eq!(partitions("groups", b"\x90", &[]), Vec::<Value>::new());
    assert_eq!(partitions("groups", b"\x90", &[&[]]), Vec::<Value>::new());
}

/// As a real server: a numeric accumulator of 1000 or more is sent as it is, and the
/// aggregation goes on from the initial value.
#[test]
fn a_numeric_aggregate_of_1000_or_more_is_sent_early() {
    assert_eq!(
        server("total", b"\x91\x00", &[600, 600, 600, 5]),
        vec![i(1200), i(605)]
    );
}
