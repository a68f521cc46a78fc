//! Nested contexts: walking `[ctx_type, value, ...]` pairs down to the target container.
//!
//! ctx type = `id & 0x3f` (0x10 list index, 0x11 list rank, 0x13 list value, 0x20 map index,
//! 0x21 map rank, 0x22 map key, 0x23 map value); `id & 0xc0` = create flag (list: 0x40 unordered,
//! 0x80 unordered + pad, 0xc0 ordered; map: 0x40 unordered, 0x80 K-ordered, 0xc0 KV-ordered).

use super::select::{one_index, Elems};
use crate::result::{OP_NOT_APPLICABLE, PARAMETER_ERROR};
use crate::value::{List, Map, Value};
use crate::ResultCode;

/// One context step.
pub struct Step {
    pub kind: u8,
    pub create: u8,
    pub value: Value,
}

/// Container kind needed at a level.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    List,
    Map,
}

impl Step {
    /// The container kind this step looks into.
    pub fn kind(&self) -> Kind {
        if self.kind & 0x20 != 0 {
            Kind::Map
        } else {
            Kind::List
        }
    }
}

/// Parses the flat `[id, value, id, value, ...]` ctx array.
pub fn parse(items: Vec<Value>) -> Result<Vec<Step>, ResultCode> {
    if !items.len().is_multiple_of(2) || items.is_empty() {
        return Err(PARAMETER_ERROR);
    }
    let mut out = Vec::with_capacity(items.len() / 2);
    let mut it = items.into_iter();
    while let (Some(id), Some(value)) = (it.next(), it.next()) {
        let id = id.as_int().ok_or(PARAMETER_ERROR)?;
        let kind = (id & 0x3f) as u8;
        if id > 0xff || !matches!(kind, 0x10 | 0x11 | 0x13 | 0x20 | 0x21 | 0x22 | 0x23) {
            return Err(PARAMETER_ERROR);
        }
        out.push(Step {
            kind,
            create: (id & 0xc0) as u8,
            value,
        });
    }
    Ok(out)
}

/// A new empty container of `kind` with the order given by a ctx create flag.
pub fn new_container(kind: Kind, create: u8) -> Value {
    match kind {
        Kind::List => Value::List(List {
            flags: u8::from(create == 0xc0),
            items: vec![],
        }),
        Kind::Map => Value::Map(Map {
            flags: match create {
                0x80 => 1,
                0xc0 => 3,
                _ => 0,
            },
            entries: vec![],
        }),
    }
}

/// Walks `steps` from `root`; `last` is the kind the op needs at the end. With `modify`,
/// steps carrying a create flag create missing elements.
pub fn walk<'a>(
    root: &'a mut Value,
    steps: &[Step],
    last: Kind,
    modify: bool,
) -> Result<&'a mut Value, ResultCode> {
    let mut cur = root;
    for (i, st) in steps.iter().enumerate() {
        let next_kind = steps.get(i + 1).map_or(last, Step::kind);
        let pos = locate(cur, st, next_kind, modify)?;
        cur = match cur {
            Value::List(l) => l.items.get_mut(pos),
            Value::Map(m) => m.entries.get_mut(pos).map(|e| &mut e.1),
            _ => None,
        }
        .ok_or(OP_NOT_APPLICABLE)?;
    }
    Ok(cur)
}

/// Storage position of the element `st` designates in `cur` (creating it when allowed).
fn locate(cur: &mut Value, st: &Step, next: Kind, modify: bool) -> Result<usize, ResultCode> {
    let create = modify && st.create != 0;
    match (cur, st.kind) {
        (Value::List(l), 0x10) => {
            let idx = st.value.as_int().ok_or(PARAMETER_ERROR)?;
            if let Some(p) = one_index(idx, l.items.len()) {
                return Ok(p);
            }
            let n = l.items.len() as i64;
            if !create || idx < 0 || (idx > n && st.create != 0x80) {
                return Err(OP_NOT_APPLICABLE);
            }
            l.items.resize(idx as usize, Value::Nil);
            l.items.push(new_container(next, st.create));
            Ok(idx as usize)
        }
        (Value::List(l), 0x11) => {
            let e = Elems::list(&l.items, l.ordered());
            let r = one_index(st.value.as_int().ok_or(PARAMETER_ERROR)?, e.len())
                .ok_or(OP_NOT_APPLICABLE)?;
            Ok(e.rank_order()[r])
        }
        (Value::List(l), 0x13) => l
            .items
            .iter()
            .position(|x| *x == st.value)
            .ok_or(OP_NOT_APPLICABLE),
        (Value::Map(m), 0x20) => {
            let order = m.key_order();
            let p = one_index(st.value.as_int().ok_or(PARAMETER_ERROR)?, order.len())
                .ok_or(OP_NOT_APPLICABLE)?;
            Ok(order[p])
        }
        (Value::Map(m), 0x21) => {
            let (e, order) = Elems::map(m);
            let r = one_index(st.value.as_int().ok_or(PARAMETER_ERROR)?, e.len())
                .ok_or(OP_NOT_APPLICABLE)?;
            Ok(order[e.rank_order()[r]])
        }
        (Value::Map(m), 0x22) => match m.find(&st.value) {
            Some(p) => Ok(p),
            None if create => {
                m.put(st.value.clone(), new_container(next, st.create));
                m.find(&st.value).ok_or(OP_NOT_APPLICABLE)
            }
            None => Err(OP_NOT_APPLICABLE),
        },
        (Value::Map(m), 0x23) => m
            .entries
            .iter()
            .position(|e| e.1 == st.value)
            .ok_or(OP_NOT_APPLICABLE),
        _ => Err(OP_NOT_APPLICABLE),
    }
}

/// Restores ordering invariants (ordered lists and every map sorted) after a nested change.
pub fn normalize(v: &mut Value) {
    match v {
        Value::List(l) => {
            l.items.iter_mut().for_each(normalize);
            if l.ordered() {
                l.items.sort();
            }
        }
        Value::Map(m) => {
            m.entries.iter_mut().for_each(|e| normalize(&mut e.1));
            m.sort();
        }
        _ => {}
    }
}
