//! HLL ops: the counts and result codes the official Python client's HLL tests expect from a
//! real server (same hash, same estimator: the counts match exactly).

mod common;
use bytes::Bytes;
use common::*;
use engine::cdt::BinChange;
use engine::hll::apply;
use engine::value::{List, Value};
use engine::Particle;

const READ: u8 = 15;
const MODIFY: u8 = 16;

fn keys(range: std::ops::Range<i64>) -> Value {
    Value::List(List {
        flags: 0,
        items: range.map(|i| s(&format!("key{i}"))).collect(),
    })
}

fn hll_p(b: &[u8]) -> Particle {
    Particle {
        ptype: 18,
        data: Bytes::from(b.to_vec()),
    }
}

/// Runs a modify op; returns (new bin bytes, result value).
fn modify(bin: Option<&[u8]>, code: i64, args: Vec<Value>) -> Result<(Option<Vec<u8>>, Value), u8> {
    let p = bin.map(hll_p);
    let r = apply(MODIFY, p.as_ref(), &op(code, args))?;
    let new = match r.bin {
        BinChange::Set(p) => Some(p.data.to_vec()),
        _ => bin.map(<[u8]>::to_vec),
    };
    Ok((new, r.value.map_or(Value::Nil, |p| dec(&p))))
}

fn read(bin: &[u8], code: i64, args: Vec<Value>) -> Result<Value, u8> {
    let r = apply(READ, Some(&hll_p(bin)), &op(code, args))?;
    Ok(r.value.map_or(Value::Nil, |p| dec(&p)))
}

fn made(items: Value, p: i64, m: i64) -> Vec<u8> {
    modify(None, 1, vec![items, i(p), i(m), i(0)])
        .unwrap()
        .0
        .unwrap()
}

fn hll(b: &[u8]) -> Value {
    Value::Bytes(18, b.to_vec())
}

fn list(items: Vec<Value>) -> Value {
    Value::List(List { flags: 0, items })
}

#[test]
fn counts_match_the_server() {
    let (h, added) = modify(None, 1, vec![keys(0..3), i(8), i(-1), i(0)]).unwrap();
    assert_eq!(added, i(3));
    let l = made(keys(0..100), 8, -1);
    assert_eq!(modify(Some(&l), 3, vec![]).unwrap().1, i(97));
    assert_eq!(read(&l, 50, vec![]), Ok(i(97)));
    assert_eq!(read(&h.unwrap(), 55, vec![]), Ok(l_(&[8, 0])));
    let big = made(keys(0..1000), 10, -1);
    let n = read(&big, 50, vec![]).unwrap().as_int().unwrap();
    assert!((n - 1000).abs() <= 1000 * 104 / 3200, "{n}");
}

fn l_(v: &[i64]) -> Value {
    list(v.iter().map(|&x| i(x)).collect())
}

#[test]
fn unions_intersections_and_similarity() {
    let a = made(keys(0..5), 10, -1);
    let u = made(keys(6..11), 10, -1);
    assert_eq!(read(&u, 52, vec![list(vec![hll(&a)])]), Ok(i(10)));
    let Ok(Value::Bytes(18, union)) = read(&a, 51, vec![list(vec![hll(&u)])]) else {
        panic!("no union")
    };
    assert_eq!(read(&u, 53, vec![list(vec![hll(&union)])]), Ok(i(5)));
    let full = made(keys(0..100), 8, -1);
    let half = made(keys(0..50), 8, -1);
    let Ok(Value::Float(j)) = read(&half, 54, vec![list(vec![hll(&full)])]) else {
        panic!("no similarity")
    };
    assert!((j - 0.5).abs() < 0.15, "{j}");
    // MinHash sketches of key0..key{x}: their intersection is key0.
    let mh: Vec<Vec<u8>> = (1..=5).map(|x| made(keys(0..x), 6, 12)).collect();
    let others = list(mh[..4].iter().map(|b| hll(b)).collect());
    assert_eq!(read(&mh[4], 53, vec![others]), Ok(i(1)));
    assert_eq!(read(&mh[4], 55, vec![]), Ok(l_(&[6, 12])));
    // More than two plain HLLs cannot be intersected.
    let plain = list((0..4).map(|_| hll(&full)).collect());
    assert_eq!(read(&full, 53, vec![plain]), Err(4));
    assert_eq!(read(&full, 52, vec![list(vec![])]), Err(4));
}

#[test]
fn init_fold_and_set_union() {
    assert_eq!(modify(None, 0, vec![i(0), i(0), i(0)]).map(|_| ()), Err(4));
    assert_eq!(modify(None, 0, vec![i(4), i(52), i(0)]).map(|_| ()), Err(4));
    assert_eq!(
        modify(None, 0, vec![i(17), i(48), i(0)]).map(|_| ()),
        Err(4)
    );
    assert!(modify(None, 0, vec![i(9), i(51), i(0)]).is_ok());
    let h = made(keys(0..5), 8, -1);
    let mh = made(keys(0..5), 6, 12);
    assert_eq!(
        modify(Some(&mh), 0, vec![i(6), i(8), i(1)]).map(|_| ()),
        Err(6)
    );
    assert_eq!(modify(None, 0, vec![i(6), i(8), i(2)]).map(|_| ()), Err(17));
    assert_eq!(
        modify(None, 1, vec![keys(0..3), i(-1), i(-1), i(1)]).map(|_| ()),
        Err(26)
    );
    assert_eq!(modify(None, 3, vec![]).map(|_| ()), Err(17));
    let (folded, _) = modify(Some(&h), 4, vec![i(6)]).unwrap();
    assert_eq!(read(&folded.unwrap(), 55, vec![]), Ok(l_(&[6, 0])));
    assert_eq!(modify(Some(&h), 4, vec![i(2)]).map(|_| ()), Err(4));
    assert_eq!(modify(Some(&mh), 4, vec![i(4)]).map(|_| ()), Err(26));
    // A union into a bin with more index bits needs allow_fold.
    let small = made(keys(0..3), 4, -1);
    let e = modify(None, 0, vec![i(10), i(-1), i(0)])
        .unwrap()
        .0
        .unwrap();
    assert_eq!(
        modify(Some(&e), 2, vec![list(vec![hll(&small)]), i(0)]).map(|_| ()),
        Err(26)
    );
    let (u, _) = modify(Some(&e), 2, vec![list(vec![hll(&small)]), i(8)]).unwrap();
    assert_eq!(read(&u.unwrap(), 55, vec![]), Ok(l_(&[4, 0])));
    // Not an HLL bin: bin type error; a bad sketch: parameter error.
    let r = apply(READ, Some(&int_p(1)), &op(50, vec![]));
    assert_eq!(r.map(|_| ()), Err(12));
    assert_eq!(read(&h, 52, vec![hll(&[0, 8, 0])]), Err(4));
}
