//! The deepest nesting of lists and maps the client reads, checked without recursion.
//!
//! Every value the crate hands back is measured here before anything else touches it (on the
//! thread that decoded it, still on its deep stack: see `safety/deep_stack.rs`). A value nested
//! deeper than [`MAX_READ_DEPTH`] is taken apart iteratively and the read fails with
//! `DeserializeError`; so conversion, cloning and dropping elsewhere never recurse deeper.

use aerospike::{Record, Value};

pub use crate::errors::{TooDeep, MAX_READ_DEPTH};
use crate::safety::deep_stack;

fn is_container(v: &Value) -> bool {
    matches!(
        v,
        Value::List(_)
            | Value::MultiResult(_)
            | Value::HashMap(_)
            | Value::OrderedMap(_)
            | Value::SortedMap(_)
            | Value::KeyValueList(_)
    )
}

fn each_child<'a>(v: &'a Value, mut f: impl FnMut(&'a Value)) {
    match v {
        Value::List(l) | Value::MultiResult(l) => l.iter().for_each(f),
        Value::HashMap(m) => m.iter().for_each(|(k, v)| {
            f(k);
            f(v);
        }),
        Value::OrderedMap(m) => m.iter().for_each(|(k, v)| {
            f(k);
            f(v);
        }),
        Value::SortedMap(m) => m.iter().for_each(|(k, v)| {
            f(k);
            f(v);
        }),
        Value::KeyValueList(kv) => kv.iter().for_each(|(k, v)| {
            f(k);
            f(v);
        }),
        _ => {}
    }
}

/// Whether `v` nests lists/maps more than `limit` levels deep.
pub fn deeper_than(v: &Value, limit: usize) -> bool {
    if !is_container(v) {
        return false;
    }
    let mut open: Vec<(&Value, usize)> = vec![(v, 1)];
    while let Some((v, level)) = open.pop() {
        if level > limit {
            return true;
        }
        each_child(v, |child| {
            if is_container(child) {
                open.push((child, level + 1));
            }
        });
    }
    false
}

/// Drop `v` without recursion.
pub fn dismantle(v: Value) {
    let mut rest = vec![v];
    while let Some(v) = rest.pop() {
        match v {
            Value::List(l) | Value::MultiResult(l) => rest.extend(l),
            Value::HashMap(m) => m.into_iter().for_each(|(k, v)| rest.extend([k, v])),
            Value::OrderedMap(m) => m.into_iter().for_each(|(k, v)| rest.extend([k, v])),
            Value::SortedMap(m) => m.into_iter().for_each(|(k, v)| rest.extend([k, v])),
            Value::KeyValueList(kv) => kv.into_iter().for_each(|(k, v)| rest.extend([k, v])),
            _ => {}
        }
    }
}

/// Check one value; one too deep is taken apart (left `Nil`).
pub fn bound_value(v: &mut Value, bin: Option<&str>) -> Result<(), TooDeep> {
    if !deeper_than(v, MAX_READ_DEPTH) {
        return Ok(());
    }
    dismantle(std::mem::replace(v, Value::Nil));
    deep_stack::release_after_use();
    Err(TooDeep {
        bin: bin.map(str::to_owned),
    })
}

/// Check every bin and op result of a record; each one too deep is taken apart.
pub fn bound_record(rec: &mut Record) -> Result<(), TooDeep> {
    let mut first = None;
    for (name, v) in rec.bins.iter_mut() {
        if let Err(e) = bound_value(v, Some(name)) {
            first.get_or_insert(e);
        }
    }
    for v in rec.results.iter_mut().flatten() {
        if let Err(e) = bound_value(v, None) {
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> Value {
        let mut v = Value::Int(1);
        for _ in 0..depth {
            v = Value::List(vec![v]);
        }
        v
    }

    #[test]
    fn depth_is_counted_in_lists_and_maps() {
        assert!(!deeper_than(&Value::Int(1), 0));
        assert!(!deeper_than(&nested(3), 3));
        assert!(deeper_than(&nested(4), 3));
        let mut m = aerospike::IndexMap::new();
        m.insert(Value::Int(1), nested(3));
        assert!(deeper_than(&Value::OrderedMap(m), 3));
    }

    #[test]
    fn a_value_too_deep_to_drop_recursively_is_taken_apart() {
        let mut v = nested(1_000_000);
        let err = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || bound_value(&mut v, Some("l")).map(|()| v))
            .unwrap()
            .join()
            .unwrap()
            .unwrap_err();
        assert_eq!(err.bin.as_deref(), Some("l"));
    }

    #[test]
    fn values_within_the_limit_are_kept() {
        let mut v = nested(MAX_READ_DEPTH);
        assert!(bound_value(&mut v, None).is_ok());
        assert!(deeper_than(&v, MAX_READ_DEPTH - 1));
    }
}
