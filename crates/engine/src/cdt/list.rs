//! CDT list operations (op codes 0..=40).

use std::collections::BTreeSet;

use super::args::Args;
use super::select::{self as s, Elems, Sel};
use super::value_list;
use crate::result::{ELEMENT_EXISTS, OP_NOT_APPLICABLE, PARAMETER_ERROR};
use crate::value::{List, Value, ValueSet};
use crate::ResultCode;

const ADD_UNIQUE: i64 = 1;
const INSERT_BOUNDED: i64 = 2;
const NO_FAIL: i64 = 4;
const PARTIAL: i64 = 8;

/// Whether op `code` changes the list (and creates the bin when missing).
pub fn creates(code: i64) -> bool {
    matches!(code, 0..=4 | 9 | 12)
}

/// Whether op `code` is a read op.
pub fn is_read(code: i64) -> bool {
    matches!(code, 16..=28)
}

/// Applies list op `code` to `l`; returns the client result.
pub fn apply(l: &mut List, code: i64, a: &Args) -> Result<Option<Value>, ResultCode> {
    match code {
        0 => {
            let attr = a.int(0)? as u8;
            l.flags = attr & 0x11;
            if l.ordered() {
                l.items.sort();
            }
            Ok(None)
        }
        1 => add_items(l, vec![a.val(0)?], a.opt_int(2)?.unwrap_or(0)),
        2 => add_items(l, a.list(0)?.items, a.opt_int(2)?.unwrap_or(0)),
        3 => insert(l, a.int(0)?, vec![a.val(1)?], a.opt_int(2)?.unwrap_or(0)),
        4 => insert(l, a.int(0)?, a.list(1)?.items, a.opt_int(2)?.unwrap_or(0)),
        5 => {
            let p = s::one_index(a.int(0)?, l.items.len()).ok_or(OP_NOT_APPLICABLE)?;
            Ok(Some(l.items.remove(p)))
        }
        6 => {
            let (b, e) = s::range(a.int(0)?, a.opt_int(1)?, l.items.len());
            let items: Vec<Value> = l.items.drain(b..e).collect();
            Ok(Some(Value::List(List { flags: 0, items })))
        }
        7 => {
            let p = s::one_index(a.int(0)?, l.items.len()).ok_or(OP_NOT_APPLICABLE)?;
            l.items.remove(p);
            Ok(Some(Value::Int(1)))
        }
        8 => {
            let (b, e) = s::range(a.int(0)?, a.opt_int(1)?, l.items.len());
            l.items.drain(b..e);
            Ok(Some(Value::Int((e - b) as i64)))
        }
        9 => set(l, a.int(0)?, a.val(1)?, a.opt_int(2)?.unwrap_or(0)),
        10 => {
            let n = l.items.len();
            let (b, e) = s::range(a.int(0)?, Some(a.int(1)?), n);
            l.items.truncate(e);
            l.items.drain(..b);
            Ok(Some(Value::Int((n - l.items.len()) as i64)))
        }
        11 => {
            l.items.clear();
            Ok(None)
        }
        12 => increment(l, a.int(0)?, a.opt_val(1)?, a.opt_int(3)?.unwrap_or(0)),
        13 => {
            let flags = a.opt_int(0)?.unwrap_or(0);
            if refuses_sort(l, flags) {
                return Err(PARAMETER_ERROR);
            }
            l.items.sort();
            if flags & 2 != 0 {
                l.items.dedup();
            }
            if flags & 1 != 0 && !l.ordered() {
                l.items.reverse();
            }
            Ok(None)
        }
        16 => Ok(Some(Value::Int(l.items.len() as i64))),
        17 => {
            let p = s::one_index(a.int(0)?, l.items.len()).ok_or(OP_NOT_APPLICABLE)?;
            Ok(Some(l.items[p].clone()))
        }
        18 => {
            let (b, e) = s::range(a.int(0)?, a.opt_int(1)?, l.items.len());
            Ok(Some(Value::List(List {
                flags: 0,
                items: l.items[b..e].to_vec(),
            })))
        }
        19..=27 => select(l, code, a, false),
        32..=40 => select(l, code - 13, a, true),
        _ => Err(PARAMETER_ERROR),
    }
}

/// get_by_* (19..=27) and, with `remove`, remove_by_*.
/// A server drops duplicates from an ascending order only: a descending sort that drops
/// duplicates is refused when the unordered list holds two distinct values.
fn refuses_sort(l: &List, flags: i64) -> bool {
    flags & 3 == 3 && !l.ordered() && l.items.windows(2).any(|w| w[0] != w[1])
}

fn select(
    l: &mut List,
    get_code: i64,
    a: &Args,
    remove: bool,
) -> Result<Option<Value>, ResultCode> {
    let rt = a.int(0)?;
    let (out, pos) = if get_code == 23 {
        value_list::answer(&l.items, l.ordered(), &a.list(1)?.items, rt)?
    } else {
        let e = Elems::list(&l.items, l.ordered());
        let sel: Sel = match get_code {
            19 => s::by_index(&e, a.int(1)?)?,
            21 => s::by_rank(&e, a.int(1)?)?,
            22 => s::by_value(&e, &a.val(1)?, false),
            24 => s::by_index_range(&e, a.int(1)?, a.opt_int(2)?),
            25 => s::by_interval(&e, &a.val(1)?, a.opt_val(2)?.as_ref(), false),
            26 => s::by_rank_range(&e, a.int(1)?, a.opt_int(2)?),
            27 => s::by_value_rel_rank(&e, &a.val(1)?, a.int(2)?, a.opt_int(3)?),
            _ => return Err(PARAMETER_ERROR),
        };
        s::result(&e, sel, rt)?
    };
    if remove {
        remove_positions(&mut l.items, pos);
    }
    Ok(out)
}

/// Removes the given positions (any order) from `items`.
pub fn remove_positions<T>(items: &mut Vec<T>, mut pos: Vec<usize>) {
    pos.sort_unstable();
    pos.dedup();
    for p in pos.into_iter().rev() {
        if p < items.len() {
            items.remove(p);
        }
    }
}

fn fail(flags: i64, code: ResultCode) -> Result<(), ResultCode> {
    if flags & NO_FAIL != 0 {
        Ok(())
    } else {
        Err(code)
    }
}

/// Filters `vals` by the add-unique rule; Err when the op must fail, Ok(None) when it must be a
/// silent no-op.
fn unique_filter(l: &List, vals: Vec<Value>, flags: i64) -> Result<Option<Vec<Value>>, ResultCode> {
    if flags & ADD_UNIQUE == 0 {
        return Ok(Some(vals));
    }
    let present = ValueSet::new(&l.items);
    // Values kept so far: ordered ones in a set, ones holding a wildcard tried one by one.
    let mut seen: BTreeSet<&Value> = BTreeSet::new();
    let mut seen_wild: Vec<&Value> = Vec::new();
    let mut take = Vec::with_capacity(vals.len());
    for v in &vals {
        let wild = v.has_wildcard();
        let dup = present.contains(v)
            || seen_wild.contains(&v)
            || if wild {
                seen.iter().any(|s| *s == v) // a BTreeSet lookup needs an order
            } else {
                seen.contains(v)
            };
        if dup {
            if flags & PARTIAL != 0 && flags & NO_FAIL != 0 {
                take.push(false);
                continue;
            }
            fail(flags, ELEMENT_EXISTS)?;
            return Ok(None);
        }
        take.push(true);
        if wild {
            seen_wild.push(v);
        } else {
            seen.insert(v);
        }
    }
    let keep = vals
        .into_iter()
        .zip(take)
        .filter_map(|(v, t)| t.then_some(v));
    Ok(Some(keep.collect()))
}

fn size(l: &List) -> Option<Value> {
    Some(Value::Int(l.items.len() as i64))
}

fn add_items(l: &mut List, vals: Vec<Value>, flags: i64) -> Result<Option<Value>, ResultCode> {
    let Some(vals) = unique_filter(l, vals, flags)? else {
        return Ok(size(l));
    };
    for v in vals {
        if l.ordered() {
            let at = l.items.partition_point(|x| *x <= v);
            l.items.insert(at, v);
        } else {
            l.items.push(v);
        }
    }
    Ok(size(l))
}

fn insert(
    l: &mut List,
    index: i64,
    vals: Vec<Value>,
    flags: i64,
) -> Result<Option<Value>, ResultCode> {
    if l.ordered() {
        return Err(OP_NOT_APPLICABLE);
    }
    let at = write_index(index, l.items.len())?;
    if at > l.items.len() && flags & INSERT_BOUNDED != 0 {
        fail(flags, OP_NOT_APPLICABLE)?;
        return Ok(size(l));
    }
    let Some(vals) = unique_filter(l, vals, flags)? else {
        return Ok(size(l));
    };
    if at > l.items.len() {
        l.items.resize(at, Value::Nil);
    }
    l.items.splice(at..at, vals);
    Ok(size(l))
}

/// A write position: an index from the end resolved; one before the start (or past
/// `i32::MAX`) is refused whatever the flags, as a server refuses it.
fn write_index(index: i64, n: usize) -> Result<usize, ResultCode> {
    let at = if index < 0 { n as i64 + index } else { index };
    if at < 0 || index > i64::from(i32::MAX) {
        return Err(OP_NOT_APPLICABLE);
    }
    Ok(at as usize)
}

fn set(l: &mut List, index: i64, v: Value, flags: i64) -> Result<Option<Value>, ResultCode> {
    if l.ordered() {
        return Err(OP_NOT_APPLICABLE);
    }
    let at = write_index(index, l.items.len())?;
    put_at(l, at, v, flags)?;
    Ok(None)
}

/// Stores `v` at `at` of an unordered list (past the end: inserted there, nil padded; bounded,
/// only at the end); a refused write under NO_FAIL is a silent no-op.
fn put_at(l: &mut List, at: usize, v: Value, flags: i64) -> Result<(), ResultCode> {
    let n = l.items.len();
    if at > n && flags & INSERT_BOUNDED != 0 {
        return fail(flags, OP_NOT_APPLICABLE);
    }
    if flags & ADD_UNIQUE != 0 && l.items.iter().enumerate().any(|(i, x)| i != at && *x == v) {
        return fail(flags, ELEMENT_EXISTS);
    }
    if at >= n {
        l.items.resize(at + 1, Value::Nil);
    }
    l.items[at] = v;
    Ok(())
}

/// Adds `delta` to a numeric value (int stays int, float stays float).
pub fn add_num(cur: &Value, delta: &Value) -> Result<Value, ResultCode> {
    Ok(match (cur, delta) {
        (Value::Nil, d @ (Value::Int(_) | Value::Float(_))) => d.clone(),
        (Value::Int(a), Value::Int(b)) => Value::Int(a.wrapping_add(*b)),
        (Value::Int(a), Value::Float(b)) => Value::Int(a.wrapping_add(*b as i64)),
        (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
        (Value::Float(a), Value::Int(b)) => Value::Float(a + *b as f64),
        _ => return Err(PARAMETER_ERROR),
    })
}

/// Adds `delta` (nil: 1) to the number at `index`; past the end the delta itself is stored.
/// The result is the new number, also when a NO_FAIL write is dropped. Any element other than
/// a number (nil included) is a parameter error.
fn increment(
    l: &mut List,
    index: i64,
    delta: Option<Value>,
    flags: i64,
) -> Result<Option<Value>, ResultCode> {
    let at = write_index(index, l.items.len())?;
    let delta = match delta {
        None | Some(Value::Nil) => Value::Int(1),
        Some(d @ (Value::Int(_) | Value::Float(_))) => d,
        Some(_) => return Err(PARAMETER_ERROR),
    };
    let new = match l.items.get(at) {
        Some(cur @ (Value::Int(_) | Value::Float(_))) => add_num(cur, &delta)?,
        Some(_) => return Err(PARAMETER_ERROR),
        None => delta,
    };
    if l.ordered() {
        replace_ordered(l, at, new.clone(), flags)?;
    } else {
        put_at(l, at, new.clone(), flags)?;
    }
    Ok(Some(new))
}

/// Replaces element `at` of an ordered list by `v` (at the end: adds `v`), kept sorted.
/// Unique, a value already present is refused unless it is the element replaced (the first of
/// its equals), which is left as it is.
fn replace_ordered(l: &mut List, at: usize, v: Value, flags: i64) -> Result<(), ResultCode> {
    if at > l.items.len() {
        return Err(OP_NOT_APPLICABLE);
    }
    let first_equal = l.items.partition_point(|x| *x < v);
    if flags & ADD_UNIQUE != 0 && l.items.get(first_equal) == Some(&v) {
        if first_equal == at {
            return Ok(());
        }
        return fail(flags, ELEMENT_EXISTS);
    }
    if at < l.items.len() {
        l.items.remove(at);
    }
    let p = l.items.partition_point(|x| *x < v);
    l.items.insert(p, v);
    Ok(())
}
