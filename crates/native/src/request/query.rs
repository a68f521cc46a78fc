//! Scans and secondary-index queries as a `QueryStream`: a producer task fills a bounded
//! channel with chunks; `next_chunk` pulls one; the resume token records, per partition, the
//! last digest (and, in an index query, bval) of the records the caller consumed.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use aerospike::query::{PartitionStatus, Recordset, Statement};
use aerospike::{Bins, PartitionFilter, Record as AsRecord};

use futures::{FutureExt, StreamExt};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::client::Inner;
use crate::convert::chunk::Batch;
use crate::convert::models::ModelPlan;
use crate::convert::token::{self, Cursor, PARTITIONS};
use crate::errors::invalid_argument;
use crate::errors::ResumeTokenError;
use crate::exec::blocking::{self, Driver};
use crate::exec::completion::{self, Failure, IntoPy, OpResult, Pending};
use crate::metrics::{Kind, Meter, Metrics};
use crate::policy::Natives;
use crate::request;
use crate::request::redelivery::{Mode, Redelivery};

/// What to run, validated before anything is sent.
pub struct Spec {
    statement: Statement,
    namespace: String,
    set_name: String,
    bins: Option<Vec<String>>,
    /// The secondary-index condition as request fields (none: a scan).
    index: Option<request::IndexQuery>,
    max_records: u64,
    begin: usize,
    count: usize,
    resume: BTreeMap<u16, Cursor>,
    chunk_size: usize,
}

impl Spec {
    /// Validate the query arguments.
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        namespace: String,
        set_name: String,
        bins: Option<Vec<String>>,
        filter: Option<&Bound<'_, PyAny>>,
        max_records: u64,
        partitions: Option<&Bound<'_, PyAny>>,
        chunk_size: usize,
    ) -> PyResult<Self> {
        if chunk_size == 0 || chunk_size > 100_000 {
            return Err(invalid_argument("chunk_size must be 1..=100000"));
        }
        let selected = match bins.clone() {
            None => Bins::All,
            Some(b) if b.is_empty() => Bins::None,
            Some(b) => Bins::Some(b),
        };
        let mut statement = Statement::new(namespace.clone(), set_name.clone(), selected);
        let mut index = None;
        if let Some(f) = filter.filter(|f| !f.is_none()) {
            let (filter, fields) = crate::crate_calls::indexes::query_index(f)?;
            statement.set_filter(filter);
            index = Some(fields);
        }
        let (begin, count, resume) = match partitions.filter(|p| !p.is_none()) {
            None => (0, PARTITIONS, BTreeMap::new()),
            Some(p) => {
                if let Ok(b) = p.cast::<PyBytes>() {
                    let t = token::parse(b.as_bytes(), index.is_some())?;
                    (t.begin, t.count, t.cursors)
                } else {
                    let (begin, count): (usize, usize) = p.extract().map_err(|_| {
                        invalid_argument("partitions must be (begin, count) or a resume token")
                    })?;
                    if count == 0 || begin + count > PARTITIONS {
                        return Err(invalid_argument(format!(
                            "partition range ({begin}, {count}) outside 0..4096"
                        )));
                    }
                    (begin, count, BTreeMap::new())
                }
            }
        };
        Ok(Spec {
            statement,
            namespace,
            set_name,
            bins,
            index,
            max_records,
            begin,
            count,
            resume,
            chunk_size,
        })
    }

    fn partition_filter(&self) -> PartitionFilter {
        let mut pf = PartitionFilter::by_range(self.begin, self.count);
        if !self.resume.is_empty() {
            let parts = (self.begin..self.begin + self.count)
                .map(|id| {
                    let mut ps = PartitionStatus::new(id);
                    let cursor = u16::try_from(id)
                        .ok()
                        .and_then(|i| self.resume.get(&i).copied());
                    ps.digest = cursor.map(|c| c.digest);
                    ps.bval = cursor.and_then(|c| c.bval);
                    parking_lot::Mutex::new(ps)
                })
                .collect();
            pf.partitions = Some(Arc::new(parts));
        }
        pf
    }
}

type Chunk = Result<Batch, Failure>;

struct Shared {
    rx: tokio::sync::Mutex<mpsc::Receiver<Chunk>>,
    progress: Mutex<Progress>,
    /// The running query: closing it ends the crate's per-node tasks, which otherwise stay
    /// blocked on a full record queue holding their pooled connections.
    recordset: Mutex<Option<Arc<Recordset>>>,
    closed: AtomicBool,
    /// How the stream is counted in the client's metrics, until it ends (or is dropped).
    meter: Mutex<Option<(Meter, Arc<Metrics>)>>,
    /// The model its records are delivered as (`set_model`), if any.
    model: Arc<std::sync::OnceLock<Py<ModelPlan>>>,
}

impl Shared {
    /// Count the stream, once: ended with `failure`, or finished (or left by its reader).
    fn metered(&self, failure: Option<&Failure>) {
        if let Some((meter, metrics)) = self.meter.lock().take() {
            metrics.record(&meter, "", false, failure, 0);
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.metered(None);
    }
}

impl Shared {
    /// Keep `rs` for `close()`; false (and `rs` closed) if the stream was closed already.
    fn adopt(&self, rs: &Arc<Recordset>) -> bool {
        let mut slot = self.recordset.lock();
        if self.closed.load(Ordering::Acquire) {
            rs.close();
            return false;
        }
        *slot = Some(rs.clone());
        true
    }

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let rs = self.recordset.lock().take();
        if let Some(rs) = rs {
            rs.close();
        }
    }
}

/// Where a resume continues: per partition, the cursor of the last record consumed.
///
/// Chunks handed out before the caller asks for another have been consumed whole; the newest
/// one (`pending`) only as far as the caller says when it asks for a token.
struct Progress {
    begin: usize,
    count: usize,
    /// An index query (its cursors need bvals).
    indexed: bool,
    /// Last cursor per partition over the records of every chunk before `pending`.
    last: BTreeMap<u16, Cursor>,
    /// Records in those chunks.
    committed: u64,
    /// The newest chunk's records: partition and cursor (None for a record without a key).
    pending: Vec<Option<(u16, Cursor)>>,
    finished: bool,
}

impl Progress {
    /// The caller asked for another chunk: it has consumed every record handed out so far.
    fn commit(&mut self) {
        self.committed += self.pending.len() as u64;
        // A partition's records come in runs: only each run's last cursor needs the map.
        let mut records = self.pending.drain(..).flatten().peekable();
        while let Some((pid, cursor)) = records.next() {
            if records.peek().is_none_or(|(next, _)| *next != pid) {
                self.last.insert(pid, cursor);
            }
        }
    }

    /// Last cursor per partition once `consumed` records in all have been consumed (at most
    /// every record handed out).
    fn consumed(&self, consumed: u64) -> BTreeMap<u16, Cursor> {
        let mut last = self.last.clone();
        let more = consumed.saturating_sub(self.committed);
        let more = usize::try_from(more).unwrap_or(usize::MAX);
        for (pid, cursor) in self.pending.iter().take(more).flatten() {
            last.insert(*pid, *cursor);
        }
        last
    }
}

/// Records of a scan/query, pulled in chunks through a bounded buffer.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct QueryStream {
    shared: Arc<Shared>,
    producer: AbortHandle,
    handle: Handle,
    inner: Arc<Inner>,
}

/// Start the producer task.
pub fn start(i: Arc<Inner>, handle: &Handle, p: Arc<Natives>, spec: Spec) -> PyResult<QueryStream> {
    let (tx, rx) = mpsc::channel::<Chunk>(2);
    let pf = spec.partition_filter();
    let mut policy = p.query.clone();
    policy.max_records = spec.max_records;
    policy.record_queue_size = spec.chunk_size.clamp(16, 4096);
    let chunk = spec.chunk_size;
    let shared = Arc::new(Shared {
        rx: tokio::sync::Mutex::new(rx),
        progress: Mutex::new(Progress {
            begin: spec.begin,
            count: spec.count,
            indexed: spec.index.is_some(),
            last: spec.resume.clone(),
            committed: 0,
            pending: Vec::new(),
            finished: false,
        }),
        recordset: Mutex::new(None),
        closed: AtomicBool::new(false),
        model: Arc::default(),
        meter: Mutex::new(i.metrics.enabled().then(|| {
            let kind = if spec.index.is_some() {
                Kind::Query
            } else {
                Kind::Scan
            };
            (Meter::new(kind, spec.namespace.as_str()), i.metrics.clone())
        })),
    });
    let sh = shared.clone();
    let indexed = spec.index.is_some();
    let wire_plan = {
        let target = request::Target {
            namespace: &spec.namespace,
            set_name: &spec.set_name,
            bins: spec.bins.as_deref(),
            index: spec.index.as_ref(),
            begin: spec.begin,
            count: spec.count,
            resume: &spec.resume,
            max_records: spec.max_records,
            chunk_size: spec.chunk_size,
        };
        request::plan(&policy, &target).filter(|_| i.links.usable())
    };
    let statement = spec.statement;
    let inner = i.clone();
    let empty = spec.count == 0; // a token from a finished stream
    let on_panic = tx.clone();
    let producer = async move {
        if empty {
            return;
        }
        if let Some(plan) = wire_plan {
            request::scan::run(&i.client, &i.worker_wire, plan, &tx).await;
            return;
        }
        let rs = match i.client.query(&policy, pf, statement).await {
            Ok(rs) => rs,
            Err(e) => {
                let _ = tx.send(Err(diagnosed(e, &i))).await;
                return;
            }
        };
        if !sh.adopt(&rs) {
            return;
        }
        let mut stream = rs.clone().into_stream();
        let mut buf = Vec::with_capacity(chunk);
        // The crate retries from a cursor that can lag what it queued; an index query's
        // records carry no position here.
        let mut seen = Redelivery::new(if indexed { Mode::Any } else { Mode::Scan });
        while let Some(item) = stream.next().await {
            match item.map_err(|e| diagnosed(e, &i)).and_then(bounded) {
                Ok(r) => {
                    let fresh = match &r.key {
                        Some(k) => u16::try_from(k.partition_id())
                            .map_or(true, |pid| seen.is_new(pid, k.digest(), None)),
                        None => true,
                    };
                    if !fresh {
                        continue;
                    }
                    buf.push(r);
                    if buf.len() >= chunk
                        && tx
                            .send(Ok(Batch::Crate(std::mem::replace(
                                &mut buf,
                                Vec::with_capacity(chunk),
                            ))))
                            .await
                            .is_err()
                    {
                        rs.close();
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                    rs.close();
                    return;
                }
            }
        }
        if !buf.is_empty() {
            let _ = tx.send(Ok(Batch::Crate(buf))).await;
        }
    };
    let task = handle.spawn(async move {
        if let Err(p) = AssertUnwindSafe(producer).catch_unwind().await {
            let msg = format!(
                "internal error in a query (the aerospike crate panicked: {})",
                crate::safety::guard::message(&*p)
            );
            let _ = on_panic
                .send(Err(aerospike::Error::client_error(msg).into()))
                .await;
        }
    });
    Ok(QueryStream {
        shared,
        producer: task.abort_handle(),
        handle: handle.clone(),
        inner,
    })
}

/// A query's failure, named for what it is when it gave up waiting for a connection while a
/// node's pool had none free (open streams hold one per node until they end).
fn diagnosed(e: aerospike::Error, i: &Inner) -> Failure {
    use aerospike::ErrorKind;
    let gave_up = matches!(
        e.kind(),
        ErrorKind::Timeout
            | ErrorKind::Connection
            | ErrorKind::ConnectionPoolEmpty
            | ErrorKind::NoMoreConnections
    ) || e.to_string().contains("Max retries exceeded");
    let pool = crate::client::routes::worker_policy(&i.policy).max_conns_per_node;
    let full = i.client.nodes().iter().any(|n| {
        let g = n.pool_gauges();
        g.in_pool == 0 && g.total >= pool as u64
    });
    if gave_up && full {
        Failure::PoolExhausted(e, pool)
    } else {
        e.into()
    }
}

/// `rec` once no value in it nests deeper than the client reads (see `convert/depth.rs`).
fn bounded(mut rec: AsRecord) -> Result<AsRecord, Failure> {
    match crate::convert::depth::bound_record(&mut rec) {
        Ok(()) => Ok(rec),
        Err(t) => Err(Failure::TooDeep(t, rec.key.take().map(Box::new))),
    }
}

/// One delivered chunk (or `None` at the end), and the model its records become.
struct ChunkOut(Option<Batch>, Arc<std::sync::OnceLock<Py<ModelPlan>>>);

impl IntoPy for ChunkOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let Some(batch) = self.0 else {
            return Ok(py.None());
        };
        let list = match self.1.get() {
            Some(plan) => batch.into_py_as(py, plan.get())?,
            None => batch.into_py(py)?,
        };
        Ok(list.into_any().unbind())
    }
}

async fn next(shared: Arc<Shared>) -> OpResult<ChunkOut> {
    let model = shared.model.clone();
    next_records(shared).await.map(|b| ChunkOut(b, model))
}

/// The next chunk's records (`None` at the end); the chunk handed out before is consumed.
async fn next_records(shared: Arc<Shared>) -> OpResult<Option<Batch>> {
    let item = shared.rx.lock().await.recv().await;
    take(&shared, item)
}

/// The chunk buffered now, if any (`Some(None)` at the end), without waiting.
fn buffered(shared: &Shared) -> Option<OpResult<Option<Batch>>> {
    let mut rx = shared.rx.try_lock().ok()?;
    let item = match rx.try_recv() {
        Ok(item) => Some(item),
        Err(mpsc::error::TryRecvError::Empty) => return None,
        Err(mpsc::error::TryRecvError::Disconnected) => None,
    };
    drop(rx);
    Some(take(shared, item))
}

/// Hand out `item`, received from the producer (`None`: it ended).
fn take(shared: &Shared, item: Option<Chunk>) -> OpResult<Option<Batch>> {
    let mut prog = shared.progress.lock();
    prog.commit();
    match item {
        None => {
            prog.finished = true;
            drop(prog);
            shared.metered(None);
            Ok(None)
        }
        Some(Err(f)) => {
            drop(prog);
            shared.metered(Some(&f));
            Err(f)
        }
        Some(Ok(batch)) => {
            prog.pending.extend(batch.positions());
            Ok(Some(batch))
        }
    }
}

impl QueryStream {
    /// The next chunk's records, for another output format (as `next_chunk`, unconverted).
    pub(crate) fn next_records(
        &self,
    ) -> impl std::future::Future<Output = OpResult<Option<Batch>>> + Send + 'static {
        self.inner
            .until_closed(false.into(), next_records(self.shared.clone()))
    }

    /// The worker runtime the stream's chunks are fetched on.
    pub(crate) fn handle(&self) -> &Handle {
        &self.handle
    }
}

#[pymethods]
impl QueryStream {
    /// `done` receives a list of up to `chunk_size` records, or `None` at the end.
    fn next_chunk(&self, done: Py<PyAny>) -> Pending {
        let fut = self
            .inner
            .until_closed(false.into(), next(self.shared.clone()));
        completion::start(&self.handle, done, fut)
    }

    /// The next chunk if it is buffered already: `(True, records)` (`None` at the end), or
    /// `(False, None)` when the caller must wait for it with `next_chunk`.
    fn ready_chunk(&self, py: Python<'_>) -> PyResult<(bool, Py<PyAny>)> {
        if *self.inner.closing.borrow() || self.shared.closed.load(Ordering::Acquire) {
            return Ok((false, py.None()));
        }
        let Some(out) = buffered(&self.shared) else {
            return Ok((false, py.None()));
        };
        crate::safety::guard::sync("result conversion", || {
            let out = out.map_err(|f| f.into_pyerr(py))?;
            Ok((true, ChunkOut(out, self.shared.model.clone()).into_py(py)?))
        })
    }

    /// Deliver the records as instances of `plan`'s model from now on (a record that does not
    /// fit plainly stays a `Record`); once per stream.
    fn set_model(&self, plan: Py<ModelPlan>) -> PyResult<()> {
        self.shared
            .model
            .set(plan)
            .map_err(|_| crate::errors::invalid_argument("this stream has a model already"))
    }

    /// The next chunk, blocking; `None` at the end.
    fn next_chunk_blocking(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fut = self
            .inner
            .until_closed(false.into(), next(self.shared.clone()));
        blocking::block(py, Driver::Worker(&self.handle), fut)
    }

    /// Opaque token: pass it as `partitions` to continue after the first `consumed` records
    /// this stream delivered (None: all of them).
    #[pyo3(signature = (consumed=None))]
    fn resume_token<'py>(
        &self,
        py: Python<'py>,
        consumed: Option<u64>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let prog = self.shared.progress.lock();
        let (begin, count, last) = if prog.finished {
            (0u16, 0u16, BTreeMap::new())
        } else {
            let last = prog.consumed(consumed.unwrap_or(u64::MAX));
            (prog.begin as u16, prog.count as u16, last)
        };
        let b =
            token::encode(begin, count, prog.indexed, &last).map_err(ResumeTokenError::new_err)?;
        Ok(PyBytes::new(py, &b))
    }

    /// `(records, partitions, partitions_total)`: records handed out, the partitions they came
    /// from (every partition once the stream ended), and the partitions read.
    fn progress(&self) -> (u64, usize, usize) {
        let p = self.shared.progress.lock();
        let records = p.committed + p.pending.len() as u64;
        if p.finished {
            return (records, p.count, p.count);
        }
        let mut reached: std::collections::BTreeSet<u16> = p.last.keys().copied().collect();
        reached.extend(p.pending.iter().flatten().map(|(pid, _)| *pid));
        (records, reached.len(), p.count)
    }

    /// Stop the query and drop buffered records.
    fn close(&self) {
        self.producer.abort();
        self.shared.close();
    }
}

impl Drop for QueryStream {
    fn drop(&mut self) {
        self.producer.abort();
        self.shared.close();
    }
}
