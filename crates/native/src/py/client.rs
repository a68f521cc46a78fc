//! `Client`: a connected cluster and its operations. Each operation is declared once in
//! [`operations!`], which generates its async pymethod (`name(done, ...)`, returning a
//! `Pending`) and its blocking twin (`name_blocking(...)`); where each runs is `client/routes.rs`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use aerospike::policy::{AdminPolicy, ClientPolicy};
use aerospike::Host;
use pyo3::prelude::*;
use tokio::runtime::Handle;
use tokio::sync::watch;

use crate::client::routes::close_on_loop;
use crate::convert::call_args::{bins_selector, to_bins, udf_args};
use crate::convert::values::to_key;
use crate::crate_calls::transaction::Transaction;
use crate::errors::closed;
use crate::exec::admission::Admission;
use crate::exec::completion::{Failure, IntoPy, OpResult, Pending};
use crate::exec::runtime;
use crate::exec::spin::Spin;
use crate::metrics::{Call, Kind, Meter, Metrics, NodeRow, Snapshot};
use crate::ops::{to_ops, to_wire_ops};
use crate::policy::{CallDefaults, Defaults, Natives, Policy};
use crate::request::calls;
use crate::request::query::{self, QueryStream};

pub use crate::client::Inner;
use crate::client::{maintain, NEXT_CLIENT_ID};

/// A connected cluster client, or a view of one with other call defaults (`with_defaults`).
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
    /// The defaults of calls through this client; `natives` are those of a call without a
    /// policy of its own.
    pub(super) defaults: Defaults,
    natives: Arc<Natives>,
    /// Made by `with_defaults`: it shares the client's connections, and dropping it closes
    /// nothing.
    view: bool,
    /// Set on a transaction's view (`with_transaction`): its record and batch calls run in it.
    txn: Option<Arc<aerospike::Txn>>,
}

/// A client nobody closed warns (`ResourceWarning`, as unclosed files do) and releases its
/// connections and tend tasks when it is collected.
impl Drop for Client {
    fn drop(&mut self) {
        let inner = &self.inner;
        if self.view
            || inner.closed.load(Ordering::Acquire)
            || inner.generation != runtime::generation()
        {
            return;
        }
        crate::exec::exit::with_python(|py| {
            // Collected while an exception propagates (a Ctrl-C right after connecting): the
            // warning must neither report nor clear it.
            let propagating = PyErr::take(py);
            let warned = PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyResourceWarning>(),
                c"unclosed aerospike_fluent client (use close() or a with block)",
                1,
            );
            if let Err(e) = warned {
                e.write_unraisable(py, None);
            }
            if let Some(e) = propagating {
                e.restore(py);
            }
        });
        self.shut_down(None);
    }
}

impl Client {
    /// The client's shared state, unless it is closed or was inherited over `fork()`.
    pub(crate) fn live(&self) -> PyResult<&Arc<Inner>> {
        let i = &self.inner;
        if i.closed.load(Ordering::Acquire) {
            return Err(closed("the client is closed"));
        }
        if i.generation != runtime::generation() {
            return Err(closed(
                "this client was created before fork(); connect again in the child",
            ));
        }
        Ok(i)
    }

    /// Close every crate client of this client (once). With `py`, clients on event loops'
    /// runtimes are closed now (their loop may never run again); without, on their loop's next
    /// tick.
    fn shut_down(&self, py: Option<Python<'_>>) {
        if self.inner.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        if self.inner.generation != runtime::generation() {
            return; // its runtime is gone in this (forked) process
        }
        self.inner.closing.send_replace(true);
        let c = self.inner.worker_client();
        self.inner.handle.spawn(async move {
            c.close().await;
        });
        if let (Some(c), Some(rt)) = (self.inner.direct.get(), self.inner.caller.get()) {
            let c = c.clone();
            rt.spawn(async move {
                c.close().await;
            });
        }
        let on_loops = std::mem::take(&mut *self.inner.on_loops.lock());
        for rt in on_loops.iter().filter_map(Weak::upgrade) {
            let client = rt.take_client(self.inner.id);
            if let Some(c) = client.as_ref().and_then(|cell| cell.get()) {
                close_on_loop(py, &rt, c.clone());
            }
        }
    }

    /// The key of a key tuple, a `bytes` user key hashed as the client's `bytes_keys` says.
    fn key(&self, key: &Bound<'_, PyAny>) -> PyResult<aerospike::Key> {
        to_key(key, self.defaults.calls.bytes_keys)
    }

    /// The native policies of a call: its own, or the client's defaults; inside the view's
    /// transaction, if any (refused once it is finished).
    pub(super) fn natives(&self, policy: Option<&Bound<'_, Policy>>) -> PyResult<Arc<Natives>> {
        let natives = match policy {
            Some(p) => p.get().natives(&self.defaults.calls),
            None => self.natives.clone(),
        };
        match &self.txn {
            Some(txn) => crate::crate_calls::transaction::natives_in(txn, &natives),
            None => Ok(natives),
        }
    }

    /// The view's transaction, for commit and abort.
    fn transaction(&self, txn: &Bound<'_, Transaction>) -> Arc<aerospike::Txn> {
        let _ = self;
        txn.get().txn.clone()
    }
}

/// Connect (the one async fn behind `connect` and `connect_blocking`).
pub(crate) async fn do_connect(
    policy: ClientPolicy,
    hosts: Vec<Host>,
    defaults: Defaults,
    handle: Handle,
) -> OpResult<Client> {
    let worker_policy = crate::client::routes::worker_policy(&policy);
    let client = aerospike::Client::new(&worker_policy, &hosts).await?;
    let admin = AdminPolicy {
        timeout: defaults.calls.info_timeout,
    };
    let shares = crate::client::routes::shares(policy.max_conns_per_node);
    let metrics = Metrics::new(defaults.metrics);
    let links = crate::conn::Links::new(
        &policy,
        policy.max_conns_per_node,
        shares.wire,
        metrics.clone(),
    )
    .map_err(|e| Failure::Coded(-2, e))?;
    let worker_wire = crate::conn::Pool::new(&worker_policy, links.clone());
    let closing = watch::Sender::new(false);
    handle.spawn(maintain(
        &policy,
        shares,
        client.clone(),
        worker_wire.clone(),
        closing.subscribe(),
    ));
    let natives = Arc::new(Natives::defaults(&defaults.calls));
    Ok(Client {
        defaults,
        natives,
        view: false,
        txn: None,
        inner: Arc::new(Inner {
            client,
            handle,
            worker_wire,
            caller: std::sync::OnceLock::new(),
            direct: std::sync::OnceLock::new(),
            id: NEXT_CLIENT_ID.fetch_add(1, Ordering::Relaxed),
            on_loops: parking_lot::Mutex::new(Vec::new()),
            policy,
            defaults,
            admin,
            closed: AtomicBool::new(false),
            closing,
            generation: runtime::generation(),
            spin: Spin::new(defaults.spin_wait_us),
            links,
            metrics,
            flights: Arc::default(),
            admission: defaults.max_in_flight.map(|limit| {
                let wait = (defaults.queue_timeout_ms > 0)
                    .then(|| std::time::Duration::from_millis(defaults.queue_timeout_ms.into()));
                crate::exec::admission::Admission::new(limit, wait)
            }),
        }),
    })
}

impl IntoPy for Client {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, self)?.into_any())
    }
}

/// How long a draining close waits, from its `timeout` in seconds.
fn drain_limit(timeout: f64) -> PyResult<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(timeout).map_err(|_| {
        crate::errors::invalid_argument(format!(
            "timeout must be a number of seconds >= 0, not {timeout}"
        ))
    })
}

/// A read-only call, counted as `meter` says.
pub(super) fn read(meter: Meter) -> Call {
    Call::metered(false, meter)
}

/// A call that may change data, counted as `meter` says.
pub(super) fn write(meter: Meter) -> Call {
    Call::metered(true, meter)
}

operations! {
    methods {
    /// Whether the cluster is connected (and not closed).
    #[getter]
    fn is_connected(&self) -> bool {
        !self.inner.closed.load(Ordering::Acquire)
            && self.inner.generation == runtime::generation()
            && self.inner.client.is_connected()
    }

    /// Whether `close()` ran (or the client was inherited over `fork()`).
    #[getter]
    fn closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire) || self.inner.generation != runtime::generation()
    }

    /// Close the cluster; in-flight operations fail with ClientClosedError.
    fn close(&self, py: Python<'_>) {
        self.shut_down(Some(py));
    }

    /// Names of the cluster's nodes.
    fn node_names(&self) -> PyResult<Vec<String>> {
        Ok(self.live()?.client.node_names())
    }

    /// What the client has done since it connected: calls per namespace, node and kind,
    /// connections and bytes per node, cluster events (readable after `close()` too).
    fn metrics(&self, py: Python<'_>) -> PyResult<Py<pyo3::types::PyDict>> {
        let i = &self.inner;
        let cluster: std::collections::HashMap<String, String> = if self.closed() {
            Default::default()
        } else {
            i.client
                .nodes()
                .iter()
                .map(|n| (n.name().to_owned(), n.address().to_owned()))
                .collect()
        };
        // the crate clients' connections, per node name: (open, idle), and its breaker's errors
        let mut held: std::collections::HashMap<String, (usize, usize, usize)> =
            Default::default();
        if !self.closed() {
            for c in [&i.client] {
                for n in c.nodes() {
                    let g = n.pool_gauges();
                    let at = held.entry(n.name().to_owned()).or_default();
                    at.0 += usize::try_from(g.total).unwrap_or(usize::MAX);
                    at.1 += usize::try_from(g.in_pool).unwrap_or(usize::MAX);
                    at.2 += n.error_rate_count();
                }
            }
        }
        let mut nodes: Vec<NodeRow> = i
            .links
            .node_rows()
            .into_iter()
            .map(|c| {
                let (open, idle, crate_errors) = held.get(&c.name).copied().unwrap_or_default();
                NodeRow {
                    address: cluster.get(&c.name).cloned().unwrap_or_default(),
                    active: cluster.contains_key(&c.name),
                    name: c.name,
                    open: c.open + open,
                    idle: c.idle + idle,
                    waiting: c.waiting,
                    traffic: Some(c.traffic),
                    crate_errors,
                }
            })
            .collect();
        for (name, address) in &cluster {
            if !nodes.iter().any(|n| &n.name == name) {
                let (open, idle, crate_errors) = held.get(name).copied().unwrap_or_default();
                nodes.push(NodeRow {
                    name: name.clone(),
                    address: address.clone(),
                    active: true,
                    open,
                    idle,
                    waiting: 0,
                    traffic: None,
                    crate_errors,
                });
            }
        }
        nodes.sort_by(|a, b| a.name.cmp(&b.name));
        Snapshot {
            metrics: &i.metrics,
            nodes,
            load: Admission::load(i.admission.as_ref(), i.flights.running()),
        }
        .to_py(py)
    }

    /// Refuse new calls and wait for those in flight, `timeout` seconds at most: whether
    /// every one finished. `close()` then closes.
    fn drain(&self, done: Py<PyAny>, timeout: f64) -> PyResult<Pending> {
        let i = self.live()?.clone();
        let limit = drain_limit(timeout)?;
        let fut = async move { Ok(tokio::time::timeout(limit, i.flights.drain()).await.is_ok()) };
        Ok(crate::exec::completion::start(&self.inner.handle, done, fut))
    }

    /// [`Client::drain`], blocking.
    fn drain_blocking(&self, py: Python<'_>, timeout: f64) -> PyResult<Py<PyAny>> {
        let i = self.live()?.clone();
        let limit = drain_limit(timeout)?;
        let fut = async move { Ok(tokio::time::timeout(limit, i.flights.drain()).await.is_ok()) };
        crate::exec::blocking::block(py, crate::exec::blocking::Driver::Worker(&self.inner.handle), fut)
    }

    /// A view of this client whose calls have other defaults. It shares the connections;
    /// closing either closes both.
    fn with_defaults(&self, defaults: PyRef<'_, CallDefaults>) -> PyResult<Client> {
        let defaults = *defaults;
        let inner = self.live()?.clone();
        Ok(Client {
            inner,
            natives: Arc::new(Natives::defaults(&defaults)),
            defaults: Defaults {
                calls: defaults,
                ..self.defaults
            },
            view: true,
            txn: self.txn.clone(),
        })
    }

    /// A view of this client whose record and batch calls run inside `txn`.
    fn with_transaction(&self, txn: &Bound<'_, Transaction>) -> PyResult<Client> {
        let inner = self.live()?.clone();
        Ok(Client {
            inner,
            natives: self.natives.clone(),
            defaults: self.defaults,
            view: true,
            txn: Some(txn.get().txn.clone()),
        })
    }

    /// The transaction of this view (None outside one).
    #[getter]
    fn txn(&self, py: Python<'_>) -> PyResult<Option<Py<Transaction>>> {
        self.txn
            .as_ref()
            .map(|t| Py::new(py, Transaction { txn: t.clone() }))
            .transpose()
    }

    /// The defaults of calls through this client.
    #[getter]
    fn call_defaults(&self) -> CallDefaults {
        self.defaults.calls
    }

    /// Calls in flight now.
    #[getter]
    fn in_flight(&self) -> usize {
        self.inner.flights.running()
    }

    /// Connections the wire path holds open per node, every runtime together.
    fn wire_connections(&self) -> PyResult<std::collections::HashMap<String, usize>> {
        Ok(self.live()?.links.open_per_node().into_iter().collect())
    }

    /// Start a scan (no `index_filter`) or secondary-index query.
    #[pyo3(signature = (namespace, set_name, bins, index_filter, policy, max_records, partitions, chunk_size))]
    #[allow(clippy::too_many_arguments)]
    fn query(
        &self,
        namespace: String,
        set_name: String,
        bins: Option<Vec<String>>,
        index_filter: Option<&Bound<'_, PyAny>>,
        policy: Option<&Bound<'_, Policy>>,
        max_records: u64,
        partitions: Option<&Bound<'_, PyAny>>,
        chunk_size: usize,
    ) -> PyResult<QueryStream> {
        let i = self.live()?.clone();
        let p = self.natives(policy)?;
        query::start(
            i,
            &self.inner.handle,
            p,
            query::Spec::parse(
                namespace,
                set_name,
                bins,
                index_filter,
                max_records,
                partitions,
                chunk_size,
            )?,
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<Client nodes={:?} closed={}>",
            self.inner.client.node_names(),
            self.inner.closed.load(Ordering::Acquire)
        )
    }
    }

    /// Read a record (all bins, the bins named, or only its header).
    record fn get / get_blocking(
        this, inner,
        key: &Bound<'_, PyAny>,
        bins: Option<Vec<String>>,
        header_only: bool,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let _ = inner;
        let (k, sel, p) = (
            (this.key(key)?, key.clone().unbind()),
            bins_selector(bins, header_only),
            this.natives(policy)?,
        );
        (read(Meter::of_key(Kind::Get, &k.0)), move |c| calls::get(c, p, k, sel))
    }

    /// Write bins.
    record fn put / put_blocking(
        this, inner,
        key: &Bound<'_, PyAny>,
        bins: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let _ = inner;
        let (k, b, p) = (this.key(key)?, to_bins(bins)?, this.natives(policy)?);
        (write(Meter::of_key(Kind::Put, &k)), move |c| calls::put(c, p, k, b))
    }

    /// Delete a record; true if it existed.
    record fn delete / delete_blocking(
        this, inner,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let _ = inner;
        let (k, p) = (this.key(key)?, this.natives(policy)?);
        (write(Meter::of_key(Kind::Delete, &k)), move |c| calls::delete(c, p, k))
    }

    /// Whether a record exists.
    record fn exists / exists_blocking(
        this, inner,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let _ = inner;
        let (k, p) = (this.key(key)?, this.natives(policy)?);
        (read(Meter::of_key(Kind::Exists, &k)), move |c| calls::exists(c, p, k))
    }

    /// Reset a record's time to live.
    record fn touch / touch_blocking(
        this, inner,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let _ = inner;
        let (k, p) = (this.key(key)?, this.natives(policy)?);
        (write(Meter::of_key(Kind::Touch, &k)), move |c| calls::touch(c, p, k))
    }

    /// Many operations on one record, in one request.
    record fn operate / operate_blocking(
        this, inner,
        key: &Bound<'_, PyAny>,
        ops: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let p = this.natives(policy)?;
        let o = if p.wire_operate && inner.worker_wire.enabled() {
            to_wire_ops(ops)?
        } else {
            to_ops(ops)?
        };
        let k = (this.key(key)?, key.clone().unbind());
        let meter = Meter::of_key(Kind::Operate, &k.0);
        (Call::metered(!o.read_only, meter), move |c| calls::operate(c, p, k, o))
    }

    /// Apply a registered UDF to a record.
    keyed fn udf_apply / udf_apply_blocking(
        this, inner,
        key: &Bound<'_, PyAny>,
        module: String,
        function: String,
        args: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let _ = inner;
        let (k, a, p) = (this.key(key)?, udf_args(args)?, this.natives(policy)?);
        let meter = Meter::of_key(Kind::Udf, &k);
        (write(meter), move |c| calls::udf_apply(c, p, k, module, function, a))
    }

    /// Batch rows (reads, writes, deletes, UDFs) in one request per node.
    batch fn batch / batch_blocking(
        this, inner,
        rows: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let p = this.natives(policy)?;
        let wire_ops = inner.worker_wire.enabled() && (p.wire_batch || p.wire_batch_put);
        let rows = crate::request::batch_rows::to_rows(rows, &this.defaults.calls, wire_ops)?;
        let writes = rows.iter().any(crate::request::batch_rows::Row::writes);
        let kind = if writes { Kind::BatchWrite } else { Kind::BatchRead };
        let ns = rows.first().map_or("", |r| r.namespace());
        let meter = Meter::new(kind, ns);
        (Call::metered(writes, meter), (inner.clone(), p, rows))
    }

    /// Write chunks of an `ArrowWriter`, `concurrency` at a time: rows written, and each failed
    /// row's key and error.
    keyed fn put_chunks / put_chunks_blocking(
        this, inner,
        chunks: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
        concurrency: usize,
    ) {
        let _ = inner;
        let (rows, p) = (crate::convert::arrow::take_rows(chunks)?, this.natives(policy)?);
        let meter = Meter::new(Kind::BatchWrite, "");
        (write(meter), move |c| crate::request::put_arrow::put_chunks(c, p, rows, concurrency))
    }

    /// Commit a transaction: verify its reads, roll its writes forward, close it.
    record fn commit / commit_blocking(this, inner, txn: &Bound<'_, Transaction>) {
        let _ = inner;
        let t = this.transaction(txn);
        let meter = Meter::new(Kind::Commit, t.namespace().as_deref().unwrap_or(""));
        (write(meter), move |c| crate::crate_calls::transaction::commit(c, t))
    }

    /// Abort a transaction: roll its writes back, close it.
    record fn abort / abort_blocking(this, inner, txn: &Bound<'_, Transaction>) {
        let _ = inner;
        let t = this.transaction(txn);
        let meter = Meter::new(Kind::Abort, t.namespace().as_deref().unwrap_or(""));
        (write(meter), move |c| crate::crate_calls::transaction::abort(c, t))
    }
}
