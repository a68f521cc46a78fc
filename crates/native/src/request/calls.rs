//! One `async fn` per operation; `py/client.rs` exposes each twice (async and blocking).
//! Single-record calls take the crate client of the runtime they run on (see `client/routes.rs`).

use std::sync::Arc;
use std::time::Duration;

use aerospike::policy::{BatchPolicy, ReadModeSc};
use aerospike::ReadPolicy;
use aerospike::{BatchOperation, Bin, Bins, Key, Record as AsRecord, ResultCode, Value};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::client::routes::RuntimeClient;
use crate::client::Inner;
use crate::convert::batch_row::{BatchRow, Outcome};
use crate::convert::depth;
use crate::convert::record::Record;
use crate::convert::values::{from_value, Names};
use crate::exec::completion::{Failure, IntoPy, OpResult};
use crate::ops::{Answers, Ops};
use crate::policy::Natives;
use crate::request::batch_rows::Row;
use crate::request::batch_wire::{self, Done};
use crate::request::retry::{self, Tries};
use crate::request::{operate, single};

/// How long index / UDF tasks may take to complete.
pub(crate) const TASK_WAIT: Duration = Duration::from_secs(30);

/// A record (or none) with the key it was read by (crate key, caller's key tuple).
pub struct RecordOut(Option<AsRecord>, Key, Py<PyAny>);

impl IntoPy for RecordOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.0 {
            Some(r) => {
                let rec = Record::from_native(py, &r, Some(&self.1), Some(self.2.bind(py)))?;
                Ok(Py::new(py, rec)?.into_any())
            }
            None => Ok(py.None()),
        }
    }
}

/// An operate result (or none), with what each op reports.
pub struct OperateOut(Option<AsRecord>, (Key, Py<PyAny>), Answers);

impl IntoPy for OperateOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.0 {
            Some(r) => {
                let key = (&self.1 .0, self.1 .1.bind(py));
                let rec = Record::from_operate(py, &r, key, &self.2)?;
                Ok(Py::new(py, rec)?.into_any())
            }
            None => Ok(py.None()),
        }
    }
}

/// `rec` once no value in it nests deeper than the client reads (see `convert/depth.rs`).
fn bounded(mut rec: AsRecord, key: &Key) -> OpResult<AsRecord> {
    match depth::bound_record(&mut rec) {
        Ok(()) => Ok(rec),
        Err(t) => Err(Failure::TooDeep(t, Some(Box::new(key.clone())))),
    }
}

fn not_found(e: &aerospike::Error) -> bool {
    e.server_result_code() == Some(ResultCode::KeyNotFoundError)
}

/// A strong-consistency read mode asked of a namespace that is not in that mode: refused
/// before anything is sent (the namespace's mode is the one its nodes' `replicas` report).
pub(crate) async fn check_read_mode(
    c: &RuntimeClient,
    read: &ReadPolicy,
    ns: &str,
) -> OpResult<()> {
    let mode = match read.base_policy.read_mode_sc {
        ReadModeSc::Session => return Ok(()),
        ReadModeSc::Linearize => "linearize",
        ReadModeSc::AllowReplica => "allow_replica",
        ReadModeSc::AllowUnavailable => "allow_unavailable",
    };
    if !c.wire.enabled() || !c.wire.table(&c.crate_client, ns).await.map.known_ap() {
        return Ok(());
    }
    Err(Failure::Native(
        aerospike::Error::invalid_argument(format!(
            "read_mode_sc={mode:?} is for strong-consistency namespaces, and namespace {ns:?} \
             is not one: its reads take read_mode_ap ('one' or 'all')"
        )),
        None,
    ))
}

/// Read a record; `None` when it does not exist.
pub async fn get(
    c: RuntimeClient,
    p: Arc<Natives>,
    (key, orig): (Key, Py<PyAny>),
    bins: Bins,
) -> OpResult<RecordOut> {
    check_read_mode(&c, &p.read, key.namespace()).await?;
    let mut tries = Tries::new(&p.read, false);
    if p.wire_read && c.wire.enabled() {
        loop {
            let policy = tries.policy();
            match single::get(
                &c.wire,
                &c.crate_client,
                policy,
                &key,
                tries.sequence(),
                &bins,
            )
            .await
            {
                Ok(Some(r)) => return Ok(RecordOut(Some(bounded(r, &key)?), key, orig)),
                Ok(None) => return Ok(RecordOut(None, key, orig)),
                Err(miss) => match tries.again(miss).await {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(f) => return Err(f.about(&key)),
                },
            }
        }
    }
    let (cl, pol, k) = (c.crate_client.clone(), tries.policy().clone(), key.clone());
    match c
        .on_crate(async move { cl.get(&pol, &k, bins).await })
        .await?
    {
        Ok(r) => Ok(RecordOut(Some(bounded(r, &key)?), key, orig)),
        Err(e) if not_found(&e) => Ok(RecordOut(None, key, orig)),
        Err(e) => Err(retry::explained(tries.unreachable, e, key)),
    }
}

/// Write bins.
pub async fn put(c: RuntimeClient, p: Arc<Natives>, key: Key, bins: Vec<Bin>) -> OpResult<()> {
    let mut tries = Tries::new(&p.write, true);
    let plain = p.wire_write && single::writable(&bins);
    if plain && c.wire.enabled() {
        match single::put(&c.wire, &c.crate_client, tries.policy(), &key, &bins).await {
            Ok(()) => return Ok(()),
            Err(miss) => {
                if let Err(f) = tries.again(miss).await {
                    return Err(f.about(&key));
                }
            }
        }
    }
    if !plain && p.wire_operate && c.wire.enabled() {
        if let Ok(ops) = crate::ops::wire::WireOps::puts(&bins) {
            return own_operate(&c, &p, &key, &ops).await.map(|_| ());
        }
    }
    let (cl, pol, k) = (c.crate_client.clone(), tries.policy().clone(), key.clone());
    c.on_crate(async move { cl.put(&pol, &k, &bins).await })
        .await?
        .map_err(|e| crate_failure(tries, e, key))
}

/// Delete; true if the record existed.
pub async fn delete(c: RuntimeClient, p: Arc<Natives>, key: Key) -> OpResult<bool> {
    let mut tries = Tries::new(&p.write, true);
    if p.wire_write && c.wire.enabled() {
        match single::delete(&c.wire, &c.crate_client, tries.policy(), &key).await {
            Ok(existed) => return Ok(existed),
            Err(miss) => {
                if let Err(f) = tries.again(miss).await {
                    return Err(f.about(&key));
                }
            }
        }
    }
    if p.wire_operate && c.wire.enabled() && !p.wire_write {
        let ops = crate::ops::wire::WireOps::delete();
        return own_operate(&c, &p, &key, &ops).await.map(|r| r.is_some());
    }
    let (cl, pol, k) = (c.crate_client.clone(), tries.policy().clone(), key.clone());
    c.on_crate(async move { cl.delete(&pol, &k).await })
        .await?
        .map_err(|e| crate_failure(tries, e, key))
}

/// The crate's failure `e` on `key` after our path's attempts `tries`.
fn crate_failure<P: retry::Based>(tries: Tries<'_, P>, e: aerospike::Error, key: Key) -> Failure {
    retry::in_doubt_if(tries.in_doubt, retry::explained(tries.unreachable, e, key))
}

/// Whether the record exists.
pub async fn exists(c: RuntimeClient, p: Arc<Natives>, key: Key) -> OpResult<bool> {
    check_read_mode(&c, &p.read, key.namespace()).await?;
    let mut tries = Tries::new(&p.read, false);
    if p.wire_read && c.wire.enabled() {
        loop {
            let policy = tries.policy();
            match single::exists(&c.wire, &c.crate_client, policy, &key, tries.sequence()).await {
                Ok(found) => return Ok(found),
                Err(miss) => match tries.again(miss).await {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(f) => return Err(f.about(&key)),
                },
            }
        }
    }
    let (cl, pol, k) = (c.crate_client.clone(), tries.policy().clone(), key.clone());
    c.on_crate(async move { cl.exists(&pol, &k).await })
        .await?
        .map_err(|e| retry::explained(tries.unreachable, e, key))
}

/// Reset the record's TTL.
pub async fn touch(c: RuntimeClient, p: Arc<Natives>, key: Key) -> OpResult<()> {
    if p.wire_operate && c.wire.enabled() {
        let ops = crate::ops::wire::WireOps::touch();
        return own_operate(&c, &p, &key, &ops).await.map(|_| ());
    }
    let (cl, pol, k) = (c.crate_client.clone(), p.write.clone(), key.clone());
    c.on_crate(async move { cl.touch(&pol, &k).await })
        .await?
        .map_err(Failure::keyed(&key))
}

/// Several ops on one record; `None` when a read-only op list finds no record.
pub async fn operate(
    c: RuntimeClient,
    p: Arc<Natives>,
    (key, orig): (Key, Py<PyAny>),
    ops: Ops,
) -> OpResult<OperateOut> {
    if let Some(wire) = &ops.wire {
        let r = own_operate(&c, &p, &key, wire).await?;
        return Ok(OperateOut(r, (key, orig), ops.answers));
    }
    let (cl, pol, k, list) = (
        c.crate_client.clone(),
        p.write.clone(),
        key.clone(),
        ops.ops,
    );
    match c
        .on_crate(async move { cl.operate(&pol, &k, &list).await })
        .await?
    {
        Ok(r) => Ok(OperateOut(
            Some(bounded(r, &key)?),
            (key, orig),
            ops.answers,
        )),
        Err(e) if ops.read_only && not_found(&e) => Ok(OperateOut(None, (key, orig), ops.answers)),
        Err(e) => Err(Failure::Native(e, Some(Box::new(key)))),
    }
}

/// `ops` on `key` over our path alone, retried as `retry` decides.
async fn own_operate(
    c: &RuntimeClient,
    p: &Natives,
    key: &Key,
    ops: &crate::ops::wire::WireOps,
) -> OpResult<Option<AsRecord>> {
    let mut tries = Tries::new(&p.write, ops.writes());
    loop {
        let attempt = if c.wire.enabled() {
            operate::operate(
                &c.wire,
                &c.crate_client,
                tries.policy(),
                key,
                tries.sequence(),
                ops,
            )
            .await
        } else {
            Err(single::Miss::NotSent)
        };
        match attempt {
            Ok(operate::Answer::Record(r)) => return Ok(Some(bounded(*r, key)?)),
            Ok(operate::Answer::NotFound) => return Ok(None),
            Ok(operate::Answer::TooDeep(t)) => {
                return Err(Failure::TooDeep(t, Some(Box::new(key.clone()))))
            }
            Err(miss) => {
                if let Err(f) = tries.again_own(miss).await {
                    return Err(f.about(key));
                }
            }
        }
    }
}

/// Finished batch rows, with the key tuples they were asked with and how each is read back,
/// and the error the crate's batch returned when a node's part of it failed.
pub struct BatchOut(Vec<Done>, RowKeys, TooDeepRows, Option<aerospike::Error>);

/// Per row, the value nested too deeply that its record was dropped for.
type TooDeepRows = Vec<Option<depth::TooDeep>>;

impl BatchOut {
    /// Rows whose records hold no value nested deeper than the client reads; a crate row whose
    /// record does loses it (taken apart) and reports `DeserializeError` (a wire row is checked
    /// as it is read).
    pub(crate) fn bounded(mut rows: Vec<Done>, keys: RowKeys) -> Self {
        let deep = rows
            .iter_mut()
            .map(|done| {
                let Done::Crate(op) = done else {
                    return None;
                };
                let too_deep = op.record().is_some_and(|r| {
                    r.bins
                        .values()
                        .chain(r.results.iter().flatten())
                        .any(|v| depth::deeper_than(v, depth::MAX_READ_DEPTH))
                });
                if !too_deep {
                    return None;
                }
                let mut rec = op.take_record()?;
                depth::bound_record(&mut rec).err()
            })
            .collect();
        BatchOut(rows, keys, deep, None)
    }

    /// These rows, of a batch whose crate part returned `failed`.
    pub(crate) fn failing(mut self, failed: Option<aerospike::Error>) -> Self {
        self.3 = failed;
        self
    }

    fn of_crate(
        (ops, failed): (Vec<BatchOperation>, Option<aerospike::Error>),
        keys: RowKeys,
    ) -> Self {
        let rows = ops
            .into_iter()
            .map(|op| Done::Crate(Box::new(op)))
            .collect();
        BatchOut::bounded(rows, keys).failing(failed)
    }
}

impl BatchOut {
    /// Convert the rows, appending them to `out`.
    pub fn push_rows(self, py: Python<'_>, out: &mut Vec<Py<BatchRow>>) -> PyResult<()> {
        let mut names = Names::default();
        let now = crate::convert::wire_chunk::unix_now();
        out.reserve(self.0.len());
        for ((done, (key, outcome, shape)), deep) in self.0.into_iter().zip(&self.1).zip(&self.2) {
            let key = key.bind(py);
            let row = match done.into_row(py, key, now, (shape.as_deref(), &mut names))? {
                Ok(row) => row,
                Err(op) => match deep {
                    Some(t) => BatchRow::too_deep(py, &op, Some(key), t)?,
                    None => {
                        let shape = shape.as_deref();
                        let whole = batch_wire::failed_with_node(&op, self.3.as_ref());
                        BatchRow::from_native(py, &op, Some(key), *outcome, shape, &mut names)?
                            .node_failed_if(whole)
                    }
                },
            };
            out.push(Py::new(py, row)?);
        }
        Ok(())
    }
}

impl BatchOut {
    /// Each row as it finished, and whether its record holds a value nested deeper than the
    /// client reads (for another output format).
    pub(crate) fn rows(&self) -> impl Iterator<Item = (&Done, bool)> {
        self.0
            .iter()
            .zip(&self.2)
            .map(|(done, deep)| (done, deep.is_some()))
    }
}

impl IntoPy for BatchOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut rows = Vec::new();
        self.push_rows(py, &mut rows)?;
        Ok(PyList::new(py, rows)?.into_any().unbind())
    }
}

/// Reads, writes, deletes and UDF calls in one round trip; per-row outcomes. Plain reads go
/// over the wire path (`batch_wire`).
pub async fn batch(i: Arc<Inner>, p: Arc<Natives>, rows: Vec<Row>) -> OpResult<BatchOut> {
    batch_on(i.worker_client(), p, rows).await
}

/// [`batch`] with the clients of the runtime it runs on.
pub async fn batch_on(c: RuntimeClient, p: Arc<Natives>, rows: Vec<Row>) -> OpResult<BatchOut> {
    if batch_wire::takes(&c, &p, &rows) {
        return batch_wire::run(c, p, rows).await;
    }
    batch_crate(&c, p, rows).await
}

/// [`batch`] through the crate's batch.
pub async fn batch_crate(c: &RuntimeClient, p: Arc<Natives>, rows: Vec<Row>) -> OpResult<BatchOut> {
    let has_write = rows.iter().any(Row::writes);
    let (ops, keys) = into_ops(rows, &p)?;
    let policy = if has_write { &p.batch_write } else { &p.batch };
    Ok(BatchOut::of_crate(batch_ops(c, policy, ops).await?, keys))
}

pub(crate) type RowKeys = Vec<(Py<PyAny>, Outcome, Option<Arc<Answers>>)>;

fn into_ops(rows: Vec<Row>, p: &Natives) -> OpResult<(Vec<BatchOperation>, RowKeys)> {
    let mut ops = Vec::with_capacity(rows.len());
    let mut keys = Vec::with_capacity(rows.len());
    for mut row in rows {
        let outcome = row.outcome();
        let shape = row.shape.take();
        let (op, key) = row.into_op(p)?;
        ops.push(op);
        keys.push((key, outcome, shape));
    }
    Ok((ops, keys))
}

/// Run one batch request; rows keep their own outcomes, and the error of a node that failed
/// as a whole comes with them (the call fails with it when no row has an outcome).
async fn batch_ops(
    c: &RuntimeClient,
    policy: &BatchPolicy,
    ops: Vec<BatchOperation>,
) -> OpResult<(Vec<BatchOperation>, Option<aerospike::Error>)> {
    match crate_batch(c, policy, ops).await? {
        (ops, Some(e)) if ops.iter().all(|o| o.result_code().is_none()) => Err(e.into()),
        done => Ok(done),
    }
}

/// Run one batch request through the crate: the rows, and its error when a node failed.
pub(crate) async fn crate_batch(
    c: &RuntimeClient,
    policy: &BatchPolicy,
    mut ops: Vec<BatchOperation>,
) -> OpResult<(Vec<BatchOperation>, Option<aerospike::Error>)> {
    let (cl, policy) = (c.crate_client.clone(), policy.clone());
    c.on_crate(async move {
        let failed = cl.batch(&policy, &mut ops).await.err();
        (ops, failed)
    })
    .await
}

/// Read-only rows split into batch requests of `size` rows, each a future to spawn on the
/// worker runtime (which hashes the keys, builds the request and parses the reply).
pub fn batch_parts(
    i: &Arc<Inner>,
    p: &Arc<Natives>,
    rows: Vec<Row>,
    size: usize,
) -> Vec<BatchPart> {
    let size = size.max(1);
    let mut out = Vec::with_capacity(rows.len().div_ceil(size));
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let part: Vec<Row> = rows.by_ref().take(size).collect();
        let (i, p) = (i.clone(), p.clone());
        out.push(Box::pin(batch(i, p, part)) as BatchPart);
    }
    out
}

/// The rows of a split batch, gathered part by part on the loop thread.
#[derive(Default)]
pub struct BatchRows(Vec<Py<BatchRow>>);

impl crate::exec::completion::Parts for BatchRows {
    type Part = BatchOut;

    fn push(&mut self, py: Python<'_>, part: BatchOut) -> PyResult<()> {
        part.push_rows(py, &mut self.0)
    }

    fn finish(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(PyList::new(py, self.0)?.into_any().unbind())
    }
}

/// One part of a split batch.
pub type BatchPart =
    std::pin::Pin<Box<dyn std::future::Future<Output = OpResult<BatchOut>> + Send + 'static>>;

/// A UDF's return value.
pub struct ValueOut(Option<Value>);

impl IntoPy for ValueOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.0 {
            Some(v) => from_value(py, &v),
            None => Ok(py.None()),
        }
    }
}

/// Call a record UDF.
/// A record UDF inside a transaction, as a batch: the crate's single-record UDF command
/// carries no transaction fields, its batch rows do. A batch of one key is sent as that
/// single command, so a header read of the same key rides along (it runs after the UDF, on
/// the transaction's own provisional record).
async fn udf_in_txn(
    c: &RuntimeClient,
    p: &Natives,
    key: &Key,
    module: String,
    function: String,
    args: Vec<Value>,
) -> OpResult<Option<Value>> {
    let mut ops = [
        BatchOperation::udf(&p.batch_udf_row, key.clone(), module, function, args),
        BatchOperation::read(&p.batch_read_row, key.clone(), Bins::None),
    ];
    let (cl, pol) = (c.crate_client.clone(), p.batch_write.clone());
    let ops = c
        .on_crate(async move { cl.batch(&pol, &mut ops).await.map(|()| ops) })
        .await?
        .map_err(Failure::keyed(key))?;
    let [op, _] = ops;
    let row = op.into_batch_record();
    if let Some(e) = row.error() {
        return Err(Failure::Native(e.clone(), Some(Box::new(key.clone()))));
    }
    Ok(row.record.and_then(|mut r| r.bins.shift_remove("SUCCESS")))
}

pub async fn udf_apply(
    c: RuntimeClient,
    p: Arc<Natives>,
    key: Key,
    module: String,
    function: String,
    args: Vec<Value>,
) -> OpResult<ValueOut> {
    let mut value = if p.udf.base_policy.txn.is_some() {
        udf_in_txn(&c, &p, &key, module, function, args).await?
    } else {
        let (cl, pol, k) = (c.crate_client.clone(), p.udf.clone(), key.clone());
        c.on_crate(async move { cl.execute_udf(&pol, &k, &module, &function, &args).await })
            .await?
            .map_err(Failure::keyed(&key))?
    };
    if let Some(v) = value.as_mut() {
        depth::bound_value(v, None).map_err(|t| Failure::TooDeep(t, Some(Box::new(key))))?;
    }
    Ok(ValueOut(value))
}

#[cfg(test)]
mod tests {
    fn returned<A, B, C, D, R>(_: impl FnOnce(A, B, C, D) -> R) -> usize {
        std::mem::size_of::<R>()
    }

    /// A call's future is moved a few times before its first poll (boxed, wrapped): the
    /// crate's command and connecting are boxed where they start, not held inline (9 KiB).
    #[test]
    fn single_record_futures_hold_neither_the_crates_command_nor_a_connect() {
        assert!(returned(super::get) < 4096, "get: {}", returned(super::get));
        assert!(returned(super::put) < 4096, "put: {}", returned(super::put));
    }
}
