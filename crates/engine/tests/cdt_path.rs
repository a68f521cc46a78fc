//! Path expressions: select and apply (CDT op 0xfe) over nested lists and maps, payloads
//! encoded the way the official clients encode them.

mod common;
use bytes::Bytes;
use common::*;
use engine::cdt::{apply, BinChange};
use engine::pack::encode_into;
use engine::value::{List, Value};
use engine::Particle;
use rmpv::Value as Mp;

const READ: u8 = 3;
const MODIFY: u8 = 4;

const TREE: i64 = 0;
const VALUES: i64 = 1;
const KEYS: i64 = 2;
const KEYS_VALUES: i64 = 3;
const APPLY: i64 = 4;
const NO_FAIL: i64 = 0x10;

const LIST_INDEX: i64 = 0x10;
const LIST_RANK: i64 = 0x11;
const LIST_VALUE: i64 = 0x13;
const MAP_INDEX: i64 = 0x20;
const MAP_KEY: i64 = 0x22;
const MAP_VALUE: i64 = 0x23;
const CHILDREN: i64 = 0x04;
const KEYS_IN: i64 = 0x2a;
const AND: i64 = 0x204;

/// `[0xfe, [ctx...], flags, modify exp?]`.
fn path(ctx: &[(i64, Value)], flags: i64, modify: Option<Value>) -> Vec<u8> {
    let mut out = Vec::new();
    let n = 3 + u32::from(modify.is_some());
    rmp::encode::write_array_len(&mut out, n).unwrap();
    rmp::encode::write_sint(&mut out, 0xfe).unwrap();
    rmp::encode::write_array_len(&mut out, ctx.len() as u32 * 2).unwrap();
    for (t, v) in ctx {
        rmp::encode::write_sint(&mut out, *t).unwrap();
        encode_into(v, &mut out);
    }
    rmp::encode::write_sint(&mut out, flags).unwrap();
    if let Some(m) = modify {
        encode_into(&m, &mut out);
    }
    out
}

fn particle(v: &Value) -> Particle {
    let ptype = if matches!(v, Value::Map(_)) { 19 } else { 20 };
    Particle {
        ptype,
        data: Bytes::from(engine::pack::encode(v)),
    }
}

/// An expression node `[code, args...]`.
fn x(code: i64, args: Vec<Value>) -> Value {
    let mut items = vec![i(code)];
    items.extend(args);
    l(items)
}

/// Loop variable `id` (0 key, 1 value, 2 index) read as expression type `ty`.
fn var(ty: i64, id: i64) -> Value {
    x(122, vec![i(ty), i(id)])
}

fn all() -> (i64, Value) {
    (CHILDREN, b(true))
}

fn only(filter: Value) -> (i64, Value) {
    (CHILDREN, filter)
}

fn select(bin: &Value, ctx: &[(i64, Value)], flags: i64) -> Result<Value, u8> {
    let r = apply(READ, Some(&particle(bin)), &path(ctx, flags, None))?;
    assert_eq!(r.bin, BinChange::Unchanged);
    Ok(r.value.map_or(Value::Nil, |p| dec(&p)))
}

fn modify(bin: &Value, ctx: &[(i64, Value)], flags: i64, exp: Value) -> Result<Value, u8> {
    let r = apply(
        MODIFY,
        Some(&particle(bin)),
        &path(ctx, flags | APPLY, Some(exp)),
    )?;
    assert_eq!(r.value, None);
    match r.bin {
        BinChange::Set(p) => Ok(dec(&p)),
        other => panic!("bin not rewritten: {other:?}"),
    }
}

/// `{"d1": {"book": 14.99, "ferry": 5.0}, "d2": {"food": 34.0, "game": 12.99}}`
fn days() -> Value {
    m(vec![
        (
            s("d1"),
            m(vec![(s("book"), f(14.99)), (s("ferry"), f(5.0))]),
        ),
        (
            s("d2"),
            m(vec![(s("food"), f(34.0)), (s("game"), f(12.99))]),
        ),
    ])
}

fn float_at_least(v: f64) -> Value {
    x(4, vec![var(7, 1), f(v)])
}

#[test]
fn each_select_type_answers_its_shape() {
    let d = days();
    let ctx = [all(), all()];
    assert_eq!(
        select(&d, &ctx, VALUES).unwrap(),
        l(vec![f(14.99), f(5.0), f(34.0), f(12.99)])
    );
    assert_eq!(
        select(&d, &ctx, KEYS).unwrap(),
        l(vec![s("book"), s("ferry"), s("food"), s("game")])
    );
    assert_eq!(
        select(&d, &ctx, KEYS_VALUES).unwrap(),
        l(vec![
            s("book"),
            f(14.99),
            s("ferry"),
            f(5.0),
            s("food"),
            f(34.0),
            s("game"),
            f(12.99)
        ])
    );
    assert_eq!(select(&d, &ctx, TREE).unwrap(), d);
}

#[test]
fn a_filter_cuts_the_tree_and_the_leaves() {
    let d = days();
    let ctx = [all(), only(float_at_least(20.0))];
    assert_eq!(select(&d, &ctx, VALUES).unwrap(), l(vec![f(34.0)]));
    assert_eq!(
        select(&d, &ctx, TREE).unwrap(),
        m(vec![
            (s("d1"), m(vec![])),
            (s("d2"), m(vec![(s("food"), f(34.0))]))
        ])
    );
}

#[test]
fn loop_variables_give_key_and_index() {
    let by_key = x(1, vec![var(3, 0), s("ferry")]);
    assert_eq!(
        select(&days(), &[all(), only(by_key)], TREE).unwrap(),
        m(vec![
            (s("d1"), m(vec![(s("ferry"), f(5.0))])),
            (s("d2"), m(vec![]))
        ])
    );
    let nested = l(vec![
        l(vec![i(1), i(2)]),
        l(vec![i(3)]),
        l(vec![i(4), i(5)]),
    ]);
    let odd_index = x(1, vec![x(26, vec![var(2, 2), i(2)]), i(1)]);
    assert_eq!(
        select(&nested, &[all(), only(odd_index)], VALUES).unwrap(),
        l(vec![i(2), i(5)])
    );
    // A map entry has no index, a list element no key: unknown.
    let no_index = x(1, vec![var(2, 2), i(0)]);
    assert_eq!(select(&days(), &[only(no_index)], VALUES), Err(4));
}

#[test]
fn unknown_filters_fail_unless_no_fail() {
    let mixed = l(vec![i(1), s("a"), i(3)]);
    let big = x(3, vec![var(2, 1), i(1)]);
    assert_eq!(select(&mixed, &[only(big.clone())], VALUES), Err(4));
    assert_eq!(
        select(&mixed, &[only(big)], VALUES | NO_FAIL).unwrap(),
        l(vec![i(3)])
    );
}

#[test]
fn scalars_above_the_leaf_level_stay_in_a_tree_only() {
    let v = m(vec![
        (s("a"), i(1)),
        (s("b"), m(vec![(s("x"), i(5)), (s("y"), i(7))])),
    ]);
    let ctx = [all(), only(x(3, vec![var(2, 1), i(5)]))];
    assert_eq!(
        select(&v, &ctx, TREE).unwrap(),
        m(vec![(s("a"), i(1)), (s("b"), m(vec![(s("y"), i(7))]))])
    );
    assert_eq!(select(&v, &ctx, VALUES).unwrap(), l(vec![i(7)]));
}

#[test]
fn map_keys_of_list_leaves_are_refused_or_skipped() {
    let nested = m(vec![
        (s("a"), l(vec![i(1)])),
        (s("b"), m(vec![(s("k"), i(2))])),
    ]);
    assert_eq!(select(&nested, &[all(), all()], KEYS), Err(12));
    assert_eq!(
        select(&nested, &[all(), all()], KEYS | NO_FAIL).unwrap(),
        l(vec![s("k")])
    );
}

#[test]
fn plain_steps_mix_with_filters() {
    let v = m(vec![
        (s("a"), l(vec![i(3), i(1), i(2)])),
        (s("b"), l(vec![i(9)])),
    ]);
    assert_eq!(
        select(&v, &[(MAP_KEY, s("a")), all()], TREE).unwrap(),
        m(vec![(s("a"), l(vec![i(3), i(1), i(2)]))])
    );
    assert_eq!(
        select(&v, &[all(), (LIST_INDEX, i(-1))], VALUES).unwrap(),
        l(vec![i(2), i(9)])
    );
    assert_eq!(
        select(&v, &[(MAP_INDEX, i(0)), (LIST_RANK, i(0))], VALUES).unwrap(),
        l(vec![i(1)])
    );
    assert_eq!(
        select(&v, &[all(), (LIST_VALUE, i(9))], TREE).unwrap(),
        m(vec![(s("a"), l(vec![])), (s("b"), l(vec![i(9)]))])
    );
    // An index out of range picks nothing; a list step at a map level is refused.
    assert_eq!(
        select(&v, &[all(), (LIST_INDEX, i(5))], VALUES).unwrap(),
        l(vec![])
    );
    assert_eq!(select(&v, &[(LIST_INDEX, i(0))], VALUES), Err(4));
    assert_eq!(
        select(&v, &[(MAP_VALUE, l(vec![i(9)]))], KEYS).unwrap(),
        l(vec![s("b")])
    );
}

#[test]
fn keys_in_and_an_and_filter() {
    let v = m(vec![(s("a"), i(1)), (s("b"), i(2)), (s("c"), i(3))]);
    let keys = l(vec![s("c"), s("a"), s("z")]);
    assert_eq!(
        select(&v, &[(KEYS_IN, keys.clone())], KEYS_VALUES).unwrap(),
        l(vec![s("a"), i(1), s("c"), i(3)])
    );
    let over_one = x(3, vec![var(2, 1), i(1)]);
    assert_eq!(
        select(&v, &[(KEYS_IN, keys), (AND, over_one.clone())], VALUES).unwrap(),
        l(vec![i(3)])
    );
    assert_eq!(select(&v, &[(AND, over_one.clone())], VALUES), Err(4));
    assert_eq!(select(&v, &[all(), (AND, over_one)], VALUES), Err(4));
}

#[test]
fn apply_replaces_and_removes_leaves() {
    let minus_five = x(21, vec![var(7, 1), f(5.0)]);
    assert_eq!(
        modify(&days(), &[all(), all()], 0, minus_five).unwrap(),
        m(vec![
            (s("d1"), m(vec![(s("book"), f(9.99)), (s("ferry"), f(0.0))])),
            (s("d2"), m(vec![(s("food"), f(29.0)), (s("game"), f(7.99))])),
        ])
    );
    let remove = x(100, vec![]);
    assert_eq!(
        modify(&days(), &[all(), only(float_at_least(10.0))], 0, remove).unwrap(),
        m(vec![
            (s("d1"), m(vec![(s("ferry"), f(5.0))])),
            (s("d2"), m(vec![])),
        ])
    );
}

#[test]
fn apply_keeps_ordered_lists_in_order() {
    let ordered = Value::List(List::new(1, vec![i(1), i(2), i(3)]));
    let negate = x(22, vec![var(2, 1), i(-1)]);
    let out = modify(&ordered, &[all()], 0, negate).unwrap();
    assert_eq!(out, Value::List(List::new(1, vec![i(-3), i(-2), i(-1)])));
}

#[test]
fn apply_with_an_unknown_result_fails_unless_no_fail() {
    let mixed = l(vec![i(1), s("x"), i(2)]);
    let plus_one = x(20, vec![var(2, 1), i(1)]);
    assert_eq!(modify(&mixed, &[all()], 0, plus_one.clone()), Err(1));
    assert_eq!(
        modify(&mixed, &[all()], NO_FAIL, plus_one).unwrap(),
        l(vec![i(2), s("x"), i(3)])
    );
}

#[test]
fn bins_and_op_kinds_refused() {
    let ctx = [all()];
    let sel = path(&ctx, VALUES, None);
    let app = path(&ctx, APPLY, Some(i(0)));
    // A read of a missing bin answers nothing; a modify of one is a bin type error.
    let r = apply(READ, None, &sel).unwrap();
    assert_eq!((r.bin, r.value), (BinChange::Unchanged, None));
    assert_eq!(apply(MODIFY, None, &app), Err(12));
    assert_eq!(apply(READ, Some(&int_p(3)), &sel), Err(12));
    // The apply flag in a read, a missing expression, an unknown select type, no context.
    assert_eq!(apply(READ, Some(&particle(&days())), &app), Err(4));
    assert_eq!(
        apply(MODIFY, Some(&particle(&days())), &path(&ctx, APPLY, None)),
        Err(4)
    );
    assert_eq!(
        apply(READ, Some(&particle(&days())), &path(&ctx, 5, None)),
        Err(4)
    );
    assert_eq!(
        apply(READ, Some(&particle(&days())), &path(&[], VALUES, None)),
        Err(4)
    );
    // A filter must be an expression or `true`.
    let bad = [(CHILDREN, b(false))];
    assert_eq!(
        apply(READ, Some(&particle(&days())), &path(&bad, VALUES, None)),
        Err(4)
    );
    assert!(engine::cdt::readable(&sel));
    assert!(!engine::cdt::readable(&app));
}

/// `[exp, flags]`, the value of an expression read op.
fn exp_op(exp: Mp) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, &Mp::Array(vec![exp, Mp::from(0)])).unwrap();
    out
}

fn mp(v: &Value) -> Mp {
    rmpv::decode::read_value(&mut &engine::pack::encode(v)[..]).unwrap()
}

/// `[127, rtype, module, op, bin "d" as a map]`: a CDT call on bin `d`.
fn call(rtype: i64, module: i64, op: Value) -> Mp {
    let bin = Mp::Array(vec![Mp::from(81), Mp::from(5), Mp::from("d")]);
    Mp::Array(vec![
        Mp::from(127),
        Mp::from(rtype),
        Mp::from(module),
        mp(&op),
        bin,
    ])
}

#[test]
fn path_calls_inside_expressions() {
    let rec = common::rec::Rec {
        bins: vec![("d".into(), particle(&days()))],
        exists: true,
        ..Default::default()
    };
    let read = |exp: Mp| engine::exp::read_op(&exp_op(exp), &rec).map(|v| v.map(|p| dec(&p)));
    let ctx = l(vec![i(CHILDREN), b(true), i(CHILDREN), b(true)]);
    let values = call(4, 0, l(vec![i(0xfe), ctx.clone(), i(VALUES)]));
    assert_eq!(
        read(values),
        Ok(Some(l(vec![f(14.99), f(5.0), f(34.0), f(12.99)])))
    );
    // A tree is a map: declared a list, it is unknown (not applicable).
    assert_eq!(
        read(call(4, 0, l(vec![i(0xfe), ctx.clone(), i(TREE)]))),
        Err(26)
    );
    let remove = call(5, 0x40, l(vec![i(0xfe), ctx, i(APPLY), x(100, vec![])]));
    assert_eq!(
        read(remove),
        Ok(Some(m(vec![(s("d1"), m(vec![])), (s("d2"), m(vec![]))])))
    );
    // The remove marker alone, and a loop variable outside a path.
    assert_eq!(read(mp(&x(100, vec![]))), Err(4));
    assert_eq!(read(mp(&var(2, 1))), Err(26));
}
