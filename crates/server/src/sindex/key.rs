//! The value an index holds for a record: its bin, a value inside the bin (CDT context), or an
//! expression's result.

use engine::cdt::ctx::{self, Kind};
use engine::pack;
use engine::value::Value;

use super::SIndex;
use crate::engine_ops::{self, View};

/// The indexed value of the record `view` for `idx` (None: the record is not in the index).
pub fn indexed_value(idx: &SIndex, view: &View<'_>) -> Option<Value> {
    if let Some(exp) = &idx.exp {
        return engine_ops::exp_value(exp, view).ok().flatten();
    }
    let particle = view.bins.iter().find(|b| b.name.as_str() == idx.bin)?;
    let mut value = pack::from_particle(&particle.value).ok()?;
    let Some(context) = &idx.context else {
        return Some(value);
    };
    let steps = ctx::parse(context_items(context)?).ok()?;
    let last = match value {
        Value::Map(_) => Kind::Map,
        _ => Kind::List,
    };
    let found = ctx::walk(&mut value, &steps, last, false).ok()?;
    Some(std::mem::replace(found, Value::Nil))
}

/// The `[id, value, ...]` items of a context.
fn context_items(bytes: &[u8]) -> Option<Vec<Value>> {
    match pack::decode(bytes).ok()? {
        Value::List(l) => Some(l.items),
        _ => None,
    }
}

/// Canonical bytes of a context as sent on the wire (base64 text in `sindex-create`, raw in
/// query field 23), so the same path compares equal however it was encoded; None if malformed.
pub fn canonical(bytes: &[u8]) -> Option<Vec<u8>> {
    let items = context_items(bytes)?;
    ctx::parse(items.clone()).ok()?;
    Some(pack::encode(&Value::List(engine::value::List {
        flags: 0,
        items,
    })))
}
