//! The walk: which children each level picks (in storage order), and what a select or an
//! apply does with them. Below the last level a child is a leaf; above it, a child that is
//! not a list or map is kept whole by a tree select and passed over otherwise.

use super::{Level, Mode, Path, Pick};
use crate::cdt::ctx::normalize;
use crate::cdt::list::remove_positions;
use crate::cdt::select::{one_index, Elems};
use crate::exp::{LoopVars, Outcome};
use crate::result::{BIN_TYPE_ERROR, PARAMETER_ERROR, SERVER_ERROR};
use crate::value::{List, Map, Value};
use crate::ResultCode;

impl Path {
    /// The select's answer: the matching tree, or the flat list of selected leaves.
    pub(super) fn select(&self, root: &Value) -> Result<Value, ResultCode> {
        let mut walk = Selection {
            path: self,
            leaves: Vec::new(),
        };
        let tree = walk.container(root, 0)?;
        Ok(match (self.mode, tree) {
            (Mode::Tree, Some(tree)) => tree,
            _ => Value::List(List {
                flags: 0,
                items: walk.leaves,
            }),
        })
    }

    /// Replaces or removes every selected leaf, then restores ordered containers' order.
    pub(super) fn apply(&self, root: &mut Value) -> Result<(), ResultCode> {
        self.apply_in(root, 0)?;
        normalize(root);
        Ok(())
    }

    fn apply_in(&self, v: &mut Value, depth: usize) -> Result<(), ResultCode> {
        let level = &self.levels[depth];
        let leaf = depth + 1 == self.levels.len();
        let mut removed = Vec::new();
        match v {
            Value::List(l) => {
                if l.items.is_empty() {
                    return Ok(());
                }
                list_level(level)?;
                for i in list_candidates(level, l) {
                    if !self.picks(level, list_vars(l, i), &l.items[i])? {
                        continue;
                    }
                    if !leaf && is_container(&l.items[i]) {
                        self.apply_in(&mut l.items[i], depth + 1)?;
                    } else if leaf {
                        match self.change(list_vars(l, i))? {
                            Outcome::Unknown => {}
                            Outcome::Remove => removed.push(i),
                            Outcome::Value(new) => l.items[i] = new,
                        }
                    }
                }
                remove_positions(&mut l.items, removed);
            }
            Value::Map(m) => {
                if m.entries.is_empty() {
                    return Ok(());
                }
                map_level(level)?;
                for p in map_candidates(level, m) {
                    if !self.picks(level, map_vars(m, p), &m.entries[p].1)? {
                        continue;
                    }
                    if !leaf && is_container(&m.entries[p].1) {
                        self.apply_in(&mut m.entries[p].1, depth + 1)?;
                    } else if leaf {
                        match self.change(map_vars(m, p))? {
                            Outcome::Unknown => {}
                            Outcome::Remove => removed.push(p),
                            Outcome::Value(new) => m.entries[p].1 = new,
                        }
                    }
                }
                remove_positions(&mut m.entries, removed);
            }
            _ => return Err(BIN_TYPE_ERROR),
        }
        Ok(())
    }

    /// What the modify expression makes of a leaf: an unknown result fails the op (a server
    /// error) unless no-fail keeps the leaf; a value holding a wildcard or infinity cannot be
    /// stored.
    fn change(&self, vars: LoopVars) -> Result<Outcome, ResultCode> {
        let exp = self.modify.as_ref().ok_or(PARAMETER_ERROR)?;
        match exp.outcome(vars)? {
            Outcome::Unknown if !self.no_fail => Err(SERVER_ERROR),
            Outcome::Value(v) if !storable(&v) => Err(BIN_TYPE_ERROR),
            o => Ok(o),
        }
    }

    /// Whether `level` picks the candidate child `value` (seen through `vars`). An unknown
    /// filter result fails the op unless no-fail makes it false; after an index or rank, an
    /// unknown AND filter only drops the child.
    fn picks(&self, level: &Level, vars: LoopVars, value: &Value) -> Result<bool, ResultCode> {
        let positional = matches!(level.pick, Pick::Index(_) | Pick::Rank(_));
        let base = match (&level.pick, vars.key) {
            (Pick::Index(_) | Pick::Rank(_) | Pick::Children(None), _) => Some(true),
            (Pick::Children(Some(f)), _) => f.passes(vars)?,
            (Pick::Value(v), _) => Some(value == v),
            (Pick::Key(_), Some(_)) => Some(true),
            (Pick::KeysIn(Value::List(keys)), Some(k)) => Some(keys.items.contains(k)),
            // Key steps at a list level.
            (Pick::Key(_) | Pick::KeysIn(_), _) => None,
        };
        let tri = match (base, &level.and) {
            (Some(true), Some(and)) => and.passes(vars)?,
            _ => base,
        };
        match tri {
            Some(b) => Ok(b),
            None if positional || self.no_fail => Ok(false),
            None => Err(PARAMETER_ERROR),
        }
    }
}

/// A select in progress: the leaves gathered so far.
struct Selection<'p> {
    path: &'p Path,
    leaves: Vec<Value>,
}

impl Selection<'_> {
    /// The tree of container `v` at `depth` (None outside a tree select).
    fn container(&mut self, v: &Value, depth: usize) -> Result<Option<Value>, ResultCode> {
        match v {
            Value::List(l) => self.list(l, depth),
            Value::Map(m) => self.map(m, depth),
            _ => Err(BIN_TYPE_ERROR),
        }
    }

    fn list(&mut self, l: &List, depth: usize) -> Result<Option<Value>, ResultCode> {
        let path = self.path;
        let (level, leaf) = (&path.levels[depth], depth + 1 == path.levels.len());
        let tree = path.mode == Mode::Tree;
        let empty = |flags| {
            tree.then_some(Value::List(List {
                flags,
                items: vec![],
            }))
        };
        if l.items.is_empty() && l.flags == 0 {
            return Ok(empty(0));
        }
        // Map keys of list leaves (even of an empty ordered list, which still has a header).
        if leaf && path.mode.keys() {
            return if path.no_fail {
                Ok(None)
            } else {
                Err(BIN_TYPE_ERROR)
            };
        }
        if l.items.is_empty() {
            return Ok(empty(l.flags));
        }
        list_level(level)?;
        let mut node = Vec::new();
        for i in list_candidates(level, l) {
            let item = &l.items[i];
            if !path.picks(level, list_vars(l, i), item)? {
                continue;
            }
            if !leaf && is_container(item) {
                node.extend(self.container(item, depth + 1)?);
            } else if tree {
                node.push(item.clone());
            } else if leaf {
                self.leaves.push(item.clone());
            }
        }
        Ok(tree.then_some(Value::List(List {
            flags: 0,
            items: node,
        })))
    }

    fn map(&mut self, m: &Map, depth: usize) -> Result<Option<Value>, ResultCode> {
        let path = self.path;
        let (level, leaf) = (&path.levels[depth], depth + 1 == path.levels.len());
        let tree = path.mode == Mode::Tree;
        if m.entries.is_empty() {
            return Ok(tree.then_some(Value::Map(Map {
                flags: m.flags,
                entries: vec![],
            })));
        }
        map_level(level)?;
        let mut node = Vec::new();
        for p in map_candidates(level, m) {
            let (k, v) = &m.entries[p];
            if !path.picks(level, map_vars(m, p), v)? {
                continue;
            }
            if !leaf && is_container(v) {
                if let Some(sub) = self.container(v, depth + 1)? {
                    node.push((k.clone(), sub));
                }
                continue;
            }
            if leaf && path.mode.keys() {
                self.leaves.push(k.clone());
            }
            if leaf && path.mode.values() {
                self.leaves.push(v.clone());
            }
            if tree {
                node.push((k.clone(), v.clone()));
            }
        }
        Ok(tree.then_some(Value::Map(Map {
            flags: 0,
            entries: node,
        })))
    }
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::List(_) | Value::Map(_))
}

/// Whether a value may be stored (no wildcard or infinity inside).
fn storable(v: &Value) -> bool {
    match v {
        Value::Wildcard | Value::Inf => false,
        Value::List(l) => l.items.iter().all(storable),
        Value::Map(m) => m.entries.iter().all(|(k, v)| storable(k) && storable(v)),
        _ => true,
    }
}

/// A list level's step must be a list step or a filter.
fn list_level(level: &Level) -> Result<(), ResultCode> {
    match level.ctx_type & 0x30 {
        0 | 0x10 => Ok(()),
        _ => Err(PARAMETER_ERROR),
    }
}

/// A map level's step must be a map step or a filter (create flags refused); a key list must be
/// a list.
fn map_level(level: &Level) -> Result<(), ResultCode> {
    let kind_ok = matches!(level.ctx_type & 0xf0, 0 | 0x20);
    let keys_ok = !matches!(&level.pick, Pick::KeysIn(k) if !matches!(k, Value::List(_)));
    if kind_ok && keys_ok {
        Ok(())
    } else {
        Err(PARAMETER_ERROR)
    }
}

fn list_vars(l: &List, i: usize) -> LoopVars<'_> {
    LoopVars {
        key: None,
        value: Some(&l.items[i]),
        index: Some(i as i64),
    }
}

fn map_vars(m: &Map, p: usize) -> LoopVars<'_> {
    LoopVars {
        key: Some(&m.entries[p].0),
        value: Some(&m.entries[p].1),
        index: None,
    }
}

/// Positions a list level may pick: the one an index or rank designates (none when out of
/// range), else every one.
fn list_candidates(level: &Level, l: &List) -> Vec<usize> {
    let n = l.items.len();
    match level.pick {
        Pick::Index(i) => one_index(i, n).into_iter().collect(),
        Pick::Rank(r) => one_index(r, n)
            .map(|r| Elems::list(&l.items, l.ordered()).rank_order()[r])
            .into_iter()
            .collect(),
        _ => (0..n).collect(),
    }
}

/// Storage positions a map level may pick: the entry at an index (key order) or rank (value
/// order), the entry of a key, else every one.
fn map_candidates(level: &Level, m: &Map) -> Vec<usize> {
    let n = m.entries.len();
    match &level.pick {
        Pick::Index(i) => one_index(*i, n)
            .map(|p| m.key_order()[p])
            .into_iter()
            .collect(),
        Pick::Rank(r) => one_index(*r, n)
            .map(|r| {
                let (e, order) = Elems::map(m);
                order[e.rank_order()[r]]
            })
            .into_iter()
            .collect(),
        Pick::Key(k) => m
            .entries
            .iter()
            .position(|e| e.0 == *k)
            .into_iter()
            .collect(),
        _ => (0..n).collect(),
    }
}
