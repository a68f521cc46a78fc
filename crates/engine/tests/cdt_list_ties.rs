//! List increments of what is not a number (or not there) and ranks among equal values,
//! answered as a real node answers them.

mod common;
use common::*;
use engine::cdt::{apply, BinChange};
use engine::value::Value;

const UNIQUE: i64 = 1;
const BOUNDED: i64 = 2;
const NO_FAIL: i64 = 4;

/// An increment of `items` (an ordered list when `ordered`): its result and the list after it.
fn increment(
    items: Vec<Value>,
    ordered: bool,
    index: i64,
    delta: Value,
    flags: i64,
) -> Result<(Value, Value), i64> {
    let bin = list_p(items);
    let bin = if ordered {
        let r = apply(4, Some(&bin), &op(0, vec![i(1)])).unwrap();
        let BinChange::Set(p) = r.bin else { panic!() };
        p
    } else {
        bin
    };
    let r = apply(
        4,
        Some(&bin),
        &op(12, vec![i(index), delta, i(0), i(flags)]),
    )?;
    let after = match r.bin {
        BinChange::Set(p) => dec(&p),
        _ => dec(&bin),
    };
    Ok((dec(&r.value.unwrap()), after))
}

#[test]
fn increment_of_nil_or_a_string_is_a_parameter_error() {
    let items = vec![i(1), nil(), s("a")];
    assert_eq!(increment(items.clone(), false, 1, i(1), 0), Err(4));
    assert_eq!(increment(items.clone(), false, 1, f(2.5), NO_FAIL), Err(4));
    assert_eq!(increment(items, false, 2, i(1), 0), Err(4));
    assert_eq!(increment(vec![nil(), i(1)], true, 0, i(1), 0), Err(4));
}

#[test]
fn increment_past_the_end_stores_the_delta() {
    let got = increment(vec![i(1)], false, 3, f(2.5), 0).unwrap();
    assert_eq!(got, (f(2.5), l(vec![i(1), nil(), nil(), f(2.5)])));
    let got = increment(vec![i(1), i(2)], false, 2, i(-2), BOUNDED).unwrap();
    assert_eq!(got, (i(-2), l(vec![i(1), i(2), i(-2)])));
    let got = increment(vec![i(1), i(2)], false, 3, i(5), BOUNDED | NO_FAIL).unwrap();
    assert_eq!(got, (i(5), l(vec![i(1), i(2)])));
    assert_eq!(increment(vec![i(1)], false, 3, i(5), BOUNDED), Err(26));
    // an ordered list: just past the end only
    let got = increment(vec![i(1), i(3)], true, 2, i(2), BOUNDED).unwrap();
    assert_eq!(got, (i(2), l(vec![i(1), i(2), i(3)])));
    assert_eq!(increment(vec![i(1)], true, 2, i(5), NO_FAIL), Err(26));
    // before the start: refused whatever the flags
    assert_eq!(increment(vec![i(1)], false, -2, i(5), NO_FAIL), Err(26));
}

#[test]
fn unique_increments() {
    let items = vec![i(3), i(1), i(3)];
    assert_eq!(increment(items.clone(), false, 1, i(2), UNIQUE), Err(24));
    let got = increment(items.clone(), false, 1, f(2.5), UNIQUE | NO_FAIL).unwrap();
    assert_eq!(got, (i(3), l(items.clone())));
    // ordered [1, 3, 3]: the first 3 may stay as it is, the second may not
    let got = increment(items.clone(), true, 1, i(0), UNIQUE).unwrap();
    assert_eq!(got, (i(3), l(vec![i(1), i(3), i(3)])));
    assert_eq!(increment(items, true, 2, i(0), UNIQUE), Err(24));
}

/// A read op `code` with return type `rt` on `items`.
fn read(items: Vec<Value>, code: i64, rt: i64, args: Vec<Value>) -> Value {
    let mut all = vec![i(rt)];
    all.extend(args);
    let r = apply(3, Some(&list_p(items)), &op(code, all)).unwrap();
    dec(&r.value.unwrap())
}

#[test]
fn ranks_among_equal_values_of_an_unordered_list() {
    let (index, rank, value) = (1, 3, 7);
    let twos = vec![f(2.0), nil(), f(2.0)];
    assert_eq!(read(twos.clone(), 21, index, vec![i(1)]), i(2));
    assert_eq!(read(twos, 21, index, vec![i(2)]), i(0));
    assert_eq!(read(vec![i(0), i(0)], 21, index, vec![i(1)]), i(0));
    assert_eq!(read(vec![i(0), i(0)], 21, rank, vec![i(1)]), i(1));
    // by index: an element ranks below its equals; a whole list is a run of ranks
    assert_eq!(read(vec![i(0), i(0)], 19, rank, vec![i(1)]), i(0));
    assert_eq!(
        read(vec![i(1), i(0)], 24, rank, vec![i(0)]),
        l(vec![i(0), i(1)])
    );
    let mixed = vec![i(0), i(1), i(0), i(2), i(0), i(1)];
    assert_eq!(
        read(mixed, 26, value, vec![i(1), i(3)]),
        l(vec![i(1), i(0), i(0)])
    );
}

#[test]
fn reverse_ranks_of_an_ordered_list_are_a_run() {
    let bin = list_p(vec![i(0), i(0)]);
    let r = apply(4, Some(&bin), &op(0, vec![i(1)])).unwrap();
    let BinChange::Set(ordered) = r.bin else {
        panic!()
    };
    let reverse_rank = 4;
    let r = apply(
        3,
        Some(&ordered),
        &op(27, vec![i(reverse_rank), i(0), i(0)]),
    )
    .unwrap();
    assert_eq!(dec(&r.value.unwrap()), l(vec![i(0), i(1)]));
}
