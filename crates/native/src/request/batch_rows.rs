//! Batch row tuples → `BatchOperation`s.
//!
//! Rows are checked and converted on the caller's thread; the crate operations (and the key
//! digests) are built by [`Row::into_op`] where the request is built.

use std::sync::Arc;

use aerospike::operations::{self, Operation};
use aerospike::{BatchOperation, Bin, Bins, Value};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert::args::Args;
use crate::convert::batch_row::Outcome;
use crate::convert::call_args::to_bins;
use crate::convert::values::{to_key_parts_in, to_value, Ctx, KeyParts, KeyScope};
use crate::errors::invalid_argument;
use crate::ops::wire::WireOps;
use crate::ops::{to_ops, to_wire_ops, Answers};
use crate::policy::{CallDefaults, Natives, Policy};
use crate::request;

/// What a row does.
enum Kind {
    Read(Bins),
    /// Ops that only read, and the same ops as the wire path sends them (when asked for).
    ReadOps(Vec<Operation>, Option<WireOps>),
    Write(Vec<Operation>, Option<WireOps>),
    /// A write of each bin.
    Put(Vec<Bin>),
    Delete,
    Udf(String, String, Vec<Value>),
}

/// A read row for the wire path: what it asks, its own policy set, its key tuple.
pub type WireRow = (request::batch::Ask, Option<Arc<Natives>>, Py<PyAny>);

/// One converted row.
pub struct Row {
    kind: Kind,
    /// For operate rows: how the answers map back to the ops (the record shape of a chain).
    pub shape: Option<Arc<Answers>>,
    key_parts: KeyParts,
    /// The row's own policy (`None`: the batch's).
    policy: Option<Arc<Natives>>,
    /// The key tuple the row was asked with (reused in the reply).
    pub key: Py<PyAny>,
}

impl Row {
    pub fn namespace(&self) -> &str {
        self.key_parts.namespace()
    }

    /// Whether the row writes.
    pub fn writes(&self) -> bool {
        !matches!(self.kind, Kind::Read(_) | Kind::ReadOps(..))
    }

    /// How the row's outcome is read back.
    pub fn outcome(&self) -> Outcome {
        match self.kind {
            Kind::Read(_) | Kind::ReadOps(..) | Kind::Delete => Outcome::MissingOk,
            Kind::Udf(..) => Outcome::Udf,
            Kind::Write(..) | Kind::Put(_) => Outcome::Write,
        }
    }

    /// Whether the wire path reads this row (`top`: the batch's policy set; see
    /// `request::batch::plain`).
    pub fn wire_read(&self, top: &Natives) -> bool {
        let p = self.policy.as_deref().unwrap_or(top);
        match &self.kind {
            Kind::Read(bins) => {
                p.batch_read_row.filter_expression.is_none()
                    && request::batch::read_of(bins).is_some()
            }
            Kind::ReadOps(_, Some(_)) => p.batch_read_row.filter_expression.is_none(),
            _ => false,
        }
    }

    /// Whether the wire path writes this put row (`top`: the batch's policy set; see
    /// `request::batch::plain_put`).
    pub fn wire_put(&self, top: &Natives) -> bool {
        let p = self.policy.as_deref().unwrap_or(top);
        match &self.kind {
            Kind::Put(bins) => p.wire_batch_put && request::single::writable(bins),
            // an ops row carries no user key field: one that stores its key goes to the crate
            Kind::Write(_, Some(_)) => p.wire_batch_put && !p.batch_write_row.send_key,
            _ => false,
        }
    }

    /// A [`Row::wire_read`] or [`Row::wire_put`] row as the wire path asks it, with its own policy set (`None`:
    /// the batch's) and its key tuple.
    pub fn into_ask(self, top: &Natives) -> aerospike::Result<WireRow> {
        let p = self.policy.as_deref().unwrap_or(top);
        let (job, ttl) = match self.kind {
            Kind::Read(bins) => (
                request::batch::read_of(&bins).map(request::batch::Job::Read),
                p.batch_read_row.read_touch_ttl.into(),
            ),
            Kind::Put(bins) => (
                Some(request::batch::Job::Put(bins)),
                p.batch_write_row.expiration.into(),
            ),
            Kind::ReadOps(crate_ops, Some(wire)) => (
                Some(ops_job(wire, crate_ops)),
                p.batch_read_row.read_touch_ttl.into(),
            ),
            Kind::Write(crate_ops, Some(wire)) => (
                Some(ops_job(wire, crate_ops)),
                p.batch_write_row.expiration.into(),
            ),
            _ => (None, 0),
        };
        let job = job.ok_or_else(|| aerospike::Error::client_error("not a plain row"))?;
        let send_key = p.batch_write_row.send_key;
        let ask = request::batch::Ask {
            key: self.key_parts.into_key()?,
            job,
            ttl,
            send_key,
        };
        Ok((ask, self.policy, self.key))
    }

    /// The crate operation (results land in it) and the key tuple; `top` is the batch's
    /// policy set.
    pub fn into_op(self, top: &Natives) -> aerospike::Result<(BatchOperation, Py<PyAny>)> {
        let p = self.policy.as_deref().unwrap_or(top);
        let key = self.key_parts.into_key()?;
        let op = match self.kind {
            Kind::Read(bins) => BatchOperation::read(&p.batch_read_row, key, bins),
            Kind::ReadOps(ops, _) => BatchOperation::read_ops(&p.batch_read_row, key, ops),
            Kind::Write(ops, _) => BatchOperation::write(&p.batch_write_row, key, ops),
            Kind::Put(bins) => {
                let ops: Vec<_> = bins.iter().map(operations::put).collect();
                BatchOperation::write(&p.batch_write_row, key, ops)
            }
            Kind::Delete => BatchOperation::delete(&p.batch_delete_row, key),
            Kind::Udf(module, function, args) => {
                BatchOperation::udf(&p.batch_udf_row, key, module, function, args)
            }
        };
        Ok((op, self.key))
    }
}

fn ops_job(wire: WireOps, crate_ops: Vec<Operation>) -> request::batch::Job {
    request::batch::Job::Ops(Arc::new(request::batch::OpsJob { wire, crate_ops }))
}

fn row_policy(a: &Args<'_, '_>, i: usize, d: &CallDefaults) -> PyResult<Option<Arc<Natives>>> {
    let v = a.item(i)?;
    if v.is_none() {
        return Ok(None);
    }
    let p = v
        .cast::<Policy>()
        .map_err(|_| a.err(format!("argument {i} must be a Policy or None")))?;
    Ok(Some(p.get().natives(d)))
}

/// Convert the rows: `("read", key, bins|None, header_only, policy|None)`,
/// `("write", key, ops, policy|None)`, `("put", key, bins, policy|None)` (a write of each bin),
/// `("delete", key, policy|None)`,
/// `("udf", key, module, function, args, policy|None)`. With `wire_ops`, a write row's ops
/// are also converted as the wire path sends them.
pub fn to_rows(rows: &Bound<'_, PyAny>, d: &CallDefaults, wire_ops: bool) -> PyResult<Vec<Row>> {
    crate::safety::guard::sync("batch row conversion", || convert_rows(rows, d, wire_ops))
}

fn convert_rows(rows: &Bound<'_, PyAny>, d: &CallDefaults, wire_ops: bool) -> PyResult<Vec<Row>> {
    let mut out = Vec::with_capacity(rows.len().unwrap_or(0));
    let mut scope = KeyScope::new(d.bytes_keys);
    for row in rows
        .try_iter()
        .map_err(|_| invalid_argument("batch rows must be a sequence of tuples"))?
    {
        let row = row?;
        let t = row
            .cast::<PyTuple>()
            .map_err(|_| invalid_argument("each batch row must be a tuple"))?;
        let a = Args::new(t, "batch row")?;
        let mut shape = None;
        let (kind, policy_at) = match a.name() {
            "read" => {
                a.arity(4)?;
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
                (Kind::Read(bins), 4)
            }
            "write" => {
                a.arity(3)?;
                let seq = a.item(2)?;
                let ops = to_ops(&seq)?;
                let wire = if wire_ops {
                    to_wire_ops(&seq)?.wire
                } else {
                    None
                };
                shape = Some(Arc::new(ops.answers));
                if ops.read_only {
                    (Kind::ReadOps(ops.ops, wire), 3)
                } else {
                    (Kind::Write(ops.ops, wire), 3)
                }
            }
            "put" => {
                a.arity(3)?;
                let bins = to_bins(&a.item(2)?)?;
                if bins.is_empty() {
                    return Err(a.err("a put row needs at least one bin"));
                }
                (Kind::Put(bins), 3)
            }
            "delete" => {
                a.arity(2)?;
                (Kind::Delete, 2)
            }
            "udf" => {
                a.arity(5)?;
                let module = a.str(2)?;
                let function = a.str(3)?;
                let args = match to_value(&a.item(4)?, Ctx::bin("<udf args>"))? {
                    Value::List(l) => l,
                    _ => return Err(a.err("udf args must be a list")),
                };
                (Kind::Udf(module, function, args), 5)
            }
            _ => return Err(a.err("unknown batch row kind (read, write, put, delete, udf)")),
        };
        let orig = a.item(1)?;
        out.push(Row {
            kind,
            shape,
            key_parts: to_key_parts_in(&orig, &mut scope)?,
            policy: row_policy(&a, policy_at, d)?,
            key: orig.unbind(),
        });
    }
    Ok(out)
}
