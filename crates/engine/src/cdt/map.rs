//! CDT map operations (op codes 64..=110).

use super::args::Args;
use super::list::{add_num, remove_positions};
use super::select::{self as s, Elems, Sel};
use super::value_list;
use crate::result::{ELEMENT_EXISTS, ELEMENT_NOT_FOUND, PARAMETER_ERROR};
use crate::value::{Map, Value};
use crate::ResultCode;

const CREATE_ONLY: i64 = 1;
const UPDATE_ONLY: i64 = 2;
const NO_FAIL: i64 = 4;
const PARTIAL: i64 = 8;

/// Whether op `code` creates the map when the bin is missing.
pub fn creates(code: i64) -> bool {
    matches!(code, 64..=68 | 73 | 74)
}

/// Whether op `code` is a read op.
pub fn is_read(code: i64) -> bool {
    matches!(code, 96..=110)
}

/// The order attribute argument position of a creating op, if it has one.
pub fn attr_arg(code: i64) -> Option<usize> {
    match code {
        65 | 67 | 73 | 74 => Some(2),
        66 | 68 => Some(1),
        64 => Some(0),
        _ => None,
    }
}

/// Applies map op `code` to `m`; returns the client result.
pub fn apply(m: &mut Map, code: i64, a: &Args) -> Result<Option<Value>, ResultCode> {
    match code {
        64 => {
            set_order(m, a.int(0)? as u8);
            Ok(None)
        }
        65 => put(m, vec![(a.val(0)?, a.val(1)?)], CREATE_ONLY),
        66 => put(m, items(a)?, CREATE_ONLY),
        67 => put(m, vec![(a.val(0)?, a.val(1)?)], a.opt_int(3)?.unwrap_or(0)),
        68 => put(m, items(a)?, a.opt_int(2)?.unwrap_or(0)),
        69 => put(m, vec![(a.val(0)?, a.val(1)?)], UPDATE_ONLY),
        70 => put(m, items(a)?, UPDATE_ONLY),
        73 | 74 => {
            let key = map_key(a.val(0)?)?;
            let mut delta = a.opt_val(1)?.unwrap_or(Value::Int(1));
            if code == 74 {
                delta = match delta {
                    Value::Int(i) => Value::Int(i.wrapping_neg()),
                    Value::Float(f) => Value::Float(-f),
                    _ => return Err(PARAMETER_ERROR),
                };
            }
            let cur = m
                .find(&key)
                .map(|i| m.entries[i].1.clone())
                .unwrap_or(Value::Nil);
            let new = add_num(&cur, &delta)?;
            m.put(key, new.clone());
            Ok(Some(new))
        }
        75 => {
            m.entries.clear();
            Ok(None)
        }
        96 => Ok(Some(Value::Int(m.entries.len() as i64))),
        97..=110 => select(m, code, a, false),
        76..=89 => {
            let get = match code {
                76 => 97,
                77 => 98,
                79 => 100,
                81 => 107,
                82 => 102,
                83 => 108,
                84 => 103,
                85 => 104,
                86 => 105,
                87 => 106,
                88 => 109,
                89 => 110,
                _ => return Err(PARAMETER_ERROR),
            };
            select(m, get, a, true)
        }
        _ => Err(PARAMETER_ERROR),
    }
}

fn items(a: &Args) -> Result<Vec<(Value, Value)>, ResultCode> {
    match a.val(0)? {
        Value::Map(m) => Ok(m.entries),
        _ => Err(PARAMETER_ERROR),
    }
}

/// Changes the map order attribute (0, 1, 3; persist bit 0x10 kept).
pub fn set_order(m: &mut Map, attr: u8) {
    m.flags = attr & 0x13;
    m.sort();
}

/// A key a map may store: an integer, a string or bytes.
fn map_key(k: Value) -> Result<Value, ResultCode> {
    match k {
        Value::Int(_) | Value::Str(_) | Value::Bytes(..) => Ok(k),
        _ => Err(PARAMETER_ERROR),
    }
}

/// put with write flags; returns the new size.
fn put(m: &mut Map, kvs: Vec<(Value, Value)>, flags: i64) -> Result<Option<Value>, ResultCode> {
    for (k, v) in accepted(m, kvs, flags)?.unwrap_or_default() {
        m.put(k, v);
    }
    Ok(size(m))
}

/// The pairs a put writes under `flags`; None when a refused pair, under NO_FAIL without
/// PARTIAL, leaves the map as it was.
fn accepted(
    m: &Map,
    kvs: Vec<(Value, Value)>,
    flags: i64,
) -> Result<Option<Vec<(Value, Value)>>, ResultCode> {
    let mut ok = Vec::with_capacity(kvs.len());
    for (k, v) in kvs {
        let k = map_key(k)?;
        let exists = m.find(&k).is_some();
        let err = if flags & CREATE_ONLY != 0 && exists {
            Some(ELEMENT_EXISTS)
        } else if flags & UPDATE_ONLY != 0 && !exists {
            Some(ELEMENT_NOT_FOUND)
        } else {
            None
        };
        match err {
            None => ok.push((k, v)),
            Some(_) if flags & NO_FAIL != 0 && flags & PARTIAL != 0 => {}
            Some(_) if flags & NO_FAIL != 0 => return Ok(None),
            Some(e) => return Err(e),
        }
    }
    Ok(Some(ok))
}

fn size(m: &Map) -> Option<Value> {
    Some(Value::Int(m.entries.len() as i64))
}

/// get_by_* (97..=110) and, with `remove`, remove_by_*.
fn select(m: &mut Map, get_code: i64, a: &Args, remove: bool) -> Result<Option<Value>, ResultCode> {
    let rt = a.int(0)?;
    let ordered = m.ordered();
    let (out, storage) = {
        let (e, order) = Elems::map(m);
        let listed = match get_code {
            107 | 108 => {
                let asked = a.list(1)?.items;
                value_list::in_map(&e, get_code == 107, ordered, &asked, rt)
            }
            _ => None,
        };
        let (out, pos) = match listed {
            Some(answer) => answer?,
            None => s::result(&e, selection(&e, get_code, a, ordered, rt)?, rt)?,
        };
        let storage: Vec<usize> = pos.iter().filter_map(|&p| order.get(p).copied()).collect();
        (out, storage)
    };
    if remove {
        remove_positions(&mut m.entries, storage);
    }
    Ok(out)
}

/// The elements get_by_* op `get_code` selects.
fn selection(
    e: &Elems,
    get_code: i64,
    a: &Args,
    ordered: bool,
    rt: i64,
) -> Result<Sel, ResultCode> {
    Ok(match get_code {
        97 => {
            // A key-ordered map answers an inverted key lookup as a range; an unordered
            // one refuses it like any single-element op.
            let mut sel = s::by_value(e, &a.val(1)?, true);
            sel.single = !(ordered && rt & s::RT_INVERTED != 0);
            sel
        }
        98 => s::by_index(e, a.int(1)?)?,
        100 => s::by_rank(e, a.int(1)?)?,
        102 => s::by_value(e, &a.val(1)?, false),
        103 => s::by_interval(e, &a.val(1)?, a.opt_val(2)?.as_ref(), true),
        104 => s::by_index_range(e, a.int(1)?, a.opt_int(2)?),
        105 => s::by_interval(e, &a.val(1)?, a.opt_val(2)?.as_ref(), false),
        106 => s::by_rank_range(e, a.int(1)?, a.opt_int(2)?),
        107 => s::by_key_list(e, &a.list(1)?.items),
        108 => s::by_value_list(e, &a.list(1)?.items),
        109 => s::by_key_rel_index(e, &a.val(1)?, a.int(2)?, a.opt_int(3)?),
        110 => s::by_value_rel_rank(e, &a.val(1)?, a.int(2)?, a.opt_int(3)?),
        _ => return Err(PARAMETER_ERROR),
    })
}
