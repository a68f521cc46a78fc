//! Filter expressions encoded by the `aerospike` crate's own builders.

mod common;
use aerospike::expressions as x;
use aerospike::expressions::lists as xl;
use aerospike::expressions::maps as xm;
use aerospike::expressions::ExpType;
use aerospike::{ListReturnType, MapReturnType, Value as AV};
use base64::Engine;
use bytes::Bytes;
use common::*;
use engine::{Particle, RecordView};

struct Rec {
    bins: Vec<(&'static str, Particle)>,
    key: Option<Particle>,
    digest: [u8; 20],
}

impl RecordView for Rec {
    fn bin(&self, name: &str) -> Option<&Particle> {
        self.bins.iter().find(|b| b.0 == name).map(|b| &b.1)
    }
    fn bin_names(&self) -> Vec<&str> {
        self.bins.iter().map(|b| b.0).collect()
    }
    fn exists(&self) -> bool {
        true
    }
    fn set_name(&self) -> &str {
        "users"
    }
    fn user_key(&self) -> Option<&Particle> {
        self.key.as_ref()
    }
    fn digest(&self) -> &[u8; 20] {
        &self.digest
    }
    fn generation(&self) -> u32 {
        3
    }
    fn void_time_ns(&self) -> u64 {
        0
    }
    fn last_update_ns(&self) -> u64 {
        1_700_000_000_000_000_000
    }
    fn size_bytes(&self) -> u64 {
        120
    }
}

fn rec() -> Rec {
    let geo = Particle {
        ptype: 23,
        data: Bytes::from(b"\0\0\0{\"type\":\"Point\",\"coordinates\":[5,5]}".to_vec()),
    };
    Rec {
        bins: vec![
            ("age", int_p(30)),
            ("name", str_p("Ann Lee")),
            (
                "score",
                Particle {
                    ptype: 2,
                    data: Bytes::from(2.5f64.to_be_bytes().to_vec()),
                },
            ),
            ("tags", list_p(vec![s("a"), s("b"), s("c")])),
            ("m", map_p(m(vec![(s("x"), i(1)), (s("y"), i(2))]))),
            ("loc", geo),
        ],
        key: Some(str_p("u1")),
        digest: [7; 20],
    }
}

fn bytes(e: &x::Expression) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(e.base64().unwrap())
        .unwrap()
}

fn yes(e: x::Expression) -> bool {
    engine::exp::matches(&bytes(&e), &rec()).unwrap()
}

fn val(e: x::Expression) -> engine::value::Value {
    engine::exp::eval_value(&bytes(&e), &rec())
        .unwrap()
        .expect("known value")
}

#[test]
fn comparisons_and_logic() {
    assert!(yes(x::gt(x::int_bin("age"), x::int_val(25))));
    assert!(!yes(x::lt(x::int_bin("age"), x::int_val(25))));
    assert!(yes(x::eq(x::string_bin("name"), x::string_val("Ann Lee"))));
    assert!(yes(x::and(vec![
        x::ge(x::int_bin("age"), x::int_val(30)),
        x::not(x::eq(x::int_bin("age"), x::int_val(1)))
    ])));
    assert!(yes(x::or(vec![
        x::eq(x::int_bin("nope"), x::int_val(1)),
        x::bin_exists("age")
    ])));
    assert!(!yes(x::eq(x::int_bin("nope"), x::int_val(1))));
    assert!(yes(x::xor(vec![x::bool_val(true), x::bool_val(false)])));
    assert!(yes(x::eq(x::bin_type("tags"), x::int_val(20))));
    // reading an int bin as a string is unknown -> filtered out
    assert!(!yes(x::eq(x::string_bin("age"), x::string_val("30"))));
}

#[test]
fn arithmetic_and_bits() {
    assert_eq!(
        val(x::num_add(vec![x::int_bin("age"), x::int_val(12)])),
        i(42)
    );
    assert_eq!(
        val(x::num_mul(vec![x::float_bin("score"), x::float_val(2.0)])),
        f(5.0)
    );
    assert_eq!(val(x::num_mod(x::int_val(17), x::int_val(5))), i(2));
    assert_eq!(
        val(x::num_pow(x::float_val(2.0), x::float_val(10.0))),
        f(1024.0)
    );
    assert_eq!(val(x::to_int(x::float_val(2.9))), i(2));
    assert_eq!(val(x::min(vec![x::int_val(4), x::int_val(-1)])), i(-1));
    assert_eq!(val(x::int_and(vec![x::int_val(6), x::int_val(3)])), i(2));
    assert_eq!(val(x::int_lshift(x::int_val(1), x::int_val(4))), i(16));
    assert_eq!(val(x::int_count(x::int_val(255))), i(8));
    assert_eq!(val(x::int_lscan(x::int_val(1), x::bool_val(true))), i(63));
    assert!(engine::exp::eval_value(
        &bytes(&x::num_div(vec![x::int_val(1), x::int_val(0)])),
        &rec()
    )
    .unwrap()
    .is_none());
}

#[test]
fn cond_let_and_metadata() {
    let e = x::cond(vec![
        x::lt(x::int_bin("age"), x::int_val(18)),
        x::string_val("minor"),
        x::string_val("adult"),
    ]);
    assert_eq!(val(e), s("adult"));
    // an unknown condition (a missing bin, a division by zero) makes the whole cond unknown
    for unknown in [
        x::gt(x::int_bin("missing"), x::int_val(1)),
        x::gt(
            x::num_div(vec![x::int_val(5), x::int_val(0)]),
            x::int_val(1),
        ),
    ] {
        let e = x::cond(vec![unknown, x::int_val(1), x::int_val(2)]);
        assert_eq!(engine::exp::eval_value(&bytes(&e), &rec()).unwrap(), None);
    }
    let e = x::exp_let(vec![
        x::def("a", x::int_bin("age")),
        x::num_add(vec![x::var("a"), x::var("a")]),
    ]);
    assert_eq!(val(e), i(60));
    assert_eq!(val(x::set_name()), s("users"));
    assert_eq!(val(x::ttl()), i(-1));
    assert!(yes(x::key_exists()));
    assert_eq!(val(x::key(ExpType::String)), s("u1"));
    assert_eq!(val(x::record_size()), i(120));
    assert_eq!(
        val(x::digest_modulo(3)),
        i(i64::from(u32::from_le_bytes([7; 4])) % 3)
    );
}

#[test]
fn regex_and_geo() {
    assert!(yes(x::regex_compare(
        "^ann",
        aerospike::RegexFlags::ICASE,
        x::string_bin("name")
    )));
    assert!(!yes(x::regex_compare(
        "^ann",
        aerospike::RegexFlags::NONE,
        x::string_bin("name")
    )));
    let poly = r#"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}"#;
    assert!(yes(x::geo_compare(x::geo_bin("loc"), x::geo_val(poly))));
}

#[test]
fn cdt_reads_inside_expressions() {
    let e = xl::size(x::list_bin("tags"), &[]);
    assert_eq!(val(e), i(3));
    let e = xl::get_by_value(
        ListReturnType::COUNT,
        x::string_val("b"),
        x::list_bin("tags"),
        &[],
    );
    assert!(yes(x::eq(e, x::int_val(1))));
    let e = xm::get_by_key(
        MapReturnType::VALUE,
        ExpType::Int,
        x::string_val("y"),
        x::map_bin("m"),
        &[],
    );
    assert_eq!(val(e), i(2));
    let e = x::eq(
        x::list_bin("tags"),
        x::list_val(vec![AV::from("a"), AV::from("b"), AV::from("c")]),
    );
    assert!(yes(e));
}

#[test]
fn bit_expressions() {
    use aerospike::expressions::bitwise as xb;
    use aerospike::operations::bitwise::{BitPolicy, BitwiseOverflowActions};
    let r = Rec {
        bins: vec![(
            "b",
            Particle {
                ptype: 4,
                data: Bytes::from(vec![0x01, 0x42, 0x03, 0x04, 0x05]),
            },
        )],
        key: None,
        digest: [0; 20],
    };
    let v = |e: x::Expression| engine::exp::eval_value(&bytes(&e), &r).unwrap();
    let bin = || x::blob_bin("b".to_string());
    let (o, s) = (x::int_val, x::int_val);
    assert_eq!(v(xb::count(o(20), s(4), bin())), Some(i(2)));
    assert_eq!(v(xb::get_int(o(8), s(8), false, bin())), Some(i(0x42)));
    assert_eq!(
        v(xb::lscan(o(0), s(8), x::bool_val(true), bin())),
        Some(i(7))
    );
    assert_eq!(
        v(xb::rscan(o(0), s(16), x::bool_val(true), bin())),
        Some(i(14))
    );
    assert_eq!(
        v(xb::get(o(8), s(8), bin())),
        Some(engine::value::Value::Bytes(4, vec![0x42]))
    );
    let added = xb::add(
        &BitPolicy::default(),
        o(24),
        s(16),
        x::int_val(128),
        false,
        BitwiseOverflowActions::Fail,
        bin(),
    );
    assert_eq!(
        v(added),
        Some(engine::value::Value::Bytes(4, vec![1, 0x42, 3, 4, 0x85]))
    );
    // Past the blob: unknown, so a filter on it is false.
    assert_eq!(v(xb::count(o(41), s(1), bin())), None);
    assert_eq!(
        v(xb::count(o(0), s(1), x::blob_bin("none".to_string()))),
        None
    );
}

#[test]
fn hll_expressions() {
    use aerospike::expressions::hll as xh;
    let list = engine::value::Value::List(engine::value::List {
        flags: 0,
        items: (0..100).map(|i| s(&format!("key{i}"))).collect(),
    });
    let add = common::op(1, vec![list, i(8), i(-1), i(0)]);
    let made = engine::hll::apply(16, None, &add).unwrap();
    let engine::cdt::BinChange::Set(h) = made.bin else {
        panic!("no sketch")
    };
    let r = Rec {
        bins: vec![("h", h)],
        key: None,
        digest: [0; 20],
    };
    let v = |e: x::Expression| engine::exp::eval_value(&bytes(&e), &r).unwrap();
    let bin = || x::hll_bin("h".to_string());
    assert_eq!(v(xh::get_count(bin())), Some(i(97)));
    assert_eq!(
        v(xh::describe(bin())),
        Some(engine::value::Value::List(engine::value::List {
            flags: 0,
            items: vec![i(8), i(0)]
        }))
    );
    let probe = x::list_val(vec![AV::from("key5")]);
    assert_eq!(v(xh::may_contain(probe, bin())), Some(i(1)));
    assert_eq!(v(xh::get_count(x::hll_bin("none".to_string()))), None);
}

fn refused(e: x::Expression) -> bool {
    engine::exp::matches(&bytes(&e), &rec()) == Err(4)
}

#[test]
fn mistyped_expressions_are_refused_not_unknown() {
    let age = || x::int_bin("age");
    let score = || x::float_bin("score");
    // int and float mixed in arithmetic, in either place
    assert!(refused(x::eq(
        x::num_add(vec![age(), x::float_val(5.0)]),
        x::int_val(10)
    )));
    assert!(refused(x::eq(
        x::num_sub(vec![score(), x::int_val(3)]),
        x::float_val(2.0)
    )));
    // comparing an int with a float, a string in arithmetic, pow on ints, mod on floats
    assert!(refused(x::eq(age(), x::float_val(30.0))));
    assert!(refused(x::eq(
        x::num_abs(x::num_sub(vec![x::string_bin("nope")])),
        x::float_val(-5.0)
    )));
    assert!(refused(x::eq(
        x::num_pow(age(), x::int_val(2)),
        x::int_val(900)
    )));
    assert!(refused(x::eq(
        x::num_mod(score(), x::float_val(2.0)),
        x::float_val(0.5)
    )));
    assert!(refused(x::eq(x::num_floor(age()), x::int_val(30))));
    assert!(refused(x::eq(x::to_int(age()), x::int_val(30))));
    assert!(refused(x::eq(x::to_float(score()), x::float_val(2.5))));
    assert!(refused(x::eq(
        x::int_and(vec![age(), x::string_val("x")]),
        x::int_val(0)
    )));
    // a filter must be boolean; logic needs booleans
    assert!(refused(age()));
    assert!(refused(x::and(vec![x::bool_val(true), age()])));
    // cond values of different types; undefined and ill-named variables
    assert!(refused(x::eq(
        x::cond(vec![x::bool_val(true), x::int_val(1), x::float_val(2.0)]),
        x::int_val(1)
    )));
    assert!(refused(x::eq(x::var("nope"), x::int_val(1))));
    assert!(refused(x::exp_let(vec![
        x::def("1st", x::int_val(1)),
        x::eq(x::var("1st"), x::int_val(1)),
    ])));
    // unknown (a missing bin) is still just filtered out
    assert_eq!(
        engine::exp::matches(
            &bytes(&x::eq(
                x::num_add(vec![x::int_bin("nope"), x::int_val(1)]),
                x::int_val(2)
            )),
            &rec()
        ),
        Ok(false)
    );
    // `unknown` fits any cond branch
    let e = x::cond(vec![
        x::eq(age(), x::int_val(30)),
        x::int_val(7),
        x::unknown(),
    ]);
    assert_eq!(val(e), i(7));
}

#[test]
fn integer_arithmetic_wraps_and_divides_like_the_server() {
    let v = |e: x::Expression| engine::exp::eval_value(&bytes(&e), &rec()).unwrap();
    let int = x::int_val;
    assert_eq!(
        v(x::num_add(vec![int(i64::MAX), int(1)])),
        Some(i(i64::MIN))
    );
    assert_eq!(
        v(x::num_mul(vec![int(i64::MIN), int(-1)])),
        Some(i(i64::MIN))
    );
    // a / (b * c): the divisors' product, not a chain of divisions
    assert_eq!(
        v(x::num_div(vec![int(100), int(3), int(0)])),
        None,
        "zero divisor product"
    );
    assert_eq!(v(x::num_div(vec![int(4)])), Some(i(0)));
    assert_eq!(
        v(x::num_div(vec![int(i64::MIN), int(-1)])),
        Some(i(i64::MIN))
    );
    assert_eq!(v(x::num_mod(int(i64::MIN), int(-1))), Some(i(0)));
    assert_eq!(v(x::num_mod(int(-7), int(2))), Some(i(-1)));
    assert_eq!(v(x::num_mod(int(7), int(0))), None);
    let fl = x::float_val;
    assert_eq!(
        v(x::num_div(vec![fl(1.0), fl(3.0), fl(7.0)])),
        Some(f(1.0 / 21.0))
    );
    assert_eq!(v(x::num_div(vec![fl(0.0)])), Some(f(f64::INFINITY)));
    assert_eq!(v(x::to_int(fl(1e300))), Some(i(i64::MIN)));
    assert_eq!(v(x::to_int(fl(f64::NAN))), Some(i(i64::MIN)));
    assert_eq!(v(x::num_abs(int(i64::MIN))), Some(i(i64::MIN)));
    assert_eq!(v(x::int_lshift(int(1), int(65))), Some(i(2)));
    assert_eq!(v(x::int_arshift(int(-8), int(1))), Some(i(-4)));
    assert_eq!(v(x::int_rshift(int(-8), int(60))), Some(i(15)));
}

#[test]
fn cdt_call_arguments_are_expressions() {
    // the index comes from a bin, the value list is a quoted list literal
    let e = xl::get_by_index(
        ListReturnType::VALUES,
        ExpType::String,
        x::num_sub(vec![x::int_bin("age"), x::int_val(29)]),
        x::list_bin("tags"),
        &[],
    );
    assert_eq!(val(e), s("b"));
    let e = xl::get_by_value_list(
        ListReturnType::COUNT,
        x::list_val(vec![AV::from("a"), AV::from("c"), AV::from("z")]),
        x::list_bin("tags"),
        &[],
    );
    assert_eq!(val(e), i(2));
    let e = x::map_keys(x::map_bin("m"));
    assert_eq!(val(e), l(vec![s("x"), s("y")]));
    let e = x::map_values(x::map_bin("m"));
    assert_eq!(val(e), l(vec![i(1), i(2)]));
}

/// An `EXP_READ` / `EXP_MODIFY` payload: `[expression, flags]`.
fn op_payload(e: &x::Expression, flags: i64) -> Vec<u8> {
    let mut out = vec![0x92];
    out.extend(bytes(e));
    rmp::encode::write_sint(&mut out, flags).unwrap();
    out
}

#[test]
fn expression_ops_follow_the_server_flags() {
    use engine::cdt::BinChange;
    use engine::exp::{read_op, write_op};
    let r = rec();
    let unknown = x::int_bin("nope");
    // unknown: OP_NOT_APPLICABLE, or nothing under EVAL_NO_FAIL
    assert_eq!(read_op(&op_payload(&unknown, 0), &r), Err(26));
    assert_eq!(read_op(&op_payload(&unknown, 16), &r), Ok(None));
    assert_eq!(
        write_op(&op_payload(&unknown, 16), "age", &r),
        Ok(BinChange::Unchanged)
    );
    // flags a read does not take, and a mistyped expression, are parameter errors
    assert_eq!(read_op(&op_payload(&x::int_bin("age"), 1), &r), Err(4));
    let mixed = x::num_add(vec![x::int_bin("age"), x::float_val(1.0)]);
    assert_eq!(read_op(&op_payload(&mixed, 16), &r), Err(4));
    // create-only on an existing bin is refused before evaluating
    assert_eq!(write_op(&op_payload(&unknown, 1), "age", &r), Err(6));
    assert_eq!(
        write_op(&op_payload(&unknown, 1 | 8), "age", &r),
        Ok(BinChange::Unchanged)
    );
    assert_eq!(write_op(&op_payload(&unknown, 2), "new", &r), Err(17));
    // nil deletes only with ALLOW_DELETE; on a missing bin it does nothing
    assert_eq!(write_op(&op_payload(&x::nil(), 0), "age", &r), Err(26));
    assert_eq!(
        write_op(&op_payload(&x::nil(), 4), "age", &r),
        Ok(BinChange::Remove)
    );
    assert_eq!(
        write_op(&op_payload(&x::nil(), 16), "age", &r),
        Ok(BinChange::Unchanged)
    );
    assert_eq!(
        write_op(&op_payload(&x::nil(), 0), "new", &r),
        Ok(BinChange::Unchanged)
    );
    assert_eq!(
        write_op(&op_payload(&x::int_val(5), 0), "age", &r),
        Ok(BinChange::Set(int_p(5)))
    );
}
