//! A list's elements equal to any of a list of values (get/remove by value list), answered as a
//! real node answers.
//!
//! A node finds each value asked as the run of ranks its equals occupy. An ordered list answers
//! run by run in the order asked, repeats included (a value asked twice is answered twice). An
//! unordered list hands each distinct value's run to the last value asked equal to it, lists
//! those ranks one by one in the order asked, and its indexes and values in index order. Counts
//! and removals take each element once. Inverted, ranks of an unordered list come run by run
//! between the runs asked for; everything else comes in index order.

use std::cmp::Ordering;

use super::select::{
    RT_COUNT, RT_EXISTS, RT_INDEX, RT_INVERTED, RT_NONE, RT_RANK, RT_REVERSE_INDEX,
    RT_REVERSE_RANK, RT_VALUE,
};
use crate::result::OP_NOT_APPLICABLE;
use crate::value::{List, Value};
use crate::ResultCode;

/// `(start, count)` of ranks.
type Run = (usize, usize);

/// The result of get/remove by value list on `items` for return type `rt`, and the positions
/// selected (each once, ascending) for a removal.
pub fn answer(
    items: &[Value],
    ordered: bool,
    asked: &[Value],
    rt: i64,
) -> Result<(Option<Value>, Vec<usize>), ResultCode> {
    let inverted = rt & RT_INVERTED != 0;
    let rt = rt & !RT_INVERTED;
    if asked.is_empty() && inverted {
        return everything(items, rt);
    }
    let n = items.len();
    let by_rank = rank_order(items, ordered);
    let sorted: Vec<&Value> = by_rank.iter().map(|&p| &items[p]).collect();
    let runs = if ordered {
        asked.iter().map(|v| rank_run(&sorted, v)).collect()
    } else {
        last_of_equals(&sorted, asked)
    };
    let rank_chosen = covered(&runs, n, inverted);
    let mut chosen = vec![false; n];
    for (rank, &p) in by_rank.iter().enumerate() {
        chosen[p] = rank_chosen[rank];
    }
    let pos: Vec<usize> = (0..n).filter(|&p| chosen[p]).collect();
    let reversed = |i: usize, rev: bool| if rev { n - 1 - i } else { i } as i64;
    let out = match rt {
        RT_NONE => None,
        RT_INDEX | RT_REVERSE_INDEX | RT_RANK | RT_REVERSE_RANK => {
            let rev = matches!(rt, RT_REVERSE_INDEX | RT_REVERSE_RANK);
            let by_rank = matches!(rt, RT_RANK | RT_REVERSE_RANK) && !ordered;
            let numbers = match (inverted, ordered, by_rank) {
                (false, true, _) => runs.iter().flat_map(|&r| run(r, n, rev)).collect(),
                (false, false, true) => runs
                    .iter()
                    .flat_map(|&(s, c)| s..s + c)
                    .map(|r| reversed(r, rev))
                    .collect(),
                (true, false, true) => gaps(&rank_chosen)
                    .into_iter()
                    .flat_map(|r| run(r, n, rev))
                    .collect(),
                _ => pos.iter().map(|&p| reversed(p, rev)).collect(),
            };
            Some(ints(numbers))
        }
        RT_COUNT => Some(Value::Int(pos.len() as i64)),
        RT_EXISTS => Some(Value::Bool(!pos.is_empty())),
        RT_VALUE if ordered && !inverted => Some(values(
            runs.iter()
                .flat_map(|&(s, c)| sorted[s..s + c].iter().copied()),
        )),
        RT_VALUE => Some(values(pos.iter().map(|&p| &items[p]))),
        _ => return Err(OP_NOT_APPLICABLE),
    };
    Ok((out, pos))
}

/// No value asked, inverted: a node takes the whole list as one run of indexes.
fn everything(items: &[Value], rt: i64) -> Result<(Option<Value>, Vec<usize>), ResultCode> {
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

/// Positions in rank order (ties in index order); an ordered list is its own rank order.
fn rank_order(items: &[Value], ordered: bool) -> Vec<usize> {
    let mut r: Vec<usize> = (0..items.len()).collect();
    if !ordered {
        r.sort_by(|&a, &b| items[a].cmp(&items[b]));
    }
    r
}

/// The ranks of `sorted` (values in rank order) equal to `v`.
fn rank_run(sorted: &[&Value], v: &Value) -> Run {
    let start = sorted.partition_point(|x| *x < v);
    let end = start + sorted[start..].partition_point(|x| *x <= v);
    (start, end - start)
}

/// Per value asked, its run of ranks when it is the last value asked equal to it, else none.
fn last_of_equals(sorted: &[&Value], asked: &[Value]) -> Vec<Run> {
    let mut order: Vec<usize> = (0..asked.len()).collect();
    order.sort_by(|&a, &b| asked[a].cmp(&asked[b]));
    let mut runs = vec![(0, 0); asked.len()];
    for (i, &at) in order.iter().enumerate() {
        let next = order.get(i + 1).map(|&b| asked[at].cmp(&asked[b]));
        if next != Some(Ordering::Equal) {
            runs[at] = rank_run(sorted, &asked[at]);
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

    #[test]
    fn no_value_asked_inverted_is_the_whole_list_as_one_run() {
        let rev = get(&[3, 1, 2], false, &[], RT_REVERSE_RANK | RT_INVERTED);
        assert_eq!(rev, list(&[0, 1, 2]));
        assert_eq!(get(&[1, 2, 3], true, &[], RT_VALUE), list(&[]));
    }
}
