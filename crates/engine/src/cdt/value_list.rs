//! Elements asked for by a list of values (a list's values, a map's keys or values), answered as
//! a real node answers get/remove by value list and by key list.
//!
//! A node finds each value asked as the run of ranks its equals occupy, on one of two roads.
//! *Per value* (an ordered list, a key-ordered map's keys, a map of at most one element): run
//! by run in the order asked, repeats included (a value asked twice is answered twice).
//! *Per distinct value* (otherwise): each distinct value's run goes to the last value asked
//! equal to it, and its ranks are listed one by one in the order asked; inverted, the ranks left
//! come run by run. Index lists of a list's or a map's values come in index order either way,
//! and counts, elements and removals take each element once.

use std::cmp::Ordering;

use super::select::{
    Elems, RT_COUNT, RT_EXISTS, RT_INDEX, RT_INVERTED, RT_NONE, RT_RANK, RT_REVERSE_INDEX,
    RT_REVERSE_RANK, RT_VALUE,
};
use crate::result::OP_NOT_APPLICABLE;
use crate::value::{List, Value};
use crate::ResultCode;

/// `(start, count)` of ranks.
type Run = (usize, usize);

/// An op's result and the positions it selects (each once, ascending), to remove them.
type Answer = (Option<Value>, Vec<usize>);

/// Get/remove by value list on a list's `items`, for return type `rt`.
pub fn answer(
    items: &[Value],
    ordered: bool,
    asked: &[Value],
    rt: i64,
) -> Result<Answer, ResultCode> {
    let inverted = rt & RT_INVERTED != 0;
    let rt = rt & !RT_INVERTED;
    if asked.is_empty() && inverted {
        return everything(items, rt);
    }
    let of: Vec<&Value> = items.iter().collect();
    let found = Found::new(&of, ordered, ordered, asked, inverted);
    let rev = matches!(rt, RT_REVERSE_INDEX | RT_REVERSE_RANK);
    let out = match rt {
        RT_NONE => None,
        RT_INDEX | RT_REVERSE_INDEX | RT_RANK | RT_REVERSE_RANK => {
            let by_rank = matches!(rt, RT_RANK | RT_REVERSE_RANK);
            Some(ints(found.numbers(by_rank, rev)))
        }
        RT_COUNT => Some(Value::Int(found.pos.len() as i64)),
        RT_EXISTS => Some(Value::Bool(!found.pos.is_empty())),
        RT_VALUE if ordered && !inverted => Some(values(
            found.runs.iter().flat_map(|&(s, c)| items[s..s + c].iter()),
        )),
        RT_VALUE => Some(values(found.pos.iter().map(|&p| &items[p]))),
        _ => return Err(OP_NOT_APPLICABLE),
    };
    Ok((out, found.pos))
}

/// Index or rank lists of a map's keys (`by_key`) or values asked for; None for the answers
/// that take elements once ([`super::select::result`] gives those) and when nothing is asked.
pub fn in_map(
    e: &Elems,
    by_key: bool,
    key_ordered: bool,
    asked: &[Value],
    rt: i64,
) -> Option<Result<Answer, ResultCode>> {
    let inverted = rt & RT_INVERTED != 0;
    let rt = rt & !RT_INVERTED;
    let by_rank = matches!(rt, RT_RANK | RT_REVERSE_RANK);
    if asked.is_empty() || !(by_rank || matches!(rt, RT_INDEX | RT_REVERSE_INDEX)) {
        return None;
    }
    let of = match (by_key, &e.keys) {
        (true, Some(keys)) if !by_rank => keys,
        (true, _) => return Some(Err(OP_NOT_APPLICABLE)),
        (false, _) => &e.vals,
    };
    let per_value = if by_key { key_ordered } else { of.len() <= 1 };
    let found = Found::new(of, by_key, per_value, asked, inverted);
    let rev = matches!(rt, RT_REVERSE_INDEX | RT_REVERSE_RANK);
    // Keys are stored in order: their indexes are their ranks.
    let numbers = found.numbers(by_rank || by_key, rev);
    Some(Ok((Some(ints(numbers)), found.pos)))
}

/// No value asked, inverted: a node takes the whole list as one run of indexes.
fn everything(items: &[Value], rt: i64) -> Result<Answer, ResultCode> {
    let n = items.len();
    let out = match rt {
        RT_NONE => None,
        RT_INDEX | RT_REVERSE_INDEX | RT_RANK | RT_REVERSE_RANK => {
            Some(ints((0..n as i64).collect()))
        }
        RT_COUNT => Some(Value::Int(n as i64)),
        RT_EXISTS => Some(Value::Bool(n > 0)),
        RT_VALUE => Some(values(items.iter())),
        _ => return Err(OP_NOT_APPLICABLE),
    };
    Ok((out, (0..n).collect()))
}

/// What a value list finds in `of` (values in index order).
struct Found {
    n: usize,
    per_value: bool,
    inverted: bool,
    /// Per value asked, in the order asked, the run of ranks it answers (count 0: none).
    runs: Vec<Run>,
    /// Per rank, whether it is selected (after inversion).
    ranks: Vec<bool>,
    /// Selected positions (after inversion), ascending.
    pos: Vec<usize>,
}

impl Found {
    fn new(of: &[&Value], sorted: bool, per_value: bool, asked: &[Value], inverted: bool) -> Self {
        let n = of.len();
        let by_rank = rank_order(of, sorted);
        let in_order: Vec<&Value> = by_rank.iter().map(|&p| of[p]).collect();
        let runs = if per_value {
            asked.iter().map(|v| rank_run(&in_order, v)).collect()
        } else {
            last_of_equals(&in_order, asked)
        };
        let ranks = covered(&runs, n, inverted);
        let mut chosen = vec![false; n];
        for (rank, &p) in by_rank.iter().enumerate() {
            chosen[p] = ranks[rank];
        }
        let pos = (0..n).filter(|&p| chosen[p]).collect();
        Found {
            n,
            per_value,
            inverted,
            runs,
            ranks,
            pos,
        }
    }

    /// An index list (`by_rank` false) or rank list, reversed numbers counted from the end.
    fn numbers(&self, by_rank: bool, rev: bool) -> Vec<i64> {
        let n = self.n;
        let one = |i: usize| if rev { n - 1 - i } else { i } as i64;
        match (self.per_value, self.inverted, by_rank) {
            (true, false, _) => self.runs.iter().flat_map(|&r| run(r, n, rev)).collect(),
            (false, false, true) => self
                .runs
                .iter()
                .flat_map(|&(s, c)| s..s + c)
                .map(one)
                .collect(),
            (false, true, true) => gaps(&self.ranks)
                .into_iter()
                .flat_map(|r| run(r, n, rev))
                .collect(),
            _ => self.pos.iter().map(|&p| one(p)).collect(),
        }
    }
}

/// Positions in rank order (ties in index order); values already sorted are their own order.
fn rank_order(of: &[&Value], sorted: bool) -> Vec<usize> {
    let mut r: Vec<usize> = (0..of.len()).collect();
    if !sorted {
        r.sort_by(|&a, &b| of[a].cmp(of[b]));
    }
    r
}

/// The ranks of `in_order` (values in rank order) equal to `v`.
fn rank_run(in_order: &[&Value], v: &Value) -> Run {
    let start = in_order.partition_point(|x| *x < v);
    let end = start + in_order[start..].partition_point(|x| *x <= v);
    (start, end - start)
}

/// Per value asked, its run of ranks when it is the last value asked equal to it, else none.
fn last_of_equals(in_order: &[&Value], asked: &[Value]) -> Vec<Run> {
    let mut order: Vec<usize> = (0..asked.len()).collect();
    order.sort_by(|&a, &b| asked[a].cmp(&asked[b]));
    let mut runs = vec![(0, 0); asked.len()];
    for (i, &at) in order.iter().enumerate() {
        let next = order.get(i + 1).map(|&b| asked[at].cmp(&asked[b]));
        if next != Some(Ordering::Equal) {
            runs[at] = rank_run(in_order, &asked[at]);
        }
    }
    runs
}

/// Ranks inside any of `runs` (outside, when inverted), in O(n + runs).
fn covered(runs: &[Run], n: usize, inverted: bool) -> Vec<bool> {
    let mut depth = vec![0i64; n + 1];
    for &(s, c) in runs {
        depth[s] += 1;
        depth[s + c] -= 1;
    }
    let mut inside = 0;
    (0..n)
        .map(|r| {
            inside += depth[r];
            (inside > 0) != inverted
        })
        .collect()
}

/// The maximal runs of chosen ranks, ascending.
fn gaps(chosen: &[bool]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut start = None;
    for (r, &c) in chosen.iter().chain([&false]).enumerate() {
        match (c, start) {
            (true, None) => start = Some(r),
            (false, Some(s)) => {
                out.push((s, r - s));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The numbers of a run, ascending; reversed ones counted from the end.
fn run((start, count): Run, n: usize, rev: bool) -> impl Iterator<Item = i64> {
    let first = if rev { n - start - count } else { start };
    (first..first + count).map(|i| i as i64)
}

fn ints(numbers: Vec<i64>) -> Value {
    Value::List(List {
        flags: 0,
        items: numbers.into_iter().map(Value::Int).collect(),
    })
}

fn values<'a>(of: impl Iterator<Item = &'a Value>) -> Value {
    Value::List(List {
        flags: 0,
        items: of.cloned().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Map;

    fn ints_of(v: &[i64]) -> Vec<Value> {
        v.iter().map(|&i| Value::Int(i)).collect()
    }

    fn get(items: &[i64], ordered: bool, asked: &[i64], rt: i64) -> Option<Value> {
        answer(&ints_of(items), ordered, &ints_of(asked), rt)
            .unwrap()
            .0
    }

    fn list(v: &[i64]) -> Option<Value> {
        Some(ints(v.to_vec()))
    }

    #[test]
    fn an_ordered_list_answers_each_value_asked_repeats_included() {
        let stored = [0, 1, 1, 2];
        assert_eq!(
            get(&stored, true, &[1, 0, 1], RT_VALUE),
            list(&[1, 1, 0, 1, 1])
        );
        assert_eq!(
            get(&stored, true, &[1, 0, 1], RT_INDEX),
            list(&[1, 2, 0, 1, 2])
        );
        let rev = get(&stored, true, &[1, 0, 1], RT_REVERSE_RANK);
        assert_eq!(rev, list(&[1, 2, 3, 1, 2]));
        assert_eq!(get(&[0], true, &[0, 0], RT_VALUE), list(&[0, 0]));
        assert_eq!(get(&stored, true, &[2, 9, 0], RT_INDEX), list(&[3, 0]));
    }

    #[test]
    fn counts_and_removals_take_each_element_once() {
        let (out, pos) = answer(
            &ints_of(&[0, 1, 1, 2]),
            true,
            &ints_of(&[1, 0, 1]),
            RT_COUNT,
        )
        .unwrap();
        assert_eq!(out, Some(Value::Int(3)));
        assert_eq!(pos, vec![0, 1, 2]);
    }

    #[test]
    fn an_unordered_list_answers_ranks_under_the_last_equal_value_asked() {
        let stored = [3, 1, 2, 1, 0];
        assert_eq!(get(&stored, false, &[1, 0, 1], RT_RANK), list(&[0, 1, 2]));
        assert_eq!(
            get(&stored, false, &[1, 0, 1], RT_REVERSE_RANK),
            list(&[4, 3, 2])
        );
        assert_eq!(get(&stored, false, &[1, 0, 1], RT_INDEX), list(&[1, 3, 4]));
        assert_eq!(get(&stored, false, &[1, 0], RT_VALUE), list(&[1, 1, 0]));
    }

    #[test]
    fn inverted_ranks_of_an_unordered_list_come_run_by_run() {
        let stored = [3, 1, 2, 1, 0];
        let rev = get(&stored, false, &[1], RT_REVERSE_RANK | RT_INVERTED);
        assert_eq!(rev, list(&[4, 0, 1]));
        assert_eq!(
            get(&stored, false, &[1], RT_RANK | RT_INVERTED),
            list(&[0, 3, 4])
        );
        let idx = get(&stored, false, &[1], RT_REVERSE_INDEX | RT_INVERTED);
        assert_eq!(idx, list(&[4, 2, 0]));
    }

    fn in_map(
        entries: &[(i64, i64)],
        by_key: bool,
        ordered: bool,
        asked: &[i64],
        rt: i64,
    ) -> Value {
        let pairs = entries.iter().map(|&(k, v)| (Value::Int(k), Value::Int(v)));
        let m = Map::new(u8::from(ordered), pairs.collect());
        let (e, _) = Elems::map(&m);
        let found = super::in_map(&e, by_key, ordered, &ints_of(asked), rt);
        found.unwrap().unwrap().0.unwrap()
    }

    #[test]
    fn a_key_ordered_map_answers_each_key_asked_an_unordered_one_the_last() {
        let m = [(1, 0), (2, 0), (3, 0), (4, 0)];
        assert_eq!(
            in_map(&m, true, true, &[2, 1, 2], RT_INDEX),
            ints(vec![1, 0, 1])
        );
        assert_eq!(
            in_map(&m, true, false, &[2, 1, 2], RT_INDEX),
            ints(vec![0, 1])
        );
        let rev = in_map(&m, true, true, &[1, 1], RT_REVERSE_INDEX | RT_INVERTED);
        assert_eq!(rev, ints(vec![2, 1, 0]));
        let gaps = in_map(&m, true, false, &[3], RT_REVERSE_INDEX | RT_INVERTED);
        assert_eq!(gaps, ints(vec![2, 3, 0]));
        let e = Map::new(0, vec![]);
        let (e, _) = Elems::map(&e);
        assert_eq!(
            super::in_map(&e, true, false, &ints_of(&[1]), RT_RANK),
            Some(Err(26))
        );
    }

    #[test]
    fn a_map_of_one_answers_each_value_asked() {
        assert_eq!(
            in_map(&[(5, 0)], false, false, &[0, 0], RT_INDEX),
            ints(vec![0, 0])
        );
        let m = [(1, 1), (2, 0), (3, 1)];
        assert_eq!(
            in_map(&m, false, false, &[1, 0, 1], RT_RANK),
            ints(vec![0, 1, 2])
        );
        assert_eq!(
            in_map(&m, false, false, &[1, 0, 1], RT_INDEX),
            ints(vec![0, 1, 2])
        );
    }

    #[test]
    fn no_value_asked_inverted_is_the_whole_list_as_one_run() {
        let rev = get(&[3, 1, 2], false, &[], RT_REVERSE_RANK | RT_INVERTED);
        assert_eq!(rev, list(&[0, 1, 2]));
        assert_eq!(get(&[1, 2, 3], true, &[], RT_VALUE), list(&[]));
    }
}
