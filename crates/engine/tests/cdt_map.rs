//! CDT map ops and nested contexts.

mod common;
use common::*;
use engine::cdt::{apply, BinChange};

fn set_of(r: engine::cdt::CdtResult) -> engine::value::Value {
    let BinChange::Set(p) = r.bin else {
        panic!("bin not set")
    };
    dec(&p)
}

#[test]
fn put_creates_k_ordered_map() {
    // put(key, value, attr=K-ordered)
    let r = apply(4, None, &op(67, vec![s("b"), i(2), i(1)])).unwrap();
    assert_eq!(r.value, Some(int_p(1)));
    let BinChange::Set(p) = &r.bin else { panic!() };
    assert_eq!(&p.data[..4], &[0x82, 0xc7, 0x00, 0x01]);
    let r = apply(4, Some(p), &op(67, vec![s("a"), i(1), i(1)])).unwrap();
    let BinChange::Set(p2) = &r.bin else { panic!() };
    // keys sorted: "a" first
    assert_eq!(&p2.data[5..8], &[0xa2, 0x03, b'a']);
}

#[test]
fn write_flags() {
    let bin = map_p(m(vec![(s("a"), i(1))]));
    assert_eq!(
        apply(4, Some(&bin), &op(67, vec![s("a"), i(9), i(0), i(1)])),
        Err(24)
    );
    assert_eq!(
        apply(4, Some(&bin), &op(67, vec![s("z"), i(9), i(0), i(2)])),
        Err(23)
    );
    let r = apply(4, Some(&bin), &op(67, vec![s("a"), i(9), i(0), i(1 | 4)])).unwrap();
    assert_eq!(set_of(r), m(vec![(s("a"), i(1))]));
    let items = m(vec![(s("a"), i(5)), (s("b"), i(6))]);
    let r = apply(
        4,
        Some(&bin),
        &op(68, vec![items.clone(), i(0), i(1 | 4 | 8)]),
    )
    .unwrap();
    assert_eq!(set_of(r), m(vec![(s("a"), i(1)), (s("b"), i(6))]));
    let r = apply(4, Some(&bin), &op(68, vec![items, i(0)])).unwrap();
    assert_eq!(r.value, Some(int_p(2)));
}

#[test]
fn increment_decrement() {
    let bin = map_p(m(vec![(s("a"), i(1))]));
    let r = apply(4, Some(&bin), &op(73, vec![s("a"), i(5), i(0)])).unwrap();
    assert_eq!(r.value, Some(int_p(6)));
    let r = apply(4, Some(&bin), &op(74, vec![s("n"), i(2), i(0)])).unwrap();
    assert_eq!(r.value, Some(int_p(-2)));
}

#[test]
fn reads_with_return_types() {
    let bin = map_p(m(vec![(s("c"), i(1)), (s("a"), i(3)), (s("b"), i(2))]));
    let get = |code: i64, args: Vec<engine::value::Value>| {
        apply(3, Some(&bin), &op(code, args))
            .unwrap()
            .value
            .map(|p| dec(&p))
    };
    assert_eq!(get(97, vec![i(7), s("a")]), Some(i(3)));
    assert_eq!(get(97, vec![i(1), s("a")]), Some(i(0))); // index in key order
    assert_eq!(get(97, vec![i(3), s("a")]), Some(i(2))); // rank by value
    assert_eq!(get(98, vec![i(6), i(-1)]), Some(s("c")));
    assert_eq!(get(100, vec![i(6), i(0)]), Some(s("c")));
    assert_eq!(
        get(104, vec![i(8), i(0), i(2)]),
        Some(m(vec![(s("a"), i(3)), (s("b"), i(2))]))
    );
    // selections by mask answer in storage order (key order, unordered maps included)
    assert_eq!(get(103, vec![i(6), s("b")]), Some(l(vec![s("b"), s("c")])));
    // a value interval too: index order, not rank order
    assert_eq!(get(105, vec![i(7), i(2), i(4)]), Some(l(vec![i(3), i(2)])));
    assert_eq!(get(106, vec![i(6), i(-2)]), Some(l(vec![s("b"), s("a")])));
    assert_eq!(get(107, vec![i(5), l(vec![s("a"), s("x")])]), Some(i(1)));
    assert_eq!(
        get(108, vec![i(6), l(vec![i(1), i(2)])]),
        Some(l(vec![s("b"), s("c")]))
    );
    assert_eq!(get(109, vec![i(6), s("b"), i(1)]), Some(l(vec![s("c")])));
    assert_eq!(
        get(110, vec![i(6), i(2), i(0), i(1)]),
        Some(l(vec![s("b")]))
    );
    assert_eq!(get(97, vec![i(6), s("a")]), Some(s("a")));
    assert_eq!(get(97, vec![i(13), s("zz")]), Some(b(false)));
    // inverted key lookups: a range on a key-ordered map, refused on an unordered one
    assert_eq!(
        apply(3, Some(&bin), &op(97, vec![i(6 | 0x10000), s("a")])),
        Err(26)
    );
    let ordered = map_p(km(vec![(s("c"), i(1)), (s("a"), i(3)), (s("b"), i(2))]));
    let r = apply(3, Some(&ordered), &op(97, vec![i(6 | 0x10000), s("a")])).unwrap();
    assert_eq!(r.value.map(|p| dec(&p)), Some(l(vec![s("b"), s("c")])));
    assert_eq!(get(96, vec![]), Some(i(3)));
    assert_eq!(get(97, vec![i(17), s("a")]), Some(km(vec![(s("a"), i(3))])));
}

#[test]
fn removes() {
    let bin = map_p(m(vec![(s("a"), i(1)), (s("b"), i(2)), (s("c"), i(3))]));
    let r = apply(4, Some(&bin), &op(87, vec![i(7), i(0), i(2)])).unwrap();
    assert_eq!(r.value.clone().map(|p| dec(&p)), Some(l(vec![i(1), i(2)])));
    assert_eq!(set_of(r), m(vec![(s("c"), i(3))]));
    let r = apply(4, Some(&bin), &op(76, vec![i(0), s("b")])).unwrap();
    assert_eq!(r.value, None);
    assert_eq!(set_of(r), m(vec![(s("a"), i(1)), (s("c"), i(3))]));
    let r = apply(
        4,
        Some(&bin),
        &op(84, vec![i(5), s("b"), engine::value::Value::Inf]),
    )
    .unwrap();
    assert_eq!(r.value, Some(int_p(2)));
}

#[test]
fn client_encoded_nested_create() {
    // bytes from the client's own unit test: map create K-ordered at mapKey("k")
    let payload = [
        0x93, 0xcc, 0xff, 0x92, 0xcc, 0xa2, 0xa2, 0x03, 0x6b, 0x92, 0x40, 0x01,
    ];
    let r = apply(4, None, &payload).unwrap();
    let v = set_of(r);
    assert_eq!(v, m(vec![(s("k"), km(vec![]))]));
    // list create ordered at list index 3 of an existing list, persist bit stripped
    let payload = [0x93, 0xcc, 0xff, 0x92, 0xcc, 0xd0, 0x00, 0x92, 0x00, 0x01];
    let r = apply(4, Some(&list_p(vec![])), &payload).unwrap();
    assert_eq!(set_of(r), l(vec![l(vec![])]));
}

#[test]
fn nested_contexts() {
    let doc = m(vec![
        (s("u"), m(vec![(s("tags"), l(vec![s("x"), s("y")]))])),
        (s("n"), i(1)),
    ]);
    let bin = map_p(doc);
    // append to u.tags
    let r = apply(
        4,
        Some(&bin),
        &op_ctx(vec![(0x22, s("u")), (0x22, s("tags"))], 1, vec![s("z")]),
    )
    .unwrap();
    assert_eq!(r.value, Some(int_p(3)));
    let v = set_of(r);
    let r2 = apply(
        3,
        Some(&map_p(v)),
        &op_ctx(vec![(0x22, s("u")), (0x22, s("tags"))], 17, vec![i(-1)]),
    )
    .unwrap();
    assert_eq!(r2.value.map(|p| dec(&p)), Some(s("z")));
    // missing key without create flag
    assert_eq!(
        apply(
            4,
            Some(&bin),
            &op_ctx(vec![(0x22, s("nope"))], 1, vec![s("z")])
        ),
        Err(26)
    );
    // with create flag (0x40: unordered list at the new key)
    let r = apply(
        4,
        Some(&bin),
        &op_ctx(vec![(0x22 | 0x40, s("nope"))], 1, vec![s("z")]),
    )
    .unwrap();
    let v = set_of(r);
    let r3 = apply(
        3,
        Some(&map_p(v)),
        &op_ctx(vec![(0x22, s("nope"))], 16, vec![]),
    )
    .unwrap();
    assert_eq!(r3.value, Some(int_p(1)));
    // ctx into a scalar
    assert_eq!(
        apply(
            3,
            Some(&bin),
            &op_ctx(vec![(0x22, s("n")), (0x10, i(0))], 16, vec![])
        ),
        Err(26)
    );
    // map rank / list value / list index pad
    let r = apply(
        3,
        Some(&bin),
        &op_ctx(vec![(0x21, i(-1)), (0x22, s("tags"))], 16, vec![]),
    )
    .unwrap();
    assert_eq!(r.value, Some(int_p(2)));
    let lb = list_p(vec![l(vec![i(1)]), l(vec![i(2), i(3)])]);
    let r = apply(
        3,
        Some(&lb),
        &op_ctx(vec![(0x13, l(vec![i(2), i(3)]))], 17, vec![i(0)]),
    )
    .unwrap();
    assert_eq!(r.value, Some(int_p(2)));
    let r = apply(
        4,
        Some(&lb),
        &op_ctx(vec![(0x10 | 0x80, i(4))], 1, vec![i(9)]),
    )
    .unwrap();
    assert_eq!(
        set_of(r),
        l(vec![
            l(vec![i(1)]),
            l(vec![i(2), i(3)]),
            nil(),
            nil(),
            l(vec![i(9)])
        ])
    );
}

#[test]
fn map_keys_are_ints_strings_or_bytes() {
    // put, put_items and increment refuse a list, map, float, bool or nil key.
    let bin = map_p(m(vec![(s("a"), i(1))]));
    for key in [l(vec![i(1)]), f(1.5), b(true), nil()] {
        assert_eq!(
            apply(4, Some(&bin), &op(67, vec![key.clone(), i(1)])),
            Err(4)
        );
        assert_eq!(
            apply(4, Some(&bin), &op(73, vec![key.clone(), i(1)])),
            Err(4)
        );
    }
    let items = m(vec![(s("b"), i(2)), (f(2.5), i(3))]);
    assert_eq!(apply(4, Some(&bin), &op(68, vec![items])), Err(4));
    let bytes = engine::value::Value::Bytes(4, b"k".to_vec());
    let r = apply(4, Some(&bin), &op(67, vec![bytes.clone(), i(2)])).unwrap();
    assert_eq!(set_of(r), m(vec![(s("a"), i(1)), (bytes, i(2))]));
}

/// The keys of a map value in stored order.
fn stored_keys(v: engine::value::Value) -> Vec<engine::value::Value> {
    let engine::value::Value::Map(map) = v else {
        panic!("not a map")
    };
    map.entries.into_iter().map(|(k, _)| k).collect()
}

#[test]
fn puts_leave_an_unordered_map_in_key_order() {
    // As a real node: put_items and put both store an unordered map in key order.
    let bin = map_p(m(vec![(s("z"), i(0))]));
    let items = m(vec![(s("a"), i(1))]);
    let r = apply(4, Some(&bin), &op(68, vec![items.clone(), i(0)])).unwrap();
    assert_eq!(stored_keys(set_of(r)), vec![s("a"), s("z")]);
    let r = apply(4, Some(&bin), &op(67, vec![s("a"), i(1), i(0)])).unwrap();
    assert_eq!(stored_keys(set_of(r)), vec![s("a"), s("z")]);
    // A put_items that NO_FAIL turns away leaves the map as it was.
    let r = apply(4, Some(&bin), &op(68, vec![items, i(0), i(2 | 4)])).unwrap();
    assert_eq!(r.value, Some(int_p(1)));
    if let BinChange::Set(p) = &r.bin {
        assert_eq!(stored_keys(dec(p)), vec![s("z")]);
    }
}

#[test]
fn by_key_list_answers_as_a_real_node() {
    // Stored z, a, m (unordered); key order a (0), m (1), z (2).
    let unordered = map_p(m(vec![(s("z"), i(0)), (s("a"), i(1)), (s("m"), i(2))]));
    let ordered = map_p(km(vec![(s("z"), i(0)), (s("a"), i(1)), (s("m"), i(2))]));
    let get = |bin: &engine::Particle, rt: i64, keys: Vec<engine::value::Value>| {
        apply(3, Some(bin), &op(107, vec![i(rt), l(keys)])).map(|r| r.value.map(|p| dec(&p)))
    };
    let inv = 0x10000;
    for bin in [&unordered, &ordered] {
        // Indexes in the order of the keys asked for; those left, ascending.
        let za = || vec![s("z"), s("a")];
        assert_eq!(get(bin, 1, za()), Ok(Some(l(vec![i(2), i(0)]))));
        assert_eq!(get(bin, 2, za()), Ok(Some(l(vec![i(0), i(2)]))));
        assert_eq!(
            get(bin, 1 | inv, vec![s("m")]),
            Ok(Some(l(vec![i(0), i(2)])))
        );
        // No ranks.
        assert_eq!(get(bin, 3, za()), Err(26));
        assert_eq!(get(bin, 4 | inv, za()), Err(26));
        assert_eq!(get(bin, 5, za()), Ok(Some(i(2))));
    }
    // Elements in stored order: key order, whatever order the unordered map was written in.
    let az = || vec![s("a"), s("z")];
    for bin in [&unordered, &ordered] {
        assert_eq!(get(bin, 7, az()), Ok(Some(l(vec![i(1), i(0)]))));
        assert_eq!(
            get(bin, 6 | inv, vec![s("a")]),
            Ok(Some(l(vec![s("m"), s("z")])))
        );
    }
}

#[test]
fn rank_range_indexes_come_in_rank_order() {
    let bin = map_p(m(vec![
        (s("a"), i(2)),
        (s("b"), i(1)),
        (s("c"), i(2)),
        (s("d"), i(1)),
    ]));
    let get = |rt: i64, rank: i64, count: i64| {
        let r = apply(3, Some(&bin), &op(106, vec![i(rt), i(rank), i(count)])).unwrap();
        dec(&r.value.unwrap())
    };
    let (index, reverse_index, inverted) = (1, 2, 0x10000);
    assert_eq!(get(index, 0, 4), l(vec![i(1), i(3), i(0), i(2)]));
    assert_eq!(get(reverse_index, 0, 3), l(vec![i(2), i(0), i(3)]));
    // inverted: a tail left over is a rank range, a middle comes in index order
    assert_eq!(get(index | inverted, 0, 1), l(vec![i(3), i(0), i(2)]));
    assert_eq!(get(index | inverted, 1, 2), l(vec![i(1), i(2)]));
}

#[test]
fn inverted_exists_answers_as_a_real_node() {
    let exists_inverted = 13 | 0x10000;
    let get = |map: engine::value::Value, code: i64, args: Vec<engine::value::Value>| {
        let mut all = vec![i(exists_inverted)];
        all.extend(args);
        let r = apply(3, Some(&map_p(map)), &op(code, all)).unwrap();
        dec(&r.value.unwrap())
    };
    let two = |a: i64, b: i64, c: i64, d: i64| vec![(i(a), i(b)), (i(c), i(d))];
    let four = vec![(i(0), i(1)), (i(1), i(0)), (i(2), i(1)), (i(3), i(3))];
    // a value interval: whether nothing was selected
    assert_eq!(get(m(two(3, 3, 4, 1)), 105, vec![i(3), i(5)]), b(false));
    assert_eq!(get(km(two(1, 1, 4, 3)), 102, vec![i(2)]), b(true));
    assert_eq!(get(km(vec![]), 102, vec![i(0)]), b(false));
    // a key interval: whether nothing was selected on an unordered map only
    assert_eq!(get(m(two(0, 0, 5, 2)), 103, vec![i(4), i(6)]), b(false));
    assert_eq!(get(km(two(0, 0, 5, 2)), 103, vec![i(4), i(6)]), b(true));
    assert_eq!(get(m(vec![]), 103, vec![i(2), i(4)]), b(true));
    // a run with unselected elements on both sides: false (an index run: unordered maps only)
    assert_eq!(get(km(four.clone()), 106, vec![i(1), i(2)]), b(false));
    assert_eq!(get(km(four.clone()), 106, vec![i(0), i(2)]), b(true));
    assert_eq!(get(m(four.clone()), 104, vec![i(1), i(2)]), b(false));
    assert_eq!(get(km(four), 104, vec![i(1), i(2)]), b(true));
}
