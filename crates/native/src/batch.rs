//! Batch row tuples → `BatchOperation`s.

use aerospike::{BatchOperation, Bins};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::args::Args;
use crate::errors::invalid_argument;
use crate::ops::to_ops;
use crate::policy::{Defaults, Natives, Policy};
use crate::values::{to_key, to_value, Ctx};

/// One converted row.
pub struct Row {
    /// The crate operation (results land in it).
    pub op: BatchOperation,
    /// Whether the row writes.
    pub writes: bool,
    /// The key tuple the row was asked with (reused in the reply).
    pub key: Py<PyAny>,
}

fn row_policy<'a>(
    a: &Args<'_, '_>,
    i: usize,
    top: &'a Natives,
    d: &Defaults,
    own: &'a mut Option<std::sync::Arc<Natives>>,
) -> PyResult<&'a Natives> {
    let v = a.item(i)?;
    if v.is_none() {
        return Ok(top);
    }
    let p = v
        .cast::<Policy>()
        .map_err(|_| a.err(format!("argument {i} must be a Policy or None")))?;
    Ok(own.insert(p.get().natives(d)))
}

/// Convert the rows: `("read", key, bins|None, header_only, policy|None)`,
/// `("write", key, ops, policy|None)`, `("delete", key, policy|None)`,
/// `("udf", key, module, function, args, policy|None)`.
pub fn to_rows(rows: &Bound<'_, PyAny>, top: &Natives, d: &Defaults) -> PyResult<Vec<Row>> {
    crate::guard::sync("batch row conversion", || convert_rows(rows, top, d))
}

fn convert_rows(rows: &Bound<'_, PyAny>, top: &Natives, d: &Defaults) -> PyResult<Vec<Row>> {
    let mut out = Vec::new();
    for row in rows
        .try_iter()
        .map_err(|_| invalid_argument("batch rows must be a sequence of tuples"))?
    {
        let row = row?;
        let t = row
            .cast::<PyTuple>()
            .map_err(|_| invalid_argument("each batch row must be a tuple"))?;
        let (kind, a) = Args::new(t, "batch row")?;
        let mut own = None;
        out.push(match kind.as_str() {
            "read" => {
                a.arity(4)?;
                let orig = a.item(1)?;
                let key = to_key(&orig)?;
                let bins_obj = a.item(2)?;
                let bins = if a.bool(3)? {
                    Bins::None
                } else if bins_obj.is_none() {
                    Bins::All
                } else {
                    Bins::Some(
                        bins_obj
                            .extract::<Vec<String>>()
                            .map_err(|_| a.err("bins must be a sequence of str or None"))?,
                    )
                };
                let p = row_policy(&a, 4, top, d, &mut own)?;
                Row {
                    op: BatchOperation::read(&p.batch_read_row, key, bins),
                    writes: false,
                    key: orig.unbind(),
                }
            }
            "write" => {
                a.arity(3)?;
                let orig = a.item(1)?;
                let key = to_key(&orig)?;
                let ops = to_ops(&a.item(2)?)?;
                let p = row_policy(&a, 3, top, d, &mut own)?;
                if ops.read_only {
                    Row {
                        op: BatchOperation::read_ops(&p.batch_read_row, key, ops.ops),
                        writes: false,
                        key: orig.clone().unbind(),
                    }
                } else {
                    Row {
                        op: BatchOperation::write(&p.batch_write_row, key, ops.ops),
                        writes: true,
                        key: orig.clone().unbind(),
                    }
                }
            }
            "delete" => {
                a.arity(2)?;
                let orig = a.item(1)?;
                let key = to_key(&orig)?;
                let p = row_policy(&a, 2, top, d, &mut own)?;
                Row {
                    op: BatchOperation::delete(&p.batch_delete_row, key),
                    writes: true,
                    key: orig.unbind(),
                }
            }
            "udf" => {
                a.arity(5)?;
                let orig = a.item(1)?;
                let key = to_key(&orig)?;
                let module = a.str(2)?;
                let function = a.str(3)?;
                let args = match to_value(&a.item(4)?, Ctx::bin("<udf args>"))? {
                    aerospike::Value::List(l) => l,
                    _ => return Err(a.err("udf args must be a list")),
                };
                let p = row_policy(&a, 5, top, d, &mut own)?;
                Row {
                    op: BatchOperation::udf(&p.batch_udf_row, key, module, function, args),
                    writes: true,
                    key: orig.unbind(),
                }
            }
            _ => return Err(a.err("unknown batch row kind (read, write, delete, udf)")),
        });
    }
    Ok(out)
}
