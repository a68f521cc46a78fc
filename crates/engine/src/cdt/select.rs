//! Element selection (index/rank/value/key ranges) and result building per return type.
//!
//! Elements are addressed by *index position* (list order for lists, key order for maps).

use crate::result::{OP_NOT_APPLICABLE, PARAMETER_ERROR};
use crate::value::{Map, Value, ValueSet};
use crate::ResultCode;

pub const RT_NONE: i64 = 0;
pub const RT_INDEX: i64 = 1;
pub const RT_REVERSE_INDEX: i64 = 2;
pub const RT_RANK: i64 = 3;
pub const RT_REVERSE_RANK: i64 = 4;
pub const RT_COUNT: i64 = 5;
pub const RT_KEY: i64 = 6;
pub const RT_VALUE: i64 = 7;
pub const RT_KEY_VALUE: i64 = 8;
pub const RT_EXISTS: i64 = 13;
pub const RT_UNORDERED_MAP: i64 = 16;
pub const RT_ORDERED_MAP: i64 = 17;
pub const RT_INVERTED: i64 = 0x10000;

/// A container seen in index order: `keys` (maps only) and `vals`.
pub struct Elems<'a> {
    pub keys: Option<Vec<&'a Value>>,
    pub vals: Vec<&'a Value>,
}

impl<'a> Elems<'a> {
    pub fn list(items: &'a [Value]) -> Self {
        Elems {
            keys: None,
            vals: items.iter().collect(),
        }
    }
    pub fn map(m: &'a Map) -> (Self, Vec<usize>) {
        let order = m.key_order();
        let keys = order.iter().map(|&i| &m.entries[i].0).collect();
        let vals = order.iter().map(|&i| &m.entries[i].1).collect();
        (
            Elems {
                keys: Some(keys),
                vals,
            },
            order,
        )
    }
    pub fn len(&self) -> usize {
        self.vals.len()
    }
    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }
    /// Index positions sorted by value (stable: ties keep index order).
    pub fn rank_order(&self) -> Vec<usize> {
        let mut r: Vec<usize> = (0..self.len()).collect();
        r.sort_by(|&a, &b| self.vals[a].cmp(self.vals[b]));
        r
    }
    fn keys_or_vals(&self) -> &Vec<&'a Value> {
        self.keys.as_ref().unwrap_or(&self.vals)
    }
}

/// Resolves a possibly negative single index; None when out of bounds.
pub fn one_index(i: i64, n: usize) -> Option<usize> {
    let n = n as i64;
    let r = if i < 0 { n + i } else { i };
    (0..n).contains(&r).then_some(r as usize)
}

/// `[start, end)` of `count` items from `index` (negative = from the end), clamped to `0..n`.
pub fn range(index: i64, count: Option<i64>, n: usize) -> (usize, usize) {
    let n_i = n as i64;
    let start = if index < 0 {
        n_i.saturating_add(index)
    } else {
        index
    };
    let end = match count {
        None => n_i,
        Some(c) if c < 0 => start,
        Some(c) => start.saturating_add(c),
    };
    let clamp = |v: i64| v.clamp(0, n_i) as usize;
    let (s, e) = (clamp(start), clamp(end));
    (s, e.max(s))
}

/// A selection: index positions in output order, and whether it came from a single-element op.
pub struct Sel {
    pub pos: Vec<usize>,
    pub single: bool,
}

impl Sel {
    pub fn many(pos: Vec<usize>) -> Self {
        Sel { pos, single: false }
    }
}

pub fn by_index(e: &Elems, index: i64) -> Result<Sel, ResultCode> {
    let p = one_index(index, e.len()).ok_or(OP_NOT_APPLICABLE)?;
    Ok(Sel {
        pos: vec![p],
        single: true,
    })
}

pub fn by_index_range(e: &Elems, index: i64, count: Option<i64>) -> Sel {
    let (s, t) = range(index, count, e.len());
    Sel::many((s..t).collect())
}

pub fn by_rank(e: &Elems, rank: i64) -> Result<Sel, ResultCode> {
    let p = one_index(rank, e.len()).ok_or(OP_NOT_APPLICABLE)?;
    Ok(Sel {
        pos: vec![e.rank_order()[p]],
        single: true,
    })
}

pub fn by_rank_range(e: &Elems, rank: i64, count: Option<i64>) -> Sel {
    let (s, t) = range(rank, count, e.len());
    Sel::many(e.rank_order()[s..t].to_vec())
}

/// Elements whose value (or key, for `keys`) equals `v`.
pub fn by_value(e: &Elems, v: &Value, keys: bool) -> Sel {
    let src = if keys { e.keys_or_vals() } else { &e.vals };
    Sel::many((0..e.len()).filter(|&i| src[i] == v).collect())
}

pub fn by_value_list(e: &Elems, vs: &[Value], keys: bool) -> Sel {
    let src = if keys { e.keys_or_vals() } else { &e.vals };
    let wanted = ValueSet::new(vs);
    Sel::many((0..e.len()).filter(|&i| wanted.contains(src[i])).collect())
}

/// Values (or keys) in `[begin, end)`; `end` None = infinity.
pub fn by_interval(e: &Elems, begin: &Value, end: Option<&Value>, keys: bool) -> Sel {
    let src = if keys { e.keys_or_vals() } else { &e.vals };
    let inside = |x: &Value| x >= begin && end.is_none_or(|t| x < t);
    let mut pos: Vec<usize> = (0..e.len()).filter(|&i| inside(src[i])).collect();
    if !keys {
        pos.sort_by(|&a, &b| e.vals[a].cmp(e.vals[b]));
    }
    Sel::many(pos)
}

/// Relative rank range: ranks counted from where `v` would sit in value order.
pub fn by_value_rel_rank(e: &Elems, v: &Value, rank: i64, count: Option<i64>) -> Sel {
    let order = e.rank_order();
    let base = order.partition_point(|&i| e.vals[i] < v) as i64;
    let sub = rel_window(base.saturating_add(rank), count, order.len());
    Sel::many(sub.map(|k| order[k]).collect())
}

/// Relative index range (maps): indexes counted from where key `k` would sit.
pub fn by_key_rel_index(e: &Elems, k: &Value, index: i64, count: Option<i64>) -> Sel {
    let keys = e.keys_or_vals();
    let base = keys.partition_point(|x| *x < k) as i64;
    Sel::many(rel_window(base.saturating_add(index), count, keys.len()).collect())
}

fn rel_window(start: i64, count: Option<i64>, n: usize) -> std::ops::Range<usize> {
    let end = match count {
        None => n as i64,
        Some(c) => start.saturating_add(c.max(0)),
    };
    let clamp = |v: i64| v.clamp(0, n as i64) as usize;
    clamp(start)..clamp(end).max(clamp(start))
}

/// Builds the op result for `sel` under `rt`; returns also the final selected positions (after
/// inversion) so the caller can remove them.
pub fn result(e: &Elems, mut sel: Sel, rt: i64) -> Result<(Option<Value>, Vec<usize>), ResultCode> {
    let n = e.len();
    if rt & RT_INVERTED != 0 {
        let mut chosen = vec![false; n];
        for &p in &sel.pos {
            if let Some(c) = chosen.get_mut(p) {
                *c = true;
            }
        }
        sel = Sel::many((0..n).filter(|&i| !chosen[i]).collect());
    }
    let rt = rt & !RT_INVERTED;
    let ranks = || {
        let mut r = vec![0usize; n];
        for (rank, &p) in e.rank_order().iter().enumerate() {
            r[p] = rank;
        }
        r
    };
    let ints = |v: Vec<i64>| -> Value {
        if sel.single {
            v.into_iter().next().map(Value::Int).unwrap_or(Value::Nil)
        } else {
            Value::List(crate::value::List {
                flags: 0,
                items: v.into_iter().map(Value::Int).collect(),
            })
        }
    };
    let vals = |src: &Vec<&Value>| -> Value {
        let items: Vec<Value> = sel.pos.iter().map(|&p| src[p].clone()).collect();
        if sel.single {
            items.into_iter().next().unwrap_or(Value::Nil)
        } else {
            Value::List(crate::value::List { flags: 0, items })
        }
    };
    let out = match rt {
        RT_NONE => None,
        RT_INDEX => Some(ints(sel.pos.iter().map(|&p| p as i64).collect())),
        RT_REVERSE_INDEX => Some(ints(sel.pos.iter().map(|&p| (n - 1 - p) as i64).collect())),
        RT_RANK => {
            let r = ranks();
            Some(ints(sel.pos.iter().map(|&p| r[p] as i64).collect()))
        }
        RT_REVERSE_RANK => {
            let r = ranks();
            Some(ints(
                sel.pos.iter().map(|&p| (n - 1 - r[p]) as i64).collect(),
            ))
        }
        RT_COUNT => Some(Value::Int(sel.pos.len() as i64)),
        RT_EXISTS => Some(Value::Bool(!sel.pos.is_empty())),
        RT_VALUE => Some(vals(&e.vals)),
        RT_KEY => Some(vals(e.keys.as_ref().ok_or(PARAMETER_ERROR)?)),
        RT_KEY_VALUE | RT_UNORDERED_MAP | RT_ORDERED_MAP => {
            let keys = e.keys.as_ref().ok_or(PARAMETER_ERROR)?;
            let entries = sel
                .pos
                .iter()
                .map(|&p| (keys[p].clone(), e.vals[p].clone()))
                .collect();
            let flags = if rt == RT_ORDERED_MAP { 1 } else { 0 };
            let mut m = Map { flags, entries };
            if flags != 0 {
                m.entries.sort_by(|a, b| a.0.cmp(&b.0));
            }
            Some(Value::Map(m))
        }
        _ => return Err(PARAMETER_ERROR),
    };
    Ok((out, sel.pos))
}
