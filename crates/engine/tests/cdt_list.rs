//! CDT list ops, payloads encoded the way the client encodes them.

mod common;
use common::*;
use engine::cdt::{apply, BinChange};

#[test]
fn append_creates_and_returns_size() {
    let r = apply(4, None, &op(1, vec![s("a"), i(0), i(0)])).unwrap();
    assert_eq!(r.value, Some(int_p(1)));
    let BinChange::Set(p) = r.bin else {
        panic!("no set")
    };
    assert_eq!(dec(&p), l(vec![s("a")]));
}

#[test]
fn ordered_list_append_sorts() {
    let r = apply(4, None, &op(2, vec![l(vec![i(3), i(1), i(2)]), i(1), i(0)])).unwrap();
    let BinChange::Set(p) = r.bin else { panic!() };
    // ordered list keeps its ext header
    assert_eq!(&p.data[..], &[0x94, 0xc7, 0x00, 0x01, 0x01, 0x02, 0x03]);
}

#[test]
fn add_unique_and_no_fail() {
    let bin = list_p(vec![i(1), i(2)]);
    assert_eq!(
        apply(4, Some(&bin), &op(1, vec![i(2), i(0), i(1)])),
        Err(24)
    );
    let r = apply(4, Some(&bin), &op(1, vec![i(2), i(0), i(1 | 4)])).unwrap();
    assert_eq!(r.value, Some(int_p(2)));
    let r = apply(
        4,
        Some(&bin),
        &op(2, vec![l(vec![i(2), i(3)]), i(0), i(1 | 4 | 8)]),
    )
    .unwrap();
    assert_eq!(r.value, Some(int_p(3)));
    let r = apply(
        4,
        Some(&bin),
        &op(2, vec![l(vec![i(2), i(3)]), i(0), i(1 | 4)]),
    )
    .unwrap();
    assert_eq!(r.value, Some(int_p(2)));
}

#[test]
fn insert_set_bounds() {
    let bin = list_p(vec![i(1), i(2)]);
    let r = apply(4, Some(&bin), &op(3, vec![i(4), s("x"), i(0)])).unwrap();
    let BinChange::Set(p) = r.bin else { panic!() };
    assert_eq!(dec(&p), l(vec![i(1), i(2), nil(), nil(), s("x")]));
    assert_eq!(
        apply(4, Some(&bin), &op(3, vec![i(4), s("x"), i(2)])),
        Err(26)
    );
    let r = apply(4, Some(&bin), &op(9, vec![i(-1), s("y")])).unwrap();
    let BinChange::Set(p) = r.bin else { panic!() };
    assert_eq!(dec(&p), l(vec![i(1), s("y")]));
    assert_eq!(apply(4, Some(&bin), &op(9, vec![i(-3), s("y")])), Err(26));
}

#[test]
fn get_pop_remove_trim() {
    let bin = list_p(vec![i(5), i(6), i(7), i(8)]);
    assert_eq!(
        apply(3, Some(&bin), &op(17, vec![i(-1)])).unwrap().value,
        Some(int_p(8))
    );
    assert_eq!(apply(3, Some(&bin), &op(17, vec![i(9)])), Err(26));
    let r = apply(3, Some(&bin), &op(18, vec![i(1), i(2)])).unwrap();
    assert_eq!(dec(&r.value.unwrap()), l(vec![i(6), i(7)]));
    let r = apply(4, Some(&bin), &op(6, vec![i(-2)])).unwrap();
    assert_eq!(dec(&r.value.unwrap()), l(vec![i(7), i(8)]));
    let r = apply(4, Some(&bin), &op(10, vec![i(1), i(2)])).unwrap();
    assert_eq!(r.value, Some(int_p(2)));
    let BinChange::Set(p) = r.bin else { panic!() };
    assert_eq!(dec(&p), l(vec![i(6), i(7)]));
    assert_eq!(
        apply(3, Some(&bin), &op(16, vec![])).unwrap().value,
        Some(int_p(4))
    );
    // a read op sent as CDT_READ never changes the bin
    assert_eq!(
        apply(3, Some(&bin), &op(16, vec![])).unwrap().bin,
        BinChange::Unchanged
    );
}

#[test]
fn return_types() {
    let bin = list_p(vec![i(30), i(10), i(20), i(10)]);
    let get = |rt: i64, code: i64, mut args: Vec<engine::value::Value>| {
        args.insert(0, i(rt));
        apply(3, Some(&bin), &op(code, args)).map(|r| r.value.map(|p| dec(&p)))
    };
    // by value: indexes of both 10s
    assert_eq!(get(1, 22, vec![i(10)]).unwrap(), Some(l(vec![i(1), i(3)])));
    assert_eq!(get(2, 22, vec![i(10)]).unwrap(), Some(l(vec![i(2), i(0)])));
    assert_eq!(get(5, 22, vec![i(10)]).unwrap(), Some(i(2)));
    assert_eq!(get(13, 22, vec![i(99)]).unwrap(), Some(b(false)));
    // by rank: largest
    assert_eq!(get(7, 21, vec![i(-1)]).unwrap(), Some(i(30)));
    assert_eq!(get(3, 19, vec![i(0)]).unwrap(), Some(i(3)));
    assert_eq!(get(4, 19, vec![i(0)]).unwrap(), Some(i(0)));
    // rank range
    assert_eq!(
        get(7, 26, vec![i(0), i(2)]).unwrap(),
        Some(l(vec![i(10), i(10)]))
    );
    // value interval [10, 25)
    assert_eq!(get(5, 25, vec![i(10), i(25)]).unwrap(), Some(i(3)));
    // inverted
    assert_eq!(
        get(7 | 0x10000, 22, vec![i(10)]).unwrap(),
        Some(l(vec![i(30), i(20)]))
    );
    // value list and relative rank
    assert_eq!(
        get(7, 23, vec![l(vec![i(20), i(30)])]).unwrap(),
        Some(l(vec![i(30), i(20)]))
    );
    assert_eq!(
        get(7, 27, vec![i(15), i(0), i(1)]).unwrap(),
        Some(l(vec![i(20)]))
    );
    assert_eq!(
        get(7, 27, vec![i(15), i(-1)]).unwrap(),
        Some(l(vec![i(10), i(20), i(30)]))
    );
    // index range from the end
    assert_eq!(
        get(7, 24, vec![i(-2)]).unwrap(),
        Some(l(vec![i(20), i(10)]))
    );
    // a key/value return on a list is "not applicable", as on a server
    assert_eq!(get(8, 24, vec![i(0)]), Err(26));
}

#[test]
fn remove_by_value_and_wildcard() {
    let bin = list_p(vec![
        l(vec![i(1), s("a")]),
        l(vec![i(2), s("b")]),
        l(vec![i(1), s("c")]),
    ]);
    let pat = l(vec![i(1), engine::value::Value::Wildcard]);
    let r = apply(4, Some(&bin), &op(35, vec![i(5), pat])).unwrap();
    assert_eq!(r.value, Some(int_p(2)));
    let BinChange::Set(p) = r.bin else { panic!() };
    assert_eq!(dec(&p), l(vec![l(vec![i(2), s("b")])]));
}

#[test]
fn increment_sort_clear_errors() {
    let bin = list_p(vec![i(3), f(1.5), i(2)]);
    assert_eq!(
        dec(&apply(4, Some(&bin), &op(12, vec![i(0), i(4)]))
            .unwrap()
            .value
            .unwrap()),
        i(7)
    );
    assert_eq!(
        dec(&apply(4, Some(&bin), &op(12, vec![i(1)]))
            .unwrap()
            .value
            .unwrap()),
        f(2.5)
    );
    let r = apply(4, Some(&bin), &op(13, vec![i(1)])).unwrap();
    let BinChange::Set(p) = r.bin else { panic!() };
    assert_eq!(dec(&p), l(vec![f(1.5), i(3), i(2)]));
    let r = apply(4, Some(&bin), &op(11, vec![])).unwrap();
    let BinChange::Set(p) = r.bin else { panic!() };
    assert_eq!(dec(&p), l(vec![]));
    // list op on a string bin
    assert_eq!(apply(3, Some(&str_p("x")), &op(16, vec![])), Err(12));
    // modify op code sent as a read
    assert_eq!(apply(3, Some(&bin), &op(1, vec![i(1)])), Err(4));
    // garbage payload
    assert_eq!(apply(4, Some(&bin), &[0x92, 0x01]), Err(4));
    // read on a missing bin: nothing
    assert_eq!(apply(3, None, &op(16, vec![])).unwrap().value, None);
}

#[test]
fn descending_sort_dropping_duplicates_needs_one_distinct_value() {
    // A server refuses DESCENDING | DROP_DUPLICATES on an unordered list with two distinct
    // values (PARAMETER_ERROR) and accepts it when every value is equal.
    let two = list_p(vec![i(1), i(2), i(2)]);
    assert_eq!(apply(4, Some(&two), &op(13, vec![i(3)])), Err(4));
    let r = apply(4, Some(&two), &op(13, vec![i(1)])).unwrap();
    let BinChange::Set(p) = r.bin else { panic!() };
    assert_eq!(dec(&p), l(vec![i(2), i(2), i(1)]));
    let same = list_p(vec![i(1), i(1)]);
    let r = apply(4, Some(&same), &op(13, vec![i(3)])).unwrap();
    let BinChange::Set(p) = r.bin else { panic!() };
    assert_eq!(dec(&p), l(vec![i(1)]));
}

#[test]
fn inverted_exists_of_an_unordered_value_or_rank_run_is_whether_nothing_was_selected() {
    let exists_inverted = 13 | 0x10000;
    let get = |items: Vec<engine::value::Value>, code: i64, args: Vec<engine::value::Value>| {
        let mut all = vec![i(exists_inverted)];
        all.extend(args);
        let r = apply(3, Some(&list_p(items)), &op(code, all)).unwrap();
        dec(&r.value.unwrap())
    };
    assert_eq!(get(vec![i(1), i(2)], 22, vec![i(1)]), b(false));
    assert_eq!(get(vec![i(1), i(2)], 22, vec![i(5)]), b(true));
    assert_eq!(get(vec![], 25, vec![i(0), i(1)]), b(true));
    assert_eq!(get(vec![i(0), i(0)], 26, vec![i(1)]), b(false));
    // a rank range that leaves nothing: false
    assert_eq!(get(vec![], 26, vec![i(0), i(1)]), b(false));
    // an index range answers whether anything is left
    assert_eq!(get(vec![i(1), i(2)], 24, vec![i(0), i(1)]), b(true));
}
