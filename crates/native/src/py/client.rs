//! `Client`: a connected cluster and its operations. Each operation is declared once in
//! [`operations!`], which generates its async pymethod (`name(done, ...)`, returning a
//! `Pending`) and its blocking twin (`name_blocking(...)`); where each runs is `exec/routes.rs`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use aerospike::policy::{AdminPolicy, ClientPolicy};
use aerospike::Host;
use pyo3::prelude::*;
use tokio::runtime::Handle;
use tokio::sync::watch;

use crate::convert::arrow::ArrowSpecRef;
use crate::convert::call_args::{bins_selector, to_bins, udf_args};
use crate::convert::values::to_key;
use crate::crate_calls::transaction::Transaction;
use crate::crate_calls::{aggregate, background, indexes};
use crate::errors::closed;
use crate::exec::completion::{Failure, IntoPy, OpResult, Pending, Ready};
use crate::exec::in_flight::Flights;
use crate::exec::loop_runtime::LoopRuntime;
use crate::exec::routes::close_on_loop;
use crate::exec::runtime;
use crate::exec::spin::Spin;
use crate::metrics::{Call, Kind, Meter, Metrics, NodeRow, Snapshot};
use crate::ops::{to_ops, to_wire_ops};
use crate::py::policy::{CallDefaults, Defaults, Natives, Policy};
use crate::request::query::{self, QueryStream};
use crate::request::{calls, cluster_calls};

/// Shared state of a connected client.
pub struct Inner {
    /// The crate client on the worker runtime (an Arc inside).
    pub client: aerospike::Client,
    pub(crate) handle: Handle,
    /// The single-record wire path's connections on the worker runtime.
    pub(crate) worker_wire: Arc<crate::conn::Pool>,
    /// The caller-driven runtime and what calls on it use, both set on first use.
    pub(crate) caller: std::sync::OnceLock<Arc<tokio::runtime::Runtime>>,
    pub(crate) direct: std::sync::OnceLock<crate::exec::routes::RuntimeClient>,
    /// Identifies this client's connections on event loops' runtimes (see `exec/loop_runtime.rs`).
    pub(crate) id: u64,
    /// The loop runtimes this client has connections on.
    pub(crate) on_loops: parking_lot::Mutex<Vec<Weak<LoopRuntime<Ready>>>>,
    pub(crate) policy: ClientPolicy,
    pub(crate) defaults: Defaults,
    /// Admin (info/index/UDF) policy.
    pub admin: AdminPolicy,
    pub(crate) closed: AtomicBool,
    /// Flipped to true by `close()`: every operation in flight races it.
    pub(crate) closing: watch::Sender<bool>,
    pub(crate) generation: u64,
    /// Busy-polling of blocking single-record calls.
    pub(crate) spin: Spin,
    /// How the wire path connects, and its budget of connections per node.
    pub(crate) links: Arc<crate::conn::Links>,
    /// What the client has done since it connected.
    pub(crate) metrics: Arc<Metrics>,
    /// Calls in flight, which a draining close waits for.
    pub(crate) flights: Arc<Flights>,
}

static NEXT_CLIENT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Inner {
    /// Run `fut`, or fail with `ClientClosedError` as soon as the client is closed; a call
    /// that writes and was cut short, or failed once the close began, is in doubt as far as
    /// its own failure says. A metered call is counted in the client's metrics when it ends.
    pub fn until_closed<F, T>(
        &self,
        call: Call,
        fut: F,
    ) -> impl std::future::Future<Output = OpResult<T>>
    where
        F: std::future::Future<Output = OpResult<T>>,
    {
        let Call { writes, meter } = call;
        let closing = self.closing.subscribe();
        let pool_size = self.policy.max_conns_per_node;
        let cluster = self.client.clone();
        let flight = self.flights.start();
        let draining = self.flights.draining();
        let metered = meter
            .filter(|_| self.metrics.enabled())
            .map(|m| (m, self.links.clone()));
        async move {
            let _flight = flight;
            if *closing.borrow() || draining {
                return Err(Failure::Closed("the client is closed", false));
            }
            let flag = closing.clone();
            let r = tokio::select! {
                biased;
                r = fut => match r {
                    // e.g. "partition map empty": the failure is the close's doing
                    Err(f) if *flag.borrow() && !f.answered() => Err(Failure::Closed(
                        "the client was closed while the operation was in flight",
                        writes && f.in_doubt(),
                    )),
                    r => r.map_err(|f| f.pool_checked(pool_size, &cluster.nodes())),
                },
                () = closed_signal(closing) => Err(Failure::Closed(
                    "the client was closed while the operation was in flight",
                    writes,
                )),
            };
            if let Some((meter, links)) = metered {
                let node = meter
                    .partition
                    .and_then(|pid| links.view.master(&meter.namespace, pid));
                let node = node.as_ref().map_or("", |n| n.name());
                links.metrics.record(&meter, node, writes, r.as_ref().err());
            }
            r
        }
    }
}

/// Resolves once `close()` flips the flag (never if the sender is gone).
async fn closed_signal(mut closing: watch::Receiver<bool>) {
    let closed = closing.wait_for(|c| *c).await.is_ok();
    if !closed {
        std::future::pending::<()>().await;
    }
}

/// A connected cluster client, or a view of one with other call defaults (`with_defaults`).
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
    /// The defaults of calls through this client; `natives` are those of a call without a
    /// policy of its own.
    defaults: Defaults,
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
            let warned = PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyResourceWarning>(),
                c"unclosed aerospike_fluent client (use close() or a with block)",
                1,
            );
            if let Err(e) = warned {
                e.write_unraisable(py, None);
            }
        });
        self.shut_down(None);
    }
}

impl Client {
    /// The client's shared state, unless it is closed or was inherited over `fork()`.
    fn live(&self) -> PyResult<&Arc<Inner>> {
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
    fn natives(&self, policy: Option<&Bound<'_, Policy>>) -> PyResult<Arc<Natives>> {
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
    let worker_policy = crate::exec::routes::worker_policy(&policy);
    let client = aerospike::Client::new(&worker_policy, &hosts).await?;
    let admin = AdminPolicy {
        timeout: defaults.calls.info_timeout,
    };
    let shares = crate::exec::routes::shares(policy.max_conns_per_node);
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
        }),
    })
}

/// Until the client closes, once per tend interval: note the nodes that joined or left (in the
/// metrics and the `aerospike_fluent.cluster` log), keep `min_conns_per_node` wire connections
/// open to every node, and close those idle for `idle_timeout` (down to that minimum).
fn maintain(
    policy: &ClientPolicy,
    shares: crate::exec::routes::Shares,
    client: aerospike::Client,
    pool: Arc<crate::conn::Pool>,
    mut closing: watch::Receiver<bool>,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let every = std::time::Duration::from_millis(u64::from(policy.tend_interval.max(100)));
    let idle = (policy.idle_timeout > 0)
        .then(|| std::time::Duration::from_millis(u64::from(policy.idle_timeout)));
    let min = policy.min_conns_per_node.min(shares.wire);
    let wire = pool.links().usable();
    let run = async move {
        let mut known = crate::cluster::watch::Known::default();
        loop {
            if known.look(&client, &pool.links().metrics) && wire {
                pool.refresh_tables(&client);
            }
            if wire && min > 0 {
                pool.keep_min(&client, min).await;
            }
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                changed = closing.changed() => if changed.is_err() { break },
            }
            if *closing.borrow() {
                break;
            }
            if let (true, Some(idle)) = (wire, idle) {
                pool.reap(idle, min);
            }
        }
        Ok::<(), Failure>(())
    };
    // a panic ends the upkeep, never the process
    async move {
        let _ = crate::exec::guard::future(run).await;
    }
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
fn read(meter: Meter) -> Call {
    Call::metered(false, meter)
}

/// A call that may change data, counted as `meter` says.
fn write(meter: Meter) -> Call {
    Call::metered(true, meter)
}

/// Declare operations once: each becomes `name(done, args...)`, started as the route says and
/// completed through `done`, and `name_blocking(args...)`, which returns the result.
///
/// `methods` are written out as they are (not twins). `this` is the `Client` and `inner` its live shared state inside the body. Routes:
/// The body gives `(writes, call)`: whether the call may change data (a call the client's close
/// cuts short is then in doubt) and the call for its route:
/// - `record`: `move |client| future`; async on the event loop's runtime when it has room
///   (else the worker), blocking on the caller-driven runtime.
/// - `keyed`: as `record`, but async always on the worker runtime.
/// - `cluster`: a future; async and blocking on the worker runtime.
/// - `batch`: the client's state, policies and rows; large read-only batches go in parts.
macro_rules! operations {
    (
        methods { $($extra:tt)* }
        $(
            $(#[doc = $doc:literal])*
            $route:ident fn $name:ident / $blocking:ident
                ($this:ident, $inner:ident $(, $arg:ident : $ty:ty)* $(,)?) $body:block
        )*
    ) => {
        #[pymethods]
        impl Client {
            $(
                $(#[doc = $doc])*
                #[pyo3(signature = (done $(, $arg)*))]
                #[allow(clippy::too_many_arguments)]
                fn $name(
                    &self,
                    py: Python<'_>,
                    done: Py<PyAny>,
                    $($arg: $ty),*
                ) -> PyResult<Pending> {
                    let ($this, $inner) = (self, self.live()?);
                    let (writes, call) = $body;
                    route!($route async self, py, writes, done, call)
                }

                $(#[doc = $doc])*
                #[pyo3(signature = ($($arg),*))]
                #[allow(clippy::too_many_arguments)]
                fn $blocking(&self, py: Python<'_>, $($arg: $ty),*) -> PyResult<Py<PyAny>> {
                    let ($this, $inner) = (self, self.live()?);
                    let (writes, call) = $body;
                    route!($route blocking self, py, writes, call)
                }
            )*
            $($extra)*
        }
    };
}

/// Start or run a prepared call on its route (see `exec/routes.rs`).
macro_rules! route {
    (record async $s:ident, $py:ident, $w:ident, $done:ident, $call:ident) => {
        Ok($s.go_on_loop($py, $w, $done, $call))
    };
    (record blocking $s:ident, $py:ident, $w:ident, $call:ident) => {
        $s.wait_direct($py, $w, $call)
    };
    (keyed async $s:ident, $py:ident, $w:ident, $done:ident, $call:ident) => {{
        let _ = $py;
        Ok($s.go($w, $done, Box::pin($call($s.inner.worker_client()))))
    }};
    (keyed blocking $s:ident, $py:ident, $w:ident, $call:ident) => {
        $s.wait_direct($py, $w, $call)
    };
    (cluster async $s:ident, $py:ident, $w:ident, $done:ident, $fut:ident) => {{
        let _ = $py;
        Ok($s.go($w, $done, Box::pin($fut)))
    }};
    (cluster blocking $s:ident, $py:ident, $w:ident, $fut:ident) => {
        $s.wait($py, $w, Box::pin($fut))
    };
    (batch async $s:ident, $py:ident, $w:ident, $done:ident, $call:ident) => {
        $s.start_batch($py, $w, $done, $call)
    };
    (batch blocking $s:ident, $py:ident, $w:ident, $call:ident) => {
        $s.wait_batch($py, $w, $call)
    };
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
        // the crate clients' connections, per node name: (open, idle)
        let mut held: std::collections::HashMap<String, (usize, usize)> = Default::default();
        if !self.closed() {
            for c in [&i.client] {
                for n in c.nodes() {
                    let g = n.pool_gauges();
                    let at = held.entry(n.name().to_owned()).or_default();
                    at.0 += usize::try_from(g.total).unwrap_or(usize::MAX);
                    at.1 += usize::try_from(g.in_pool).unwrap_or(usize::MAX);
                }
            }
        }
        let mut nodes: Vec<NodeRow> = i
            .links
            .node_rows()
            .into_iter()
            .map(|c| {
                let (open, idle) = held.get(&c.name).copied().unwrap_or_default();
                NodeRow {
                    address: cluster.get(&c.name).cloned().unwrap_or_default(),
                    active: cluster.contains_key(&c.name),
                    name: c.name,
                    open: c.open + open,
                    idle: c.idle + idle,
                    waiting: c.waiting,
                    traffic: Some(c.traffic),
                }
            })
            .collect();
        for (name, address) in &cluster {
            if !nodes.iter().any(|n| &n.name == name) {
                let (open, idle) = held.get(name).copied().unwrap_or_default();
                nodes.push(NodeRow {
                    name: name.clone(),
                    address: address.clone(),
                    active: true,
                    open,
                    idle,
                    waiting: 0,
                    traffic: None,
                });
            }
        }
        nodes.sort_by(|a, b| a.name.cmp(&b.name));
        Snapshot {
            metrics: &i.metrics,
            nodes,
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
        let rows = crate::convert::batch_rows::to_rows(rows, &this.defaults.calls)?;
        let writes = rows.iter().any(crate::convert::batch_rows::Row::writes);
        let kind = if writes { Kind::BatchWrite } else { Kind::BatchRead };
        let ns = rows.first().map_or("", |r| r.namespace());
        let meter = Meter::new(kind, ns);
        (Call::metered(writes, meter), (inner.clone(), this.natives(policy)?, rows))
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
        (write(meter), move |c| crate::convert::arrow::put_chunks(c, p, rows, concurrency))
    }

    /// Read rows of a batch as an `ArrowTable`: a row per record found, in key order.
    cluster fn batch_arrow / batch_arrow_blocking(
        this, inner, rows: &Bound<'_, PyAny>, policy: Option<&Bound<'_, Policy>>,
        spec: ArrowSpecRef<'_>,
    ) {
        let meter = Meter::new(Kind::BatchRead, "");
        (read(meter), crate::convert::arrow::batch_read(inner, this.natives(policy)?, rows, spec)?)
    }

    /// An info command, sent to one node (by name) or a random one.
    cluster fn info / info_blocking(
        this, inner,
        command: String,
        node: Option<String>,
    ) {
        let admin = AdminPolicy { timeout: this.defaults.calls.info_timeout };
        (read(Meter::new(Kind::Info, "")), cluster_calls::info(inner.clone(), admin, command, node))
    }

    /// An info command sent to every node: node name -> (name -> value).
    cluster fn info_all / info_all_blocking(
        this, inner,
        command: String,
    ) {
        let admin = AdminPolicy { timeout: this.defaults.calls.info_timeout };
        (read(Meter::new(Kind::Info, "")), cluster_calls::info_all(inner.clone(), admin, command))
    }

    /// Per node name, the partitions of `namespace` it masters and the replicas it holds, in
    /// the view every call routes by.
    cluster fn partition_owners / partition_owners_blocking(
        this, inner,
        namespace: String,
    ) {
        let _ = this;
        (Call::from(false), cluster_calls::partition_owners(inner.clone(), namespace))
    }

    /// The cluster's nodes: name, address, active, and per namespace the partitions each
    /// masters and the replicas it holds, in the view every call routes by.
    cluster fn nodes / nodes_blocking(this, inner) {
        let _ = this;
        (Call::from(false), cluster_calls::nodes(inner.clone()))
    }

    /// Apply operations, or a record UDF, to every record a query selects, in the background;
    /// returns a `BackgroundTask` once every node accepted the job.
    cluster fn query_background / query_background_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        index_filter: Option<&Bound<'_, PyAny>>,
        policy: Option<&Bound<'_, Policy>>,
        ops: Option<&Bound<'_, PyAny>>,
        udf: Option<&Bound<'_, PyAny>>,
    ) {
        let meter = Meter::new(Kind::Query, namespace.as_str());
        let (statement, work) =
            background::parse(namespace, set_name, index_filter, ops, udf)?;
        let (i, h, p) = (inner.clone(), inner.handle.clone(), this.natives(policy)?);
        (write(meter), background::start(i, h, p, statement, work))
    }

    /// Remove a set's records (last-update time before `before_ns`, when not 0).
    cluster fn truncate / truncate_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        before_ns: i64,
    ) {
        let _ = this;
        let meter = Meter::new(Kind::Admin, namespace.as_str());
        (write(meter), cluster_calls::truncate(inner.clone(), namespace, set_name, before_ns))
    }

    /// Create a secondary index and wait until it is built.
    cluster fn create_index / create_index_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        bin_name: String,
        index_name: String,
        index_type: &str,
        collection: Option<&str>,
        context: Option<&Bound<'_, PyAny>>,
        expression: Option<&Bound<'_, PyAny>>,
    ) {
        let _ = this;
        let meter = Meter::new(Kind::Admin, namespace.as_str());
        let spec = indexes::IndexSpec::parse(
            namespace, set_name, bin_name, index_name, index_type, collection, context, expression,
        )?;
        (write(meter), indexes::create_index(inner.clone(), spec))
    }

    /// Drop a secondary index.
    cluster fn drop_index / drop_index_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        index_name: String,
    ) {
        let _ = this;
        let meter = Meter::new(Kind::Admin, namespace.as_str());
        (write(meter), indexes::drop_index(inner.clone(), namespace, set_name, index_name))
    }

    /// Run a stream UDF over a query's records: the reduced results.
    cluster fn aggregate / aggregate_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        index_filter: Option<&Bound<'_, PyAny>>,
        module: String,
        function: String,
        args: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let meter = Meter::new(Kind::Aggregate, namespace.as_str());
        let spec =
            aggregate::Spec::parse(namespace, set_name, index_filter, module, function, args)?;
        (read(meter), aggregate::run(inner.clone(), this.natives(policy)?, spec))
    }

    /// Register a UDF module.
    cluster fn udf_register / udf_register_blocking(
        this, inner,
        code: Vec<u8>,
        server_path: String,
    ) {
        let _ = this;
        (write(Meter::new(Kind::Admin, "")), cluster_calls::udf_register(inner.clone(), code, server_path))
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

    /// Remove a UDF module.
    cluster fn udf_remove / udf_remove_blocking(this, inner, server_path: String) {
        let _ = this;
        (write(Meter::new(Kind::Admin, "")), cluster_calls::udf_remove(inner.clone(), server_path))
    }
}
