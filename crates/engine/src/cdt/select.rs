//! Element selection (index/rank/value/key ranges) and result building per return type.
//!
//! Elements are addressed by *index position* (list order for lists, key order for maps).
//! Counts are unsigned on the wire: a negative count reads as a huge one ("to the end").
//! Result order follows a real server: values in the order its algorithm yields them (index
//! order for masks, rank order for rank ranges), index and rank lists as it builds them.

use super::rank_heap;
use crate::result::OP_NOT_APPLICABLE;
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

/// Map flag of a key/value result: pairs in the order given (clients read a list of pairs).
const PRESERVE_ORDER: u8 = 0x08;

/// A container seen in index order: `keys` (maps only) and `vals`.
pub struct Elems<'a> {
    pub keys: Option<Vec<&'a Value>>,
    pub vals: Vec<&'a Value>,
    /// An ordered list (index order is rank order).
    ordered_list: bool,
    /// Maps: the storage slot of each key-order position (the identity: maps store in key order).
    storage: Option<Vec<usize>>,
    /// A map without key order.
    unordered_map: bool,
}

impl<'a> Elems<'a> {
    pub fn list(items: &'a [Value], ordered: bool) -> Self {
        Elems {
            keys: None,
            vals: items.iter().collect(),
            ordered_list: ordered,
            storage: None,
            unordered_map: false,
        }
    }
    pub fn map(m: &'a Map) -> (Self, Vec<usize>) {
        let order = m.key_order();
        let keys = order.iter().map(|&i| &m.entries[i].0).collect();
        let vals = order.iter().map(|&i| &m.entries[i].1).collect();
        let e = Elems {
            keys: Some(keys),
            vals,
            ordered_list: false,
            storage: Some(order.clone()),
            unordered_map: !m.ordered(),
        };
        (e, order)
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
    fn unordered_list(&self) -> bool {
        self.keys.is_none() && !self.ordered_list
    }
}

/// Resolves a possibly negative single index; None when out of bounds.
pub fn one_index(i: i64, n: usize) -> Option<usize> {
    let n = n as i64;
    let r = if i < 0 { n + i } else { i };
    (0..n).contains(&r).then_some(r as usize)
}

/// A wire count: unsigned, so a negative one (or none) means "to the end".
fn wire_count(count: Option<i64>) -> u64 {
    count.map_or(u64::MAX, |c| c as u64)
}

/// `(start, count)` of `count` items from `index` (negative = from the end), clamped to `0..n`.
fn span(index: i64, count: u64, n: usize) -> (usize, usize) {
    let n_i = n as i64;
    if index >= n_i {
        return (n, 0);
    }
    let start = if index < 0 { n_i + index } else { index };
    if start < 0 {
        let before = start.unsigned_abs();
        let left = count.saturating_sub(before);
        return (0, left.min(n as u64) as usize);
    }
    let start = start as usize;
    (start, count.min((n - start) as u64) as usize)
}

/// `[start, end)` of [`span`].
pub fn range(index: i64, count: Option<i64>, n: usize) -> (usize, usize) {
    let (s, c) = span(index, wire_count(count), n);
    (s, s + c)
}

/// A range shifted by a relative base, as a server does: a start before 0 eats into the count.
fn relative(base: usize, offset: i64, count: Option<i64>) -> (i64, u64) {
    let start = (base as i64).saturating_add(offset);
    let count = wire_count(count);
    if start >= 0 {
        return (start, count);
    }
    (0, count.saturating_sub(start.unsigned_abs()))
}

/// How a selection's index or rank lists are built.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Span {
    /// From the selected positions (a mask).
    Mask,
    /// A run of indexes `(start, count)`.
    Index(usize, usize),
    /// A run of ranks `(start, count)`.
    Rank(usize, usize),
    /// A map's values asked for (elements from the mask).
    Listed,
    /// A map's keys asked for: elements from the mask, and no ranks.
    KeysListed,
}

/// A selection: index positions in output order, and whether it came from a single-element op.
pub struct Sel {
    pub pos: Vec<usize>,
    pub single: bool,
    span: Span,
    /// An inverted run that leaves one run (a head or a tail) is answered as that run.
    reducible: bool,
    /// Picked as a run of ranks (a rank range): a map lists its indexes in rank order.
    rank_range: bool,
}

impl Sel {
    pub fn many(pos: Vec<usize>) -> Self {
        Sel {
            pos,
            single: false,
            span: Span::Mask,
            reducible: false,
            rank_range: false,
        }
    }
    pub fn one(pos: Vec<usize>) -> Self {
        Sel {
            pos,
            single: true,
            span: Span::Mask,
            reducible: false,
            rank_range: false,
        }
    }
}

pub fn by_index(e: &Elems, index: i64) -> Result<Sel, ResultCode> {
    let p = one_index(index, e.len()).ok_or(OP_NOT_APPLICABLE)?;
    Ok(Sel::one(vec![p]))
}

pub fn by_index_range(e: &Elems, index: i64, count: Option<i64>) -> Sel {
    index_run(e, index, wire_count(count))
}

fn index_run(e: &Elems, index: i64, count: u64) -> Sel {
    let (s, c) = span(index, count, e.len());
    let mut sel = Sel::many((s..s + c).collect());
    sel.span = Span::Index(s, c);
    sel.reducible = true;
    sel
}

pub fn by_rank(e: &Elems, rank: i64) -> Result<Sel, ResultCode> {
    let r = one_index(rank, e.len()).ok_or(OP_NOT_APPLICABLE)?;
    let p = if e.unordered_list() {
        rank_heap::rank_run(&e.vals, r, 1)[0]
    } else {
        e.rank_order()[r]
    };
    let mut sel = Sel::one(vec![p]);
    sel.span = Span::Rank(r, 1);
    Ok(sel)
}

pub fn by_rank_range(e: &Elems, rank: i64, count: Option<i64>) -> Sel {
    rank_run(e, rank, wire_count(count))
}

fn rank_run(e: &Elems, rank: i64, count: u64) -> Sel {
    if e.ordered_list {
        return index_run(e, rank, count);
    }
    let n = e.len();
    let (s, c) = span(rank, count, n);
    let pos = if e.unordered_list() {
        rank_heap::rank_run(&e.vals, s, c)
    } else {
        e.rank_order()[s..s + c].to_vec()
    };
    let mut sel = Sel::many(pos);
    sel.span = Span::Rank(s, c);
    sel.reducible = e.keys.is_some();
    sel.rank_range = true;
    sel
}

/// Elements whose value (or key, for `keys`) equals `v`.
pub fn by_value(e: &Elems, v: &Value, keys: bool) -> Sel {
    if e.ordered_list {
        let below = e.vals.iter().filter(|x| **x < v).count();
        let equal = e.vals.iter().filter(|x| **x == v).count();
        return index_run(e, below as i64, equal as u64);
    }
    let src = if keys { e.keys_or_vals() } else { &e.vals };
    let mut sel = Sel::many((0..e.len()).filter(|&i| src[i] == v).collect());
    if !keys {
        // A real node finds a value as the run of ranks it occupies (inverted rank lists
        // come run by run).
        let below = e.vals.iter().filter(|x| **x < v).count();
        sel.span = Span::Rank(below, sel.pos.len());
    }
    sel
}

/// A map's elements whose value is one of `vs`. Index and rank lists of a value list come from
/// [`super::value_list`]; the elements come in stored order.
pub fn by_value_list(e: &Elems, vs: &[Value]) -> Sel {
    listed(&e.vals, vs, Span::Listed)
}

/// A map's elements whose key is one of `ks`. A real node refuses ranks of keys asked for (and
/// lists their indexes through [`super::value_list`]).
pub fn by_key_list(e: &Elems, ks: &[Value]) -> Sel {
    listed(e.keys_or_vals(), ks, Span::KeysListed)
}

fn listed(src: &[&Value], wanted: &[Value], span: Span) -> Sel {
    let wanted = ValueSet::new(wanted);
    let mut sel = Sel::many(
        (0..src.len())
            .filter(|&i| wanted.contains(src[i]))
            .collect(),
    );
    sel.span = span;
    sel
}

/// Values (or keys) in `[begin, end)`; `end` None = infinity. Elements come in index order.
pub fn by_interval(e: &Elems, begin: &Value, end: Option<&Value>, keys: bool) -> Sel {
    let src = if keys { e.keys_or_vals() } else { &e.vals };
    let inside = |x: &Value| x >= begin && end.is_none_or(|t| x < t);
    let pos: Vec<usize> = (0..e.len()).filter(|&i| inside(src[i])).collect();
    if keys {
        // Keys are stored in order: the interval is a run of indexes.
        let first = src.partition_point(|x| *x < begin);
        let count = pos.len();
        let mut sel = Sel::many(pos);
        sel.span = Span::Index(first, count);
        return sel;
    }
    let first_rank = e.vals.iter().filter(|x| **x < begin).count();
    let count = pos.len();
    if e.ordered_list {
        // An ordered list answers a value interval as the index run it occupies.
        return index_run(e, first_rank as i64, count as u64);
    }
    let mut sel = Sel::many(pos);
    sel.span = Span::Rank(first_rank, count);
    sel
}

/// Relative rank range: ranks counted from where `v` would sit in value order.
pub fn by_value_rel_rank(e: &Elems, v: &Value, rank: i64, count: Option<i64>) -> Sel {
    let base = e.vals.iter().filter(|x| **x < v).count();
    let (start, count) = relative(base, rank, count);
    rank_run(e, start, count)
}

/// Relative index range (maps): indexes counted from where key `k` would sit.
pub fn by_key_rel_index(e: &Elems, k: &Value, index: i64, count: Option<i64>) -> Sel {
    let base = e.keys_or_vals().partition_point(|x| *x < k);
    let (start, count) = relative(base, index, count);
    index_run(e, start, count)
}

/// An index or rank list from a run, the way a server writes it: reversed numbers count from
/// the end but each run stays ascending; inverted selections are the runs either side.
fn run_list(start: usize, count: usize, n: usize, inverted: bool, rev: bool) -> Vec<i64> {
    let runs = if inverted {
        vec![(0, start), (start + count, n - start - count)]
    } else {
        vec![(start, count)]
    };
    let mut out = Vec::new();
    for (s, c) in runs {
        let s = if rev { n - s - c } else { s };
        out.extend((s..s + c).map(|i| i as i64));
    }
    out
}

/// The complement of an index or rank run, as a plain run when it is one (all, a head, a tail);
/// returns the selection and whether it is still inverted.
fn reduce(e: &Elems, sel: Sel) -> (Sel, bool) {
    let n = e.len();
    let (s, c) = match sel.span {
        Span::Index(s, c) | Span::Rank(s, c) => (s, c),
        _ => return (sel, true),
    };
    let (s, c) = if c == 0 {
        (0, n)
    } else if s == 0 {
        (c, n - c)
    } else if s + c >= n {
        (0, s)
    } else {
        return (sel, true);
    };
    let sel = match sel.span {
        Span::Index(..) => index_run(e, s as i64, c as u64),
        _ => rank_run(e, s as i64, c as u64),
    };
    (sel, false)
}

/// EXISTS of an inverted selection on a map, where a real node does not answer whether anything
/// is left: a value or value interval, and a key interval of an unordered map, answer whether
/// nothing was selected (an empty map: whether the interval is one of keys); a rank run (an index
/// run, on an unordered map) whose complement lies on both sides of it answers false.
fn map_exists(e: &Elems, sel: &Sel) -> Option<bool> {
    let n = e.len();
    match sel.span {
        Span::Rank(..) if !sel.reducible => Some(n > 0 && sel.pos.is_empty()),
        Span::Index(..) if !sel.reducible && e.unordered_map => Some(sel.pos.is_empty()),
        Span::Rank(s, c) | Span::Index(s, c) if sel.reducible && s > 0 && c > 0 && s + c < n => {
            match sel.span {
                Span::Index(..) if !e.unordered_map => None,
                _ => Some(false),
            }
        }
        _ => None,
    }
}

/// Builds the op result for `sel` under `rt`; returns also the final selected positions (after
/// inversion) so the caller can remove them.
pub fn result(e: &Elems, sel: Sel, rt: i64) -> Result<(Option<Value>, Vec<usize>), ResultCode> {
    let n = e.len();
    let inverted = rt & RT_INVERTED != 0;
    let rt = rt & !RT_INVERTED;
    if inverted && sel.single {
        return Err(OP_NOT_APPLICABLE);
    }
    // Inverted, a map answers index and rank lists of everything when nothing was selected (an
    // unordered map's key interval picks elements one by one: not that one).
    let masked_keys = e.unordered_map && !sel.reducible && matches!(sel.span, Span::Index(..));
    let everything = inverted && e.keys.is_some() && sel.pos.is_empty() && !masked_keys;
    // Not inverted, a map's whole index run (key order) answers its ranks as a run.
    let whole_ranks = !inverted
        && e.keys.is_some()
        && sel.pos.len() == n
        && matches!(sel.span, Span::Index(..))
        && !masked_keys;
    let map_exists = (inverted && rt == RT_EXISTS && e.keys.is_some()).then(|| map_exists(e, &sel));
    let (sel, inverted) = if inverted && sel.reducible {
        reduce(e, sel)
    } else {
        (sel, inverted)
    };
    let pos = if inverted {
        let mut chosen = vec![false; n];
        for &p in &sel.pos {
            if let Some(c) = chosen.get_mut(p) {
                *c = true;
            }
        }
        (0..n).filter(|&i| !chosen[i]).collect()
    } else {
        sel.pos.clone()
    };
    // A mask lists elements in storage order (index order: maps too are stored by key).
    let mut mask = pos.clone();
    match &e.storage {
        Some(slot) => mask.sort_by_key(|&p| slot[p]),
        None => mask.sort_unstable(),
    }
    if sel.span == Span::KeysListed && matches!(rt, RT_RANK | RT_REVERSE_RANK) {
        return Err(OP_NOT_APPLICABLE);
    }
    let in_mask_order =
        inverted || matches!(sel.span, Span::Mask | Span::Listed | Span::KeysListed);
    let pos = if in_mask_order { mask.clone() } else { pos };
    let ranks = || {
        let order = e.rank_order();
        let mut r = vec![0usize; n];
        for (rank, &p) in order.iter().enumerate() {
            // An unordered list ranks an element by the values below it: equal ones share
            // their lowest rank.
            let tied = rank > 0 && e.vals[order[rank - 1]] == e.vals[p];
            r[p] = if e.unordered_list() && tied {
                r[order[rank - 1]]
            } else {
                rank
            };
        }
        r
    };
    let ints = |v: Vec<i64>| -> Value {
        if sel.single {
            v.into_iter().next().map_or(Value::Int(-1), Value::Int)
        } else {
            Value::List(crate::value::List {
                flags: 0,
                items: v.into_iter().map(Value::Int).collect(),
            })
        }
    };
    let vals = |src: &Vec<&Value>| -> Value {
        let items: Vec<Value> = pos.iter().map(|&p| src[p].clone()).collect();
        if sel.single {
            items.into_iter().next().unwrap_or(Value::Nil)
        } else {
            Value::List(crate::value::List { flags: 0, items })
        }
    };
    let out = match rt {
        RT_NONE => None,
        RT_INDEX | RT_REVERSE_INDEX => {
            let rev = rt == RT_REVERSE_INDEX;
            let index = |p: usize| if rev { n - 1 - p } else { p } as i64;
            Some(ints(match sel.span {
                _ if sel.rank_range && e.keys.is_some() && !inverted => {
                    let mut chosen = vec![false; n];
                    for &p in &pos {
                        chosen[p] = true;
                    }
                    let order = e.rank_order().into_iter();
                    order.filter(|&p| chosen[p]).map(index).collect()
                }
                _ if everything => run_list(0, n, n, false, rev),
                Span::Index(s, c) => run_list(s, c, n, inverted, rev),
                _ => mask.iter().map(|&p| index(p)).collect(),
            }))
        }
        RT_RANK | RT_REVERSE_RANK => {
            let rev = rt == RT_REVERSE_RANK;
            Some(ints(match sel.span {
                _ if everything || whole_ranks => run_list(0, n, n, false, rev),
                Span::Rank(s, c) => run_list(s, c, n, inverted, rev),
                // An ordered list's index run is its run of ranks; so is a whole list.
                Span::Index(s, c)
                    if e.ordered_list || (e.unordered_list() && c == n && !inverted) =>
                {
                    run_list(s, c, n, inverted, rev)
                }
                _ => {
                    let r = ranks();
                    mask.iter()
                        .map(|&p| if rev { n - 1 - r[p] } else { r[p] } as i64)
                        .collect()
                }
            }))
        }
        RT_COUNT => Some(Value::Int(pos.len() as i64)),
        RT_EXISTS if map_exists.is_some_and(|x| x.is_some()) => {
            map_exists.flatten().map(Value::Bool)
        }
        // Inverted, an unordered list's value or rank run answers whether nothing was selected
        // (a rank range leaving nothing answers false).
        RT_EXISTS if inverted && e.unordered_list() && matches!(sel.span, Span::Rank(..)) => {
            let left_nothing = sel.rank_range && pos.is_empty();
            Some(Value::Bool(sel.pos.is_empty() && !left_nothing))
        }
        RT_EXISTS => Some(Value::Bool(!pos.is_empty())),
        RT_VALUE => Some(vals(&e.vals)),
        RT_KEY => Some(vals(e.keys.as_ref().ok_or(OP_NOT_APPLICABLE)?)),
        RT_KEY_VALUE | RT_UNORDERED_MAP | RT_ORDERED_MAP => {
            let keys = e.keys.as_ref().ok_or(OP_NOT_APPLICABLE)?;
            let entries = pos
                .iter()
                .map(|&p| (keys[p].clone(), e.vals[p].clone()))
                .collect();
            let mut m = Map { flags: 0, entries };
            match rt {
                RT_KEY_VALUE => m.flags = PRESERVE_ORDER,
                RT_ORDERED_MAP => {
                    m.flags = 1;
                    m.entries.sort_by(|a, b| a.0.cmp(&b.0));
                }
                _ => {}
            }
            Some(Value::Map(m))
        }
        _ => return Err(OP_NOT_APPLICABLE),
    };
    Ok((out, pos))
}
