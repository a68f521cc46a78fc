//! Scalar ops on bins and records: read, write, add, append, prepend, touch, delete, and the
//! expression read/write ops.

use aerospike::operations::exp::{read_exp, write_exp, ExpReadFlags, ExpWriteFlags};
use aerospike::operations::{self as o, Operation};
use aerospike::{Bin, Value};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::{bin_name, bin_value, Converted};
use crate::convert::args::Args;
use crate::convert::values::{to_value, Ctx};
use crate::expr::to_expression;

/// The common scalar ops in their usual shape, converted without `Args` (no copies of the
/// name); `None` sends anything else to `any_op`, which also gives the errors.
pub(super) fn fast(t: &Bound<'_, PyTuple>) -> Option<PyResult<Converted>> {
    let name = t.get_item(0).ok()?;
    let name = name.cast_exact::<PyString>().ok()?.to_str().ok()?;
    let arity = match name {
        "read" => 1,
        "write" | "add" | "append" | "prepend" => 2,
        _ => return None,
    };
    if t.len() != arity + 1 {
        return None;
    }
    let bin = t.get_item(1).ok()?;
    let bin = bin.cast_exact::<PyString>().ok()?.to_str().ok()?;
    if name == "read" {
        return Some(Ok((o::get_bin(bin), true, Some(bin.to_owned()))));
    }
    let v = match to_value(&t.get_item(2).ok()?, Ctx::bin(bin)) {
        Ok(v) => v,
        Err(e) => return Some(Err(e)),
    };
    let op = match (name, &v) {
        ("write", _) => o::put,
        ("add", Value::Int(_) | Value::Float(_)) => o::add,
        ("append", Value::String(_) | Value::Blob(_)) => o::append,
        ("prepend", Value::String(_) | Value::Blob(_)) => o::prepend,
        _ => return None,
    };
    Some(Ok((op(&Bin::new(bin, v)), false, None)))
}

/// A scalar op tuple by name; also says whether it is a pure read.
pub(super) fn op(name: &str, a: &Args<'_, '_>) -> PyResult<(Operation, bool)> {
    Ok(match name {
        "read" => {
            a.arity(1)?;
            (o::get_bin(bin_name(a)?), true)
        }
        "read_all" => (o::get(), true),
        "read_header" => (o::get_header(), true),
        "write" => {
            a.arity(2)?;
            let b = bin_name(a)?;
            let v = bin_value(a, &b)?;
            (o::put(&Bin::new(b, v)), false)
        }
        "add" | "append" | "prepend" => {
            a.arity(2)?;
            let b = bin_name(a)?;
            let v = bin_value(a, &b)?;
            let ok = match name {
                "add" => matches!(v, Value::Int(_) | Value::Float(_)),
                _ => matches!(v, Value::String(_) | Value::Blob(_)),
            };
            if !ok {
                return Err(a.err(format!("bin {b:?}: wrong value type for {name}")));
            }
            let bin = Bin::new(b, v);
            let op = match name {
                "add" => o::add(&bin),
                "append" => o::append(&bin),
                _ => o::prepend(&bin),
            };
            (op, false)
        }
        "touch" => (o::touch(), false),
        "delete" => (o::delete(), false),
        "exp_read" => {
            a.arity(3)?;
            let e = to_expression(&a.item(2)?)?;
            (
                read_exp(a.str(1)?, e, ExpReadFlags::from_bits(a.int(3)?)),
                true,
            )
        }
        "exp_write" => {
            a.arity(3)?;
            let e = to_expression(&a.item(2)?)?;
            (
                write_exp(a.str(1)?, e, ExpWriteFlags::from_bits(a.int(3)?)),
                false,
            )
        }
        _ => return Err(a.err("unknown op")),
    })
}
