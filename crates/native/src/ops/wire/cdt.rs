//! Nested contexts and the CDT op payload: `[op, args...]`, or `[0xff, [ctx...], [op, args...]]`
//! under a context, as list, map and bit ops carry it.

use aerospike::Value;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::pack;
use crate::convert::args::{list_order, map_order, Args};
use crate::errors::invalid_argument;

const LIST_INDEX: u16 = 0x10;
const LIST_RANK: u16 = 0x11;
const LIST_VALUE: u16 = 0x13;
const MAP_INDEX: u16 = 0x20;
const MAP_RANK: u16 = 0x21;
const MAP_KEY: u16 = 0x22;
const MAP_VALUE: u16 = 0x23;

/// One step of a context: its id (with any create flags) and what it selects.
pub(crate) struct Step {
    pub id: u16,
    pub value: Value,
}

/// The create flag of a list (at a context step or a `create` op).
pub(crate) fn list_create_flag(ordered: bool, pad: bool) -> u16 {
    match (ordered, pad) {
        (true, _) => 0xc0,
        (false, true) => 0x80,
        (false, false) => 0x40,
    }
}

/// The create flag of a map of `order` (0, 1 or 3).
pub(crate) fn map_create_flag(order: u8) -> u16 {
    match order {
        0 => 0x40,
        1 => 0x80,
        _ => 0xc0,
    }
}

/// A ctx tuple `(("list_index", 1), ("map_key", "a"), ...)` (or `None`) as steps.
pub(crate) fn steps(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Step>> {
    if obj.is_none() {
        return Ok(Vec::new());
    }
    let items = obj
        .cast::<PyTuple>()
        .map_err(|_| invalid_argument("ctx must be a tuple of steps"))?;
    let mut out = Vec::with_capacity(items.len());
    for item in items.iter() {
        let t = item
            .cast::<PyTuple>()
            .map_err(|_| invalid_argument("ctx step must be a tuple (kind, ...)"))?;
        out.push(step(&Args::new(t, "ctx step")?)?);
    }
    Ok(out)
}

fn step(a: &Args<'_, '_>) -> PyResult<Step> {
    let (arity, id) = match a.name() {
        "list_index" => (1, LIST_INDEX),
        "list_rank" => (1, LIST_RANK),
        "list_value" => (1, LIST_VALUE),
        "map_index" => (1, MAP_INDEX),
        "map_rank" => (1, MAP_RANK),
        "map_key" => (1, MAP_KEY),
        "map_value" => (1, MAP_VALUE),
        "list_index_create" => {
            a.arity(3)?;
            let order = list_order(a.int(2)?).map_err(|m| a.err(m))?;
            let flag = list_create_flag(order as u8 == 1, a.bool(3)?);
            return Ok(Step {
                id: LIST_INDEX | flag,
                value: Value::Int(a.int(1)?),
            });
        }
        "map_key_create" => {
            a.arity(2)?;
            let order = map_order(a.int(2)?).map_err(|m| a.err(m))?;
            return Ok(Step {
                id: MAP_KEY | map_create_flag(order as u8),
                value: a.value(1)?,
            });
        }
        _ => return Err(a.err("unknown ctx step")),
    };
    a.arity(arity)?;
    let value = match id {
        LIST_INDEX | LIST_RANK | MAP_INDEX | MAP_RANK => Value::Int(a.int(1)?),
        _ => a.value(1)?,
    };
    Ok(Step { id, value })
}

/// The start of a CDT payload: under a context, its steps (`create_flag` OR'd into the last
/// step's id); then the op array's header and code. The caller packs the `n_args` arguments.
pub(crate) fn begin(
    out: &mut Vec<u8>,
    ctx: &[Step],
    create_flag: u16,
    code: u8,
    n_args: usize,
) -> Result<(), pack::PackError> {
    if !ctx.is_empty() {
        pack::array_begin(out, 3);
        pack::int(out, 0xff);
        pack::array_begin(out, ctx.len() * 2);
        let last = ctx.len() - 1;
        for (i, s) in ctx.iter().enumerate() {
            let id = if i == last { s.id | create_flag } else { s.id };
            pack::int(out, i64::from(id));
            pack::value(out, &s.value)?;
        }
    }
    pack::array_begin(out, n_args + 1);
    pack::int(out, i64::from(code));
    Ok(())
}
