//! Operation tuples `(name, bin, *args)` → `aerospike::operations::Operation`, one file per
//! family: `scalar` (bins, records, expressions), `list` (`list_*`), `map` (`map_*`), `bit`
//! (`bit_*`), `hll` (`hll_*`). The names each accepts are the ones `aerospike_fluent/_plan.py` declares (checked
//! by a test).

mod bit;
mod hll;
mod list;
mod map;
mod scalar;
pub mod wire;

use aerospike::operations::bitwise::BitwiseOverflowActions;
use aerospike::operations::Operation;
use aerospike::{ListReturnType, MapReturnType, Value};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::convert::args::Args;
use crate::convert::values::{to_value, Ctx};
use crate::errors::invalid_argument;

/// A converted op list and whether it only reads.
pub struct Ops {
    /// The operations, in order.
    pub ops: Vec<Operation>,
    /// True when no op writes (so "not found" means "no record").
    pub read_only: bool,
    /// How the server's answers map back to the ops.
    pub answers: Answers,
    /// The same ops as the SDK sends them itself (then `ops` is empty).
    pub wire: Option<wire::WireOps>,
}

/// How an operate's answers map back to its ops: the record shape every chain returns.
#[derive(Default)]
pub struct Answers {
    /// Per op: the bin whose result it reports (None for ops that report nothing).
    pub reports: Vec<Option<String>>,
    /// The positions of `touch` ops, which a server answers with no slot at all.
    pub touches: Vec<usize>,
    /// Whether a `read_all` / `read_header` op is present (results are then whole bins).
    pub whole: bool,
}

/// Convert a sequence of op tuples (a panic in the crate's op builders becomes `ClientError`).
pub fn to_ops(seq: &Bound<'_, PyAny>) -> PyResult<Ops> {
    crate::safety::guard::sync("op conversion", || convert_ops(seq, None))
}

/// Convert a sequence of op tuples to the wire's form (`request::operate` sends it).
pub fn to_wire_ops(seq: &Bound<'_, PyAny>) -> PyResult<Ops> {
    crate::safety::guard::sync("op conversion", || {
        convert_ops(seq, Some(wire::WireOps::default()))
    })
}

fn convert_ops(seq: &Bound<'_, PyAny>, wire: Option<wire::WireOps>) -> PyResult<Ops> {
    let mut out = Ops {
        ops: Vec::new(),
        read_only: true,
        answers: Answers::default(),
        wire,
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
    if out.ops.is_empty() && out.wire.as_ref().is_none_or(|w| w.count == 0) {
        return Err(invalid_argument("operate needs at least one op"));
    }
    Ok(out)
}

/// One converted op: the operation, whether it only reads, the bin it reports (if any).
type Converted = (Operation, bool, Option<String>);

impl Ops {
    fn reserve(&mut self, n: usize) {
        if self.wire.is_none() {
            self.ops.reserve_exact(n);
        }
        self.answers.reports.reserve_exact(n);
    }

    /// Convert one op tuple and append it.
    fn push(&mut self, item: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = item
            .cast::<PyTuple>()
            .map_err(|_| invalid_argument("each op must be a tuple (name, bin, *args)"))?;
        if let Some(wire) = &mut self.wire {
            let reads = wire.push(t)?;
            let report = self.bookkeeping(t, reads)?;
            self.read_only &= reads;
            self.answers.reports.push(report);
            return Ok(());
        }
        let (op, reads, report) = match scalar::fast(t) {
            Some(converted) => converted?,
            None => self.any_op(t)?,
        };
        self.read_only &= reads;
        self.ops.push(op);
        self.answers.reports.push(report);
        Ok(())
    }

    /// Any op tuple, through `to_op` (whose errors name the op).
    fn any_op(&mut self, t: &Bound<'_, PyTuple>) -> PyResult<Converted> {
        let (op, reads) = to_op(t)?;
        let report = self.bookkeeping(t, reads)?;
        Ok((op, reads, report))
    }

    /// Note what op `t` answers (`reads`: it only reads); the bin it reports, if any.
    fn bookkeeping(&mut self, t: &Bound<'_, PyTuple>, reads: bool) -> PyResult<Option<String>> {
        let name = t.get_item(0)?;
        let name = name.extract::<&str>().unwrap_or("");
        self.answers.whole |= matches!(name, "read_all" | "read_header");
        if name == "touch" {
            self.answers.touches.push(self.answers.reports.len());
        }
        // Writes answer nothing (a server's nil): they name no bin in the result.
        let silent = (name.starts_with("bit_") && !reads)
            || matches!(
                name,
                "hll_init"
                    | "hll_set_union"
                    | "hll_fold"
                    | "write"
                    | "exp_write"
                    | "add"
                    | "append"
                    | "prepend"
                    | "touch"
                    | "delete"
                    | "read_all"
                    | "read_header"
            );
        Ok(if silent {
            None
        } else {
            t.get_item(1)?.extract::<String>().ok()
        })
    }
}

pub(super) fn bin_name(a: &Args<'_, '_>) -> PyResult<String> {
    a.str(1).map_err(|_| a.err("bin name must be a str"))
}

pub(super) fn bin_value(a: &Args<'_, '_>, bin: &str) -> PyResult<Value> {
    to_value(&a.item(2)?, Ctx::bin(bin))
}

/// Convert one op tuple; also says whether it is a pure read.
fn to_op(t: &Bound<'_, PyTuple>) -> PyResult<(Operation, bool)> {
    let a = Args::new(t, "op")?;
    let name = a.name();
    if let Some(f) = name.strip_prefix("list_") {
        let bin = bin_name(&a)?;
        let ctx = a.ctx(2)?;
        let (op, reads) = list::op(f, &a, bin)?;
        return Ok((op.context(ctx), reads));
    }
    if let Some(f) = name.strip_prefix("map_") {
        let bin = bin_name(&a)?;
        let ctx = a.ctx(2)?;
        let (op, reads) = map::op(f, &a, bin, &ctx)?;
        if matches!(f, "create" | "set_policy") {
            return Ok((op, reads)); // these take the ctx themselves
        }
        return Ok((op.context(ctx), reads));
    }
    if let Some(f) = name.strip_prefix("bit_") {
        return bit::op(f, &a, bin_name(&a)?);
    }
    if let Some(f) = name.strip_prefix("hll_") {
        return hll::op(f, &a, bin_name(&a)?);
    }
    scalar::op(name, &a)
}

/// Check that a CDT op tuple has `k` arguments after its bin and ctx.
pub(super) fn args_after_ctx(a: &Args<'_, '_>, k: usize) -> PyResult<()> {
    let n = a.len().saturating_sub(3);
    if n == k {
        Ok(())
    } else {
        Err(a.err(format!(
            "expected {k} argument(s) after bin and ctx, got {n}"
        )))
    }
}

/// A converted op that writes.
pub(super) fn writes(op: Operation) -> PyResult<(Operation, bool)> {
    Ok((op, false))
}

/// A converted op that only reads.
pub(super) fn reads(op: Operation) -> PyResult<(Operation, bool)> {
    Ok((op, true))
}

pub(super) fn lrt(a: &Args<'_, '_>, i: usize) -> PyResult<ListReturnType> {
    Ok(ListReturnType::from_bits(a.int(i)?))
}

pub(super) fn mrt(a: &Args<'_, '_>, i: usize) -> PyResult<MapReturnType> {
    Ok(MapReturnType::from_bits(a.int(i)?))
}

/// Item `i` as a non-empty list (the crate panics on an empty one).
pub(super) fn non_empty(a: &Args<'_, '_>, i: usize) -> PyResult<Vec<Value>> {
    let v = a.values(i)?;
    if v.is_empty() {
        return Err(a.err("needs at least one item (the list is empty)"));
    }
    Ok(v)
}

/// Item `i` as a value other than None (the crate panics on nil).
pub(super) fn not_nil(a: &Args<'_, '_>, i: usize) -> PyResult<Value> {
    let v = a.value(i)?;
    if matches!(v, Value::Nil) {
        return Err(a.err("the value must not be None (remove the item instead)"));
    }
    Ok(v)
}

/// Item `i` as a bit overflow action (bit ops and bit modify expressions).
pub(crate) fn bit_overflow(a: &Args<'_, '_>, i: usize) -> PyResult<BitwiseOverflowActions> {
    Ok(match a.int(i)? {
        0 => BitwiseOverflowActions::Fail,
        2 => BitwiseOverflowActions::Saturate,
        4 => BitwiseOverflowActions::Wrap,
        v => return Err(a.err(format!("unknown overflow action {v}"))),
    })
}
