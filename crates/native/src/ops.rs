//! Operation tuples `(name, bin, *args)` → `aerospike::operations::Operation`.

use aerospike::operations::exp::{read_exp, write_exp, ExpReadFlags, ExpWriteFlags};
use aerospike::operations::{self as o, lists as l, maps as m, Operation};
use aerospike::{Bin, ListReturnType, ListSortFlags, MapReturnType, Value};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::args::{list_order, map_order, Args};
use crate::errors::invalid_argument;
use crate::expr::to_expression;
use crate::values::{to_value, Ctx};

/// A converted op list and whether it only reads.
pub struct Ops {
    /// The operations, in order.
    pub ops: Vec<Operation>,
    /// True when no op writes (so "not found" means "no record").
    pub read_only: bool,
    /// Per op: the bin whose result it reports (None for ops that report nothing).
    pub reports: Vec<Option<String>>,
    /// Whether a `read_all` / `read_header` op is present (results are then whole bins).
    pub whole: bool,
}

/// Convert a sequence of op tuples (a panic in the crate's op builders becomes `ClientError`).
pub fn to_ops(seq: &Bound<'_, PyAny>) -> PyResult<Ops> {
    crate::guard::sync("op conversion", || convert_ops(seq))
}

fn convert_ops(seq: &Bound<'_, PyAny>) -> PyResult<Ops> {
    let mut out = Ops {
        ops: Vec::new(),
        read_only: true,
        reports: Vec::new(),
        whole: false,
    };
    if let Ok(l) = seq.cast::<PyList>() {
        out.reserve(l.len());
        for item in l.iter() {
            out.push(&item)?;
        }
    } else if let Ok(t) = seq.cast::<PyTuple>() {
        out.reserve(t.len());
        for item in t.iter() {
            out.push(&item)?;
        }
    } else {
        let iter = seq
            .try_iter()
            .map_err(|_| invalid_argument("ops must be a sequence of tuples"))?;
        for item in iter {
            out.push(&item?)?;
        }
    }
    if out.ops.is_empty() {
        return Err(invalid_argument("operate needs at least one op"));
    }
    Ok(out)
}

/// One converted op: the operation, whether it only reads, the bin it reports (if any).
type Converted = (Operation, bool, Option<String>);

impl Ops {
    fn reserve(&mut self, n: usize) {
        self.ops.reserve_exact(n);
        self.reports.reserve_exact(n);
    }

    /// Convert one op tuple and append it.
    fn push(&mut self, item: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = item
            .cast::<PyTuple>()
            .map_err(|_| invalid_argument("each op must be a tuple (name, bin, *args)"))?;
        let (op, reads, report) = match scalar_op(t) {
            Some(converted) => converted?,
            None => self.any_op(t)?,
        };
        self.read_only &= reads;
        self.ops.push(op);
        self.reports.push(report);
        Ok(())
    }

    /// Any op tuple, through `to_op` (whose errors name the op).
    fn any_op(&mut self, t: &Bound<'_, PyTuple>) -> PyResult<Converted> {
        let (op, reads) = to_op(t)?;
        let name = t.get_item(0)?;
        let name = name.extract::<&str>().unwrap_or("");
        self.whole |= matches!(name, "read_all" | "read_header");
        let silent = matches!(
            name,
            "write"
                | "add"
                | "append"
                | "prepend"
                | "touch"
                | "delete"
                | "read_all"
                | "read_header"
        );
        let report = if silent {
            None
        } else {
            t.get_item(1)?.extract::<String>().ok()
        };
        Ok((op, reads, report))
    }
}

/// The common scalar ops in their usual shape, converted without `Args` (no copies of the
/// name); `None` sends anything else to `any_op`, which also gives the errors.
fn scalar_op(t: &Bound<'_, PyTuple>) -> Option<PyResult<Converted>> {
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

fn bin_name(a: &Args<'_, '_>) -> PyResult<String> {
    a.str(1).map_err(|_| a.err("bin name must be a str"))
}

fn bin_value(a: &Args<'_, '_>, bin: &str) -> PyResult<Value> {
    to_value(&a.item(2)?, Ctx::bin(bin))
}

/// Convert one op tuple; also says whether it is a pure read.
fn to_op(t: &Bound<'_, PyTuple>) -> PyResult<(Operation, bool)> {
    let a = Args::new(t, "op")?;
    let name = a.name();
    if let Some(f) = name.strip_prefix("list_") {
        let bin = bin_name(&a)?;
        let ctx = a.ctx(2)?;
        let (op, reads) = list_op(f, &a, bin)?;
        return Ok((op.context(ctx), reads));
    }
    if let Some(f) = name.strip_prefix("map_") {
        let bin = bin_name(&a)?;
        let ctx = a.ctx(2)?;
        let (op, reads) = map_op(f, &a, bin, &ctx)?;
        if matches!(f, "create" | "set_policy") {
            return Ok((op, reads)); // these take the ctx themselves
        }
        return Ok((op.context(ctx), reads));
    }
    Ok(match name {
        "read" => {
            a.arity(1)?;
            (o::get_bin(bin_name(&a)?), true)
        }
        "read_all" => (o::get(), true),
        "read_header" => (o::get_header(), true),
        "write" => {
            a.arity(2)?;
            let b = bin_name(&a)?;
            let v = bin_value(&a, &b)?;
            (o::put(&Bin::new(b, v)), false)
        }
        "add" | "append" | "prepend" => {
            a.arity(2)?;
            let b = bin_name(&a)?;
            let v = bin_value(&a, &b)?;
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

fn lrt(a: &Args<'_, '_>, i: usize) -> PyResult<ListReturnType> {
    Ok(ListReturnType::from_bits(a.int(i)?))
}

fn mrt(a: &Args<'_, '_>, i: usize) -> PyResult<MapReturnType> {
    Ok(MapReturnType::from_bits(a.int(i)?))
}

/// Item `i` as a non-empty list (the crate panics on an empty one).
fn non_empty(a: &Args<'_, '_>, i: usize) -> PyResult<Vec<Value>> {
    let v = a.values(i)?;
    if v.is_empty() {
        return Err(a.err("needs at least one item (the list is empty)"));
    }
    Ok(v)
}

/// Item `i` as a value other than None (the crate panics on nil).
fn not_nil(a: &Args<'_, '_>, i: usize) -> PyResult<Value> {
    let v = a.value(i)?;
    if matches!(v, Value::Nil) {
        return Err(a.err("the value must not be None (remove the item instead)"));
    }
    Ok(v)
}

/// `list_<fn>`: args start at tuple index 3, in the crate's order without `bin`.
fn list_op(f: &str, a: &Args<'_, '_>, b: String) -> PyResult<(Operation, bool)> {
    let n = a.len().saturating_sub(3);
    let need = |k: usize| -> PyResult<()> {
        if n == k {
            Ok(())
        } else {
            Err(a.err(format!(
                "expected {k} argument(s) after bin and ctx, got {n}"
            )))
        }
    };
    let order = |i: usize| list_order(a.int(i)?).map_err(|e| a.err(e));
    let w = |op: Operation| Ok((op, false));
    let r = |op: Operation| Ok((op, true));
    match f {
        "create" => {
            need(2)?;
            w(l::create(b, order(3)?, a.bool(4)?))
        }
        "set_order" => {
            need(1)?;
            w(l::set_order(b, order(3)?))
        }
        "append" => {
            need(2)?;
            w(l::append(&a.list_policy(3)?, b, a.value(4)?))
        }
        "append_items" => {
            need(2)?;
            w(l::append_items(&a.list_policy(3)?, b, non_empty(a, 4)?))
        }
        "insert" => {
            need(3)?;
            w(l::insert(&a.list_policy(3)?, b, a.int(4)?, a.value(5)?))
        }
        "insert_items" => {
            need(3)?;
            w(l::insert_items(
                &a.list_policy(3)?,
                b,
                a.int(4)?,
                non_empty(a, 5)?,
            ))
        }
        "pop" => {
            need(1)?;
            w(l::pop(b, a.int(3)?))
        }
        "pop_range" => {
            need(2)?;
            w(l::pop_range(b, a.int(3)?, a.int(4)?))
        }
        "pop_range_from" => {
            need(1)?;
            w(l::pop_range_from(b, a.int(3)?))
        }
        "remove" => {
            need(1)?;
            w(l::remove(b, a.int(3)?))
        }
        "remove_range" => {
            need(2)?;
            w(l::remove_range(b, a.int(3)?, a.int(4)?))
        }
        "remove_range_from" => {
            need(1)?;
            w(l::remove_range_from(b, a.int(3)?))
        }
        "remove_by_value" => {
            need(2)?;
            w(l::remove_by_value(b, a.value(3)?, lrt(a, 4)?))
        }
        "remove_by_value_list" => {
            need(2)?;
            w(l::remove_by_value_list(b, a.values(3)?, lrt(a, 4)?))
        }
        "remove_by_value_range" => {
            need(3)?;
            w(l::remove_by_value_range(
                b,
                lrt(a, 3)?,
                a.value(4)?,
                a.value(5)?,
            ))
        }
        "remove_by_value_relative_rank_range" => {
            need(3)?;
            w(l::remove_by_value_relative_rank_range(
                b,
                lrt(a, 3)?,
                a.value(4)?,
                a.int(5)?,
            ))
        }
        "remove_by_value_relative_rank_range_count" => {
            need(4)?;
            w(l::remove_by_value_relative_rank_range_count(
                b,
                lrt(a, 3)?,
                a.value(4)?,
                a.int(5)?,
                a.int(6)?,
            ))
        }
        "remove_by_index" => {
            need(2)?;
            w(l::remove_by_index(b, a.int(3)?, lrt(a, 4)?))
        }
        "remove_by_index_range" => {
            need(2)?;
            w(l::remove_by_index_range(b, a.int(3)?, lrt(a, 4)?))
        }
        "remove_by_index_range_count" => {
            need(3)?;
            w(l::remove_by_index_range_count(
                b,
                a.int(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "remove_by_rank" => {
            need(2)?;
            w(l::remove_by_rank(b, a.int(3)?, lrt(a, 4)?))
        }
        "remove_by_rank_range" => {
            need(2)?;
            w(l::remove_by_rank_range(b, a.int(3)?, lrt(a, 4)?))
        }
        "remove_by_rank_range_count" => {
            need(3)?;
            w(l::remove_by_rank_range_count(
                b,
                a.int(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "set" => {
            need(2)?;
            w(l::set(b, a.int(3)?, not_nil(a, 4)?))
        }
        "set_with_policy" => {
            need(3)?;
            w(l::set_with_policy(
                &a.list_policy(3)?,
                b,
                a.int(4)?,
                not_nil(a, 5)?,
            ))
        }
        "trim" => {
            need(2)?;
            w(l::trim(b, a.int(3)?, a.int(4)?))
        }
        "clear" => {
            need(0)?;
            w(l::clear(b))
        }
        "increment" => {
            need(3)?;
            w(l::increment(&a.list_policy(3)?, b, a.int(4)?, a.int(5)?))
        }
        "sort" => {
            need(1)?;
            let flags = u8::try_from(a.int(3)?).map_err(|_| a.err("bad sort flags"))?;
            w(l::sort(b, ListSortFlags::from_bits(flags)))
        }
        "size" => {
            need(0)?;
            r(l::size(b))
        }
        "get" => {
            need(1)?;
            r(l::get(b, a.int(3)?))
        }
        "get_range" => {
            need(2)?;
            r(l::get_range(b, a.int(3)?, a.int(4)?))
        }
        "get_range_from" => {
            need(1)?;
            r(l::get_range_from(b, a.int(3)?))
        }
        "get_by_value" => {
            need(2)?;
            r(l::get_by_value(b, a.value(3)?, lrt(a, 4)?))
        }
        "get_by_value_list" => {
            need(2)?;
            r(l::get_by_value_list(b, a.values(3)?, lrt(a, 4)?))
        }
        "get_by_value_range" => {
            need(3)?;
            r(l::get_by_value_range(
                b,
                a.value(3)?,
                a.value(4)?,
                lrt(a, 5)?,
            ))
        }
        "get_by_index" => {
            need(2)?;
            r(l::get_by_index(b, a.int(3)?, lrt(a, 4)?))
        }
        "get_by_index_range" => {
            need(2)?;
            r(l::get_by_index_range(b, a.int(3)?, lrt(a, 4)?))
        }
        "get_by_index_range_count" => {
            need(3)?;
            r(l::get_by_index_range_count(
                b,
                a.int(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "get_by_rank" => {
            need(2)?;
            r(l::get_by_rank(b, a.int(3)?, lrt(a, 4)?))
        }
        "get_by_rank_range" => {
            need(2)?;
            r(l::get_by_rank_range(b, a.int(3)?, lrt(a, 4)?))
        }
        "get_by_rank_range_count" => {
            need(3)?;
            r(l::get_by_rank_range_count(
                b,
                a.int(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "get_by_value_relative_rank_range" => {
            need(3)?;
            r(l::get_by_value_relative_rank_range(
                b,
                a.value(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "get_by_value_relative_rank_range_count" => {
            need(4)?;
            r(l::get_by_value_relative_rank_range_count(
                b,
                a.value(3)?,
                a.int(4)?,
                a.int(5)?,
                lrt(a, 6)?,
            ))
        }
        _ => Err(a.err("unknown list op")),
    }
}

/// `map_<fn>`: args start at tuple index 3, in the crate's order without `bin`.
fn map_op(
    f: &str,
    a: &Args<'_, '_>,
    b: String,
    ctx: &[o::cdt_context::CdtContext],
) -> PyResult<(Operation, bool)> {
    let n = a.len().saturating_sub(3);
    let need = |k: usize| -> PyResult<()> {
        if n == k {
            Ok(())
        } else {
            Err(a.err(format!(
                "expected {k} argument(s) after bin and ctx, got {n}"
            )))
        }
    };
    let w = |op: Operation| Ok((op, false));
    let r = |op: Operation| Ok((op, true));
    match f {
        "create" => {
            need(1)?;
            let order = map_order(a.int(3)?).map_err(|e| a.err(e))?;
            w(m::create(b, order, ctx.to_vec()))
        }
        "set_policy" => {
            need(1)?;
            w(m::set_policy(&a.map_policy(3)?, b, ctx.to_vec()))
        }
        "put" => {
            need(3)?;
            w(m::put(&a.map_policy(3)?, b, a.value(4)?, a.value(5)?))
        }
        "put_items" => {
            need(2)?;
            match a.value(4)? {
                Value::HashMap(items) => w(m::put_items(&a.map_policy(3)?, b, items)),
                _ => Err(a.err("items must be a dict")),
            }
        }
        "increment_value" => {
            need(3)?;
            w(m::increment_value(
                &a.map_policy(3)?,
                b,
                a.value(4)?,
                a.value(5)?,
            ))
        }
        "decrement_value" => {
            need(3)?;
            w(m::decrement_value(
                &a.map_policy(3)?,
                b,
                a.value(4)?,
                a.value(5)?,
            ))
        }
        "clear" => {
            need(0)?;
            w(m::clear(b))
        }
        "remove_by_key" => {
            need(2)?;
            w(m::remove_by_key(b, a.value(3)?, mrt(a, 4)?))
        }
        "remove_by_key_list" => {
            need(2)?;
            w(m::remove_by_key_list(b, a.values(3)?, mrt(a, 4)?))
        }
        "remove_by_key_range" => {
            need(3)?;
            w(m::remove_by_key_range(
                b,
                a.value(3)?,
                a.value(4)?,
                mrt(a, 5)?,
            ))
        }
        "remove_by_value" => {
            need(2)?;
            w(m::remove_by_value(b, a.value(3)?, mrt(a, 4)?))
        }
        "remove_by_value_list" => {
            need(2)?;
            w(m::remove_by_value_list(b, a.values(3)?, mrt(a, 4)?))
        }
        "remove_by_value_range" => {
            need(3)?;
            w(m::remove_by_value_range(
                b,
                a.value(3)?,
                a.value(4)?,
                mrt(a, 5)?,
            ))
        }
        "remove_by_index" => {
            need(2)?;
            w(m::remove_by_index(b, a.int(3)?, mrt(a, 4)?))
        }
        "remove_by_index_range" => {
            need(3)?;
            w(m::remove_by_index_range(
                b,
                a.int(3)?,
                a.int(4)?,
                mrt(a, 5)?,
            ))
        }
        "remove_by_index_range_from" => {
            need(2)?;
            w(m::remove_by_index_range_from(b, a.int(3)?, mrt(a, 4)?))
        }
        "remove_by_rank" => {
            need(2)?;
            w(m::remove_by_rank(b, a.int(3)?, mrt(a, 4)?))
        }
        "remove_by_rank_range" => {
            need(3)?;
            w(m::remove_by_rank_range(b, a.int(3)?, a.int(4)?, mrt(a, 5)?))
        }
        "remove_by_rank_range_from" => {
            need(2)?;
            w(m::remove_by_rank_range_from(b, a.int(3)?, mrt(a, 4)?))
        }
        "size" => {
            need(0)?;
            r(m::size(b))
        }
        "get_by_key" => {
            need(2)?;
            r(m::get_by_key(b, a.value(3)?, mrt(a, 4)?))
        }
        "get_by_key_range" => {
            need(3)?;
            r(m::get_by_key_range(b, a.value(3)?, a.value(4)?, mrt(a, 5)?))
        }
        "get_by_key_list" => {
            need(2)?;
            r(m::get_by_key_list(b, a.values(3)?, mrt(a, 4)?))
        }
        "get_by_value" => {
            need(2)?;
            r(m::get_by_value(b, a.value(3)?, mrt(a, 4)?))
        }
        "get_by_value_range" => {
            need(3)?;
            r(m::get_by_value_range(
                b,
                a.value(3)?,
                a.value(4)?,
                mrt(a, 5)?,
            ))
        }
        "get_by_value_list" => {
            need(2)?;
            r(m::get_by_value_list(b, a.values(3)?, mrt(a, 4)?))
        }
        "get_by_index" => {
            need(2)?;
            r(m::get_by_index(b, a.int(3)?, mrt(a, 4)?))
        }
        "get_by_index_range" => {
            need(3)?;
            r(m::get_by_index_range(b, a.int(3)?, a.int(4)?, mrt(a, 5)?))
        }
        "get_by_index_range_from" => {
            need(2)?;
            r(m::get_by_index_range_from(b, a.int(3)?, mrt(a, 4)?))
        }
        "get_by_rank" => {
            need(2)?;
            r(m::get_by_rank(b, a.int(3)?, mrt(a, 4)?))
        }
        "get_by_rank_range" => {
            need(3)?;
            r(m::get_by_rank_range(b, a.int(3)?, a.int(4)?, mrt(a, 5)?))
        }
        "get_by_rank_range_from" => {
            need(2)?;
            r(m::get_by_rank_range_from(b, a.int(3)?, mrt(a, 4)?))
        }
        "get_by_key_relative_index_range" => {
            need(3)?;
            r(m::get_by_key_relative_index_range(
                b,
                a.value(3)?,
                a.int(4)?,
                mrt(a, 5)?,
            ))
        }
        "get_by_key_relative_index_range_count" => {
            need(4)?;
            r(m::get_by_key_relative_index_range_count(
                b,
                a.value(3)?,
                a.int(4)?,
                a.int(5)?,
                mrt(a, 6)?,
            ))
        }
        "get_by_value_relative_rank_range" => {
            need(3)?;
            r(m::get_by_value_relative_rank_range(
                b,
                a.value(3)?,
                a.int(4)?,
                mrt(a, 5)?,
            ))
        }
        "get_by_value_relative_rank_range_count" => {
            need(4)?;
            r(m::get_by_value_relative_rank_range_count(
                b,
                a.value(3)?,
                a.int(4)?,
                a.int(5)?,
                mrt(a, 6)?,
            ))
        }
        _ => Err(a.err("unknown map op")),
    }
}
