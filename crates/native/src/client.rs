//! `Client`: connection, and each operation exposed twice (async with `done`, `_blocking`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use aerospike::policy::{AdminPolicy, AuthMode, ClientPolicy};
use aerospike::{Bin, Bins, Host, Value};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString};
use tokio::runtime::Handle;
use tokio::sync::watch;

use crate::bridge::{self, Driver, Failure, IntoPy, OnLoop, OpResult, Pending, Ready};
use crate::calls;
use crate::errors::invalid_argument;
use crate::local::{ClientCell, LoopRuntime};
use crate::ops::to_ops;
use crate::policy::{ClientConfig, Defaults, Natives, Policy};
use crate::query::{self, QueryStream};
use crate::runtime;
use crate::spin::Spin;
use crate::tls;
use crate::values::{to_key, to_value, Ctx};

/// Shared state of a connected client.
pub struct Inner {
    /// The crate client on the worker runtime (an Arc inside).
    pub client: aerospike::Client,
    handle: Handle,
    /// The caller-driven runtime and the crate client on it, both set on first use.
    caller: std::sync::OnceLock<Arc<tokio::runtime::Runtime>>,
    direct: tokio::sync::OnceCell<aerospike::Client>,
    /// Identifies this client's crate clients on event loops' runtimes (see `local.rs`).
    id: u64,
    /// The loop runtimes this client has a crate client on.
    on_loops: parking_lot::Mutex<Vec<Weak<LoopRuntime<Ready>>>>,
    policy: ClientPolicy,
    hosts: Vec<Host>,
    defaults: Defaults,
    natives: Arc<Natives>,
    /// Admin (info/index/UDF) policy.
    pub admin: AdminPolicy,
    closed: AtomicBool,
    /// Flipped to true by `close()`: every operation in flight races it.
    closing: watch::Sender<bool>,
    generation: u64,
    /// Busy-polling of blocking single-record calls.
    spin: Spin,
}

static NEXT_CLIENT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Inner {
    /// The crate client for the caller-driven runtime; call only from futures run on it.
    async fn direct_client(&self) -> OpResult<aerospike::Client> {
        let connect = || aerospike::Client::new(&self.policy, &self.hosts);
        Ok(self.direct.get_or_try_init(connect).await?.clone())
    }

    /// This client's crate client on the loop runtime `rt` (connected by
    /// [`Self::connect_on_loop`]) and the number of calls made there so far.
    fn loop_client(&self, rt: &Arc<LoopRuntime<Ready>>) -> (ClientCell, usize) {
        let (cell, calls) = rt.client_for(self.id);
        if calls == 1 {
            let mut on_loops = self.on_loops.lock();
            on_loops.retain(|l| l.strong_count() > 0);
            on_loops.push(Arc::downgrade(rt));
        }
        (cell, calls)
    }

    /// Connect `cell`'s crate client on the loop's runtime: a pool of up to the loop's
    /// capacity, abandoned if this client closes first.
    fn connect_on_loop(
        self: &Arc<Self>,
        rt: &LoopRuntime<Ready>,
        max_conns: usize,
        cell: ClientCell,
    ) -> impl std::future::Future<Output = OpResult<()>> + Send + 'static {
        let policy = ClientPolicy {
            max_conns_per_node: max_conns,
            min_conns_per_node: self.policy.min_conns_per_node.min(max_conns),
            ..self.policy.clone()
        };
        let connecting = rt.connect_guard();
        let inner = self.clone();
        let connect = async move {
            let _connecting = connecting();
            let connect = || aerospike::Client::new(&policy, &inner.hosts);
            let client = cell.get_or_try_init(connect).await?;
            if inner.closed.load(Ordering::Acquire) {
                // close() ran while this connected (and took the cell before it was set)
                let _ = client.close().await;
            }
            Ok(())
        };
        self.until_closed(crate::guard::future(connect))
    }

    /// Run `fut`, or fail with `ClientClosedError` as soon as the client is closed.
    pub fn until_closed<F, T>(&self, fut: F) -> impl std::future::Future<Output = OpResult<T>>
    where
        F: std::future::Future<Output = OpResult<T>>,
    {
        let closing = self.closing.subscribe();
        async move {
            if *closing.borrow() {
                return Err(Failure::Py(bridge::closed("the client is closed")));
            }
            tokio::select! {
                biased;
                r = fut => r,
                () = closed_signal(closing) => Err(Failure::Py(bridge::closed(
                    "the client was closed while the operation was in flight",
                ))),
            }
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

/// A client's calls on a loop's runtime before it connects a pool there, and how often a failed
/// connect is tried again (in calls).
const LOOP_CONNECT_AFTER: usize = 8;
const LOOP_CONNECT_RETRY: usize = 1024;

/// How long `close()` drives a loop runtime to close the client on it.
const LOOP_CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Close a crate client of a loop runtime now: its loop may never run again (or be blocked by
/// the caller), and only driving the runtime closes the sockets.
fn close_on_loop(py: Python<'_>, rt: &LoopRuntime<Ready>, c: aerospike::Client) {
    let close = async move {
        let _ = tokio::time::timeout(LOOP_CLOSE_WAIT, c.close()).await;
    };
    if Handle::try_current().is_ok() {
        rt.spawn(close); // block_on is not allowed here: the loop's next tick runs it
    } else {
        py.detach(|| rt.block_on(close));
    }
}

/// A connected cluster client.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct Client {
    inner: Arc<Inner>,
}

fn parse_hosts(seeds: &str, tls_name: Option<&str>) -> PyResult<Vec<Host>> {
    let mut hosts = Vec::new();
    for part in seeds.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (host, port) = match part.rsplit_once(':') {
            Some((h, p)) => (
                h.trim_start_matches('[').trim_end_matches(']'),
                p.parse::<u16>()
                    .map_err(|_| invalid_argument(format!("bad port in seed {part:?}")))?,
            ),
            None => (part, 3000),
        };
        // "host:tls_name:port" is also accepted
        let (host, inline_tls) = match host.split_once(':') {
            Some((h, t)) if !h.contains(':') || !t.contains(':') => (h, Some(t)),
            _ => (host, None),
        };
        hosts.push(match inline_tls.or(tls_name) {
            Some(t) => Host::new_tls(host, t, port),
            None => Host::new(host, port),
        });
    }
    if hosts.is_empty() {
        return Err(invalid_argument("seeds must name at least one host:port"));
    }
    Ok(hosts)
}

fn client_policy(cfg: &ClientConfig) -> PyResult<ClientPolicy> {
    let mut p = ClientPolicy {
        cluster_name: cfg.cluster_name.clone(),
        connect_timeout: cfg.connect_timeout_ms,
        timeout: cfg.connect_timeout_ms.max(1000),
        max_conns_per_node: cfg.max_conns_per_node,
        min_conns_per_node: cfg.min_conns_per_node,
        tend_interval: cfg
            .tend_interval_ms
            .max(aerospike::policy::TEND_INTERVAL_MIN_MS),
        ..ClientPolicy::default()
    };
    if let (Some(u), Some(pw)) = (&cfg.user, &cfg.password) {
        p.set_auth_mode(AuthMode::Internal(u.clone(), pw.clone()));
    }
    if cfg.tls_ca_file.is_some() || cfg.tls_cert_file.is_some() || cfg.tls_name.is_some() {
        p.tls_policy = Some(tls::policy(
            cfg.tls_ca_file.as_deref(),
            cfg.tls_cert_file.as_deref(),
            cfg.tls_key_file.as_deref(),
        )?);
    }
    Ok(p)
}

/// Event loops get a pool of their own only where the loop runtime exists (Linux) and the
/// client's pool is at least this large; the worker's pool then keeps the rest.
const LOOP_POOLS_FROM: usize = 64;

/// Whether a client with this pool size gives event loops a pool of their own.
fn loop_pools(max_conns_per_node: usize) -> bool {
    cfg!(target_os = "linux") && max_conns_per_node >= LOOP_POOLS_FROM
}

/// The worker runtime's pool leaves room for an event loop's own pool (see `go_on_loop`), so
/// that a process with one event loop stays within `max_conns_per_node` for async calls.
fn worker_policy(policy: &ClientPolicy) -> ClientPolicy {
    let max = policy.max_conns_per_node;
    if !loop_pools(max) {
        return policy.clone();
    }
    let max = max - bridge::DEFAULT_LOOP_OPS;
    ClientPolicy {
        max_conns_per_node: max,
        min_conns_per_node: policy.min_conns_per_node.min(max),
        ..policy.clone()
    }
}

/// Connect (the one async fn behind `connect` and `connect_blocking`).
async fn do_connect(
    policy: ClientPolicy,
    hosts: Vec<Host>,
    defaults: Defaults,
    handle: Handle,
) -> OpResult<Client> {
    let client = aerospike::Client::new(&worker_policy(&policy), &hosts).await?;
    let admin = AdminPolicy {
        timeout: defaults.total_timeout.max(1000),
    };
    Ok(Client {
        inner: Arc::new(Inner {
            client,
            handle,
            caller: std::sync::OnceLock::new(),
            direct: tokio::sync::OnceCell::new(),
            id: NEXT_CLIENT_ID.fetch_add(1, Ordering::Relaxed),
            on_loops: parking_lot::Mutex::new(Vec::new()),
            policy,
            hosts,
            natives: Arc::new(Natives::defaults(&defaults)),
            defaults,
            admin,
            closed: AtomicBool::new(false),
            closing: watch::Sender::new(false),
            generation: runtime::generation(),
            spin: Spin::new(defaults.spin_wait_us),
        }),
    })
}

impl IntoPy for Client {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, self)?.into_any())
    }
}

fn prepare_connect(config: &ClientConfig) -> PyResult<(ClientPolicy, Vec<Host>, Defaults, Handle)> {
    let policy = client_policy(config)?;
    let hosts = parse_hosts(&config.seeds, config.tls_name.as_deref())?;
    Ok((policy, hosts, config.defaults, runtime::handle()?))
}

/// Connect (async); `done` receives the `Client`.
#[pyfunction]
pub fn connect(done: Py<PyAny>, config: &Bound<'_, ClientConfig>) -> PyResult<Pending> {
    let (policy, hosts, defaults, handle) = prepare_connect(config.get())?;
    let h = handle.clone();
    Ok(bridge::start(
        &handle,
        done,
        do_connect(policy, hosts, defaults, h),
    ))
}

/// Connect, blocking.
#[pyfunction]
pub fn connect_blocking(py: Python<'_>, config: &Bound<'_, ClientConfig>) -> PyResult<Py<PyAny>> {
    let (policy, hosts, defaults, handle) = prepare_connect(config.get())?;
    let fut = do_connect(policy, hosts, defaults, handle.clone());
    bridge::block(py, Driver::Worker(&handle), fut)
}

/// Convert a bins mapping to `Bin`s (values converted before anything is sent).
fn to_bins(bins: &Bound<'_, PyAny>) -> PyResult<Vec<Bin>> {
    let mut out = Vec::new();
    let mut push = |k: Bound<'_, PyAny>, v: Bound<'_, PyAny>| -> PyResult<()> {
        let name = k.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "bin names must be str, not {}",
                k.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        let name = name.to_str()?;
        let value = to_value(&v, Ctx::bin(name))?;
        out.push(Bin::new(name.to_owned(), value));
        Ok(())
    };
    if let Ok(d) = bins.cast::<PyDict>() {
        for (k, v) in d.iter() {
            push(k, v)?;
        }
    } else {
        let m = bins
            .cast::<PyMapping>()
            .map_err(|_| PyTypeError::new_err("bins must be a mapping of str to values"))?;
        for item in m.items()?.iter() {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            push(k, v)?;
        }
    }
    Ok(out)
}

fn bins_selector(bins: Option<Vec<String>>, header_only: bool) -> Bins {
    match (header_only, bins) {
        (true, _) => Bins::None,
        (false, None) => Bins::All,
        (false, Some(b)) => Bins::Some(b),
    }
}

fn udf_args(args: &Bound<'_, PyAny>) -> PyResult<Vec<Value>> {
    match to_value(args, Ctx::bin("<udf args>"))? {
        Value::List(l) => Ok(l),
        _ => {
            let mut out = Vec::new();
            for a in args.try_iter()? {
                out.push(to_value(&a?, Ctx::bin("<udf args>"))?);
            }
            Ok(out)
        }
    }
}

impl Client {
    fn live(&self) -> PyResult<&Arc<Inner>> {
        let i = &self.inner;
        if i.closed.load(Ordering::Acquire) {
            return Err(bridge::closed("the client is closed"));
        }
        if i.generation != runtime::generation() {
            return Err(bridge::closed(
                "this client was created before fork(); connect again in the child",
            ));
        }
        Ok(i)
    }

    fn natives(&self, policy: Option<&Bound<'_, Policy>>) -> Arc<Natives> {
        match policy {
            Some(p) => p.get().natives(&self.inner.defaults),
            None => self.inner.natives.clone(),
        }
    }

    fn go<F, T>(&self, done: Py<PyAny>, fut: F) -> Pending
    where
        F: std::future::Future<Output = OpResult<T>> + Send + 'static,
        T: IntoPy,
    {
        let fut = self.inner.until_closed(fut);
        bridge::start(&self.inner.handle, done, fut)
    }

    /// Async single-record call: on the event loop's own runtime when `done` has one with
    /// room, else on the worker runtime. `call` gets the crate client of the runtime chosen.
    fn go_on_loop<C, F, T>(&self, py: Python<'_>, done: Py<PyAny>, call: C) -> Pending
    where
        C: FnOnce(aerospike::Client) -> F + Send + 'static,
        F: std::future::Future<Output = OpResult<T>> + Send + 'static,
        T: IntoPy,
    {
        match self.on_loop(py, &done) {
            Some((on_loop, client)) => on_loop.start(
                self.inner.until_closed(Box::pin(call(client))),
                &self.inner.spin,
            ),
            None => self.go(done, Box::pin(call(self.inner.client.clone()))),
        }
    }

    /// The event loop of `done` and this client's crate client on its runtime, when a call can
    /// run there now.
    fn on_loop<'py>(
        &self,
        py: Python<'py>,
        done: &Py<PyAny>,
    ) -> Option<(OnLoop<'py>, aerospike::Client)> {
        // A small pool stays one pool: the cap is the cap.
        if !loop_pools(self.inner.policy.max_conns_per_node) {
            return None;
        }
        let on_loop = OnLoop::of(py, done).filter(|l| l.capacity() <= bridge::DEFAULT_LOOP_OPS)?;
        let rt = on_loop.runtime()?;
        let (cell, calls) = self.inner.loop_client(rt);
        let Some(client) = cell.get().cloned() else {
            // A client making a few calls on a busy loop never pays for a pool there; a busier
            // one connects it in the background, meanwhile the worker.
            if calls == LOOP_CONNECT_AFTER || calls % LOOP_CONNECT_RETRY == 0 {
                let connect = self.inner.connect_on_loop(rt, on_loop.capacity(), cell);
                on_loop.spawn(async move {
                    let _ = connect.await;
                });
            }
            return None;
        };
        Some((on_loop, client))
    }

    fn wait<F, T>(&self, py: Python<'_>, fut: F) -> PyResult<Py<PyAny>>
    where
        F: std::future::Future<Output = OpResult<T>> + Send,
        T: IntoPy,
    {
        let driver = Driver::Worker(&self.inner.handle);
        bridge::block(py, driver, self.inner.until_closed(fut))
    }

    /// Blocking single-record call on the caller-driven runtime: `call` gets its crate client.
    fn wait_direct<C, F, T>(&self, py: Python<'_>, call: C) -> PyResult<Py<PyAny>>
    where
        C: FnOnce(aerospike::Client) -> F + Send,
        F: std::future::Future<Output = OpResult<T>> + Send,
        T: IntoPy,
    {
        let inner = &self.inner;
        let rt = match inner.caller.get() {
            Some(rt) => rt,
            None => {
                let rt = runtime::caller_driven()?;
                inner.caller.get_or_init(|| rt)
            }
        };
        let fut = Box::pin(async move { call(inner.direct_client().await?).await });
        bridge::block(py, Driver::Caller(rt, &inner.spin), inner.until_closed(fut))
    }
}

/// Whether a batch is sent as parts (read-only, large): see [`PIPELINE_MIN_ROWS`].
fn pipelined(rows: &[crate::batch::Row]) -> bool {
    rows.len() >= PIPELINE_MIN_ROWS && !rows.iter().any(crate::batch::Row::writes)
}

/// Read-only batches of at least this many rows are pipelined, in parts of
/// [`PIPELINE_PART_ROWS`].
const PIPELINE_MIN_ROWS: usize = 400;
const PIPELINE_PART_ROWS: usize = 250;

impl Client {
    /// A large read-only batch as parts requested at once: while this thread turns one
    /// part's rows into Python objects, the worker runtime parses the next part's reply.
    fn batch_pipelined(
        &self,
        py: Python<'_>,
        i: &Arc<Inner>,
        p: &Arc<Natives>,
        rows: Vec<crate::batch::Row>,
    ) -> PyResult<Py<PyAny>> {
        let parts = calls::batch_parts(i, p, rows, PIPELINE_PART_ROWS);
        let mut tasks = Vec::with_capacity(parts.len());
        let mut running = bridge::AbortAll(Vec::with_capacity(parts.len()));
        for part in parts {
            let task = i.handle.spawn(crate::guard::future(i.until_closed(part)));
            running.0.push(task.abort_handle());
            tasks.push(task);
        }
        let mut out = Vec::new();
        for task in tasks {
            let part = bridge::wait(py, Driver::Worker(&i.handle), async move {
                task.await
                    .map_err(|e| Failure::Py(bridge::join_error(&e)))?
            })
            .map_err(|f| f.into_pyerr(py))?;
            crate::guard::sync("result conversion", || part.push_rows(py, &mut out))?;
        }
        Ok(PyList::new(py, out)?.into_any().unbind())
    }
}

/// Expose `$name` (async, with `done`) and `$blocking` over one future-building closure.
/// The crate's futures are several KB; boxing them once at creation keeps every later move
/// (wrappers, spawn, the blocking executor) a pointer copy.
macro_rules! twin {
    ($self:ident, $done:expr, $fut:expr) => {{
        let fut = Box::pin($fut);
        Ok($self.go($done, fut))
    }};
    (blocking $self:ident, $py:ident, $fut:expr) => {{
        let fut = Box::pin($fut);
        $self.wait($py, fut)
    }};
    (direct $self:ident, $py:ident, $call:expr) => {{
        $self.wait_direct($py, $call)
    }};
    (on_loop $self:ident, $py:ident, $done:expr, $call:expr) => {{
        Ok($self.go_on_loop($py, $done, $call))
    }};
}

#[pymethods]
impl Client {
    /// Whether the cluster is connected (and not closed).
    #[getter]
    fn is_connected(&self) -> bool {
        !self.inner.closed.load(Ordering::Acquire)
            && self.inner.generation == runtime::generation()
            && self.inner.client.is_connected()
    }

    /// Close the cluster; in-flight operations fail with ClientClosedError.
    fn close(&self, py: Python<'_>) {
        if self.inner.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        if self.inner.generation != runtime::generation() {
            return; // its runtime is gone in this (forked) process
        }
        self.inner.closing.send_replace(true);
        let c = self.inner.client.clone();
        self.inner.handle.spawn(async move {
            let _ = c.close().await;
        });
        if let (Some(c), Some(rt)) = (self.inner.direct.get(), self.inner.caller.get()) {
            let c = c.clone();
            rt.spawn(async move {
                let _ = c.close().await;
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

    /// Names of the cluster's nodes.
    fn node_names(&self) -> PyResult<Vec<String>> {
        Ok(self.live()?.client.node_names())
    }

    #[pyo3(signature = (done, key, bins, header_only, policy))]
    fn get(
        &self,
        py: Python<'_>,
        done: Py<PyAny>,
        key: &Bound<'_, PyAny>,
        bins: Option<Vec<String>>,
        header_only: bool,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Pending> {
        self.live()?;
        let (k, sel, p) = (
            (to_key(key)?, key.clone().unbind()),
            bins_selector(bins, header_only),
            self.natives(policy),
        );
        twin!(on_loop self, py, done, move |c| calls::get(c, p, k, sel))
    }

    #[pyo3(signature = (key, bins, header_only, policy))]
    fn get_blocking(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        bins: Option<Vec<String>>,
        header_only: bool,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Py<PyAny>> {
        self.live()?;
        let (k, sel, p) = (
            (to_key(key)?, key.clone().unbind()),
            bins_selector(bins, header_only),
            self.natives(policy),
        );
        twin!(direct self, py, move |c| calls::get(c, p, k, sel))
    }

    #[pyo3(signature = (done, key, bins, policy))]
    fn put(
        &self,
        py: Python<'_>,
        done: Py<PyAny>,
        key: &Bound<'_, PyAny>,
        bins: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Pending> {
        self.live()?;
        let (k, b, p) = (to_key(key)?, to_bins(bins)?, self.natives(policy));
        twin!(on_loop self, py, done, move |c| calls::put(c, p, k, b))
    }

    #[pyo3(signature = (key, bins, policy))]
    fn put_blocking(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        bins: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Py<PyAny>> {
        self.live()?;
        let (k, b, p) = (to_key(key)?, to_bins(bins)?, self.natives(policy));
        twin!(direct self, py, move |c| calls::put(c, p, k, b))
    }

    #[pyo3(signature = (done, key, policy))]
    fn delete(
        &self,
        py: Python<'_>,
        done: Py<PyAny>,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Pending> {
        self.live()?;
        let (k, p) = (to_key(key)?, self.natives(policy));
        twin!(on_loop self, py, done, move |c| calls::delete(c, p, k))
    }

    #[pyo3(signature = (key, policy))]
    fn delete_blocking(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Py<PyAny>> {
        self.live()?;
        let (k, p) = (to_key(key)?, self.natives(policy));
        twin!(direct self, py, move |c| calls::delete(c, p, k))
    }

    #[pyo3(signature = (done, key, policy))]
    fn exists(
        &self,
        py: Python<'_>,
        done: Py<PyAny>,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Pending> {
        self.live()?;
        let (k, p) = (to_key(key)?, self.natives(policy));
        twin!(on_loop self, py, done, move |c| calls::exists(c, p, k))
    }

    #[pyo3(signature = (key, policy))]
    fn exists_blocking(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Py<PyAny>> {
        self.live()?;
        let (k, p) = (to_key(key)?, self.natives(policy));
        twin!(direct self, py, move |c| calls::exists(c, p, k))
    }

    #[pyo3(signature = (done, key, policy))]
    fn touch(
        &self,
        py: Python<'_>,
        done: Py<PyAny>,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Pending> {
        self.live()?;
        let (k, p) = (to_key(key)?, self.natives(policy));
        twin!(on_loop self, py, done, move |c| calls::touch(c, p, k))
    }

    #[pyo3(signature = (key, policy))]
    fn touch_blocking(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Py<PyAny>> {
        self.live()?;
        let (k, p) = (to_key(key)?, self.natives(policy));
        twin!(direct self, py, move |c| calls::touch(c, p, k))
    }

    #[pyo3(signature = (done, key, ops, policy))]
    fn operate(
        &self,
        py: Python<'_>,
        done: Py<PyAny>,
        key: &Bound<'_, PyAny>,
        ops: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Pending> {
        self.live()?;
        let (k, o, p) = (
            (to_key(key)?, key.clone().unbind()),
            to_ops(ops)?,
            self.natives(policy),
        );
        twin!(on_loop self, py, done, move |c| calls::operate(c, p, k, o))
    }

    #[pyo3(signature = (key, ops, policy))]
    fn operate_blocking(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        ops: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Py<PyAny>> {
        self.live()?;
        let (k, o, p) = (
            (to_key(key)?, key.clone().unbind()),
            to_ops(ops)?,
            self.natives(policy),
        );
        twin!(direct self, py, move |c| calls::operate(c, p, k, o))
    }

    #[pyo3(signature = (done, rows, policy))]
    fn batch(
        &self,
        done: Py<PyAny>,
        rows: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Pending> {
        let i = self.live()?.clone();
        let p = self.natives(policy);
        let b = crate::batch::to_rows(rows, &self.inner.defaults)?;
        if pipelined(&b) && bridge::takes_parts(rows.py(), &done) {
            let parts = calls::batch_parts(&i, &p, b, PIPELINE_PART_ROWS)
                .into_iter()
                .map(|part| Box::pin(i.until_closed(part)) as bridge::PartFuture<_>)
                .collect();
            let acc = calls::BatchRows::default();
            return Ok(bridge::start_parts(&i.handle, done, parts, acc));
        }
        twin!(self, done, calls::batch(i, p, b))
    }

    #[pyo3(signature = (rows, policy))]
    fn batch_blocking(
        &self,
        py: Python<'_>,
        rows: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Py<PyAny>> {
        let i = self.live()?.clone();
        let p = self.natives(policy);
        let b = crate::batch::to_rows(rows, &self.inner.defaults)?;
        if pipelined(&b) {
            return self.batch_pipelined(py, &i, &p, b);
        }
        twin!(blocking self, py, calls::batch(i, p, b))
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
        let p = self.natives(policy);
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

    #[pyo3(signature = (done, command, node))]
    fn info(&self, done: Py<PyAny>, command: String, node: Option<String>) -> PyResult<Pending> {
        let i = self.live()?.clone();
        twin!(self, done, calls::info(i, command, node))
    }

    #[pyo3(signature = (command, node))]
    fn info_blocking(
        &self,
        py: Python<'_>,
        command: String,
        node: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let i = self.live()?.clone();
        twin!(blocking self, py, calls::info(i, command, node))
    }

    fn truncate(
        &self,
        done: Py<PyAny>,
        namespace: String,
        set_name: String,
        before_ns: i64,
    ) -> PyResult<Pending> {
        let i = self.live()?.clone();
        twin!(
            self,
            done,
            calls::truncate(i, namespace, set_name, before_ns)
        )
    }

    fn truncate_blocking(
        &self,
        py: Python<'_>,
        namespace: String,
        set_name: String,
        before_ns: i64,
    ) -> PyResult<Py<PyAny>> {
        let i = self.live()?.clone();
        twin!(blocking self, py, calls::truncate(i, namespace, set_name, before_ns))
    }

    #[pyo3(signature = (done, namespace, set_name, bin_name, index_name, index_type, collection))]
    #[allow(clippy::too_many_arguments)]
    fn create_index(
        &self,
        done: Py<PyAny>,
        namespace: String,
        set_name: String,
        bin_name: String,
        index_name: String,
        index_type: &str,
        collection: Option<&str>,
    ) -> PyResult<Pending> {
        let i = self.live()?.clone();
        let spec = calls::IndexSpec::parse(
            namespace, set_name, bin_name, index_name, index_type, collection,
        )?;
        twin!(self, done, calls::create_index(i, spec))
    }

    #[pyo3(signature = (namespace, set_name, bin_name, index_name, index_type, collection))]
    #[allow(clippy::too_many_arguments)]
    fn create_index_blocking(
        &self,
        py: Python<'_>,
        namespace: String,
        set_name: String,
        bin_name: String,
        index_name: String,
        index_type: &str,
        collection: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let i = self.live()?.clone();
        let spec = calls::IndexSpec::parse(
            namespace, set_name, bin_name, index_name, index_type, collection,
        )?;
        twin!(blocking self, py, calls::create_index(i, spec))
    }

    fn drop_index(
        &self,
        done: Py<PyAny>,
        namespace: String,
        set_name: String,
        index_name: String,
    ) -> PyResult<Pending> {
        let i = self.live()?.clone();
        twin!(
            self,
            done,
            calls::drop_index(i, namespace, set_name, index_name)
        )
    }

    fn drop_index_blocking(
        &self,
        py: Python<'_>,
        namespace: String,
        set_name: String,
        index_name: String,
    ) -> PyResult<Py<PyAny>> {
        let i = self.live()?.clone();
        twin!(blocking self, py, calls::drop_index(i, namespace, set_name, index_name))
    }

    fn udf_register(
        &self,
        done: Py<PyAny>,
        code: Vec<u8>,
        server_path: String,
    ) -> PyResult<Pending> {
        let i = self.live()?.clone();
        twin!(self, done, calls::udf_register(i, code, server_path))
    }

    fn udf_register_blocking(
        &self,
        py: Python<'_>,
        code: Vec<u8>,
        server_path: String,
    ) -> PyResult<Py<PyAny>> {
        let i = self.live()?.clone();
        twin!(blocking self, py, calls::udf_register(i, code, server_path))
    }

    fn udf_remove(&self, done: Py<PyAny>, server_path: String) -> PyResult<Pending> {
        let i = self.live()?.clone();
        twin!(self, done, calls::udf_remove(i, server_path))
    }

    fn udf_remove_blocking(&self, py: Python<'_>, server_path: String) -> PyResult<Py<PyAny>> {
        let i = self.live()?.clone();
        twin!(blocking self, py, calls::udf_remove(i, server_path))
    }

    #[pyo3(signature = (done, key, module, function, args, policy))]
    #[allow(clippy::too_many_arguments)]
    fn udf_apply(
        &self,
        done: Py<PyAny>,
        key: &Bound<'_, PyAny>,
        module: String,
        function: String,
        args: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Pending> {
        let i = self.live()?.clone();
        let (k, a, p) = (to_key(key)?, udf_args(args)?, self.natives(policy));
        twin!(
            self,
            done,
            calls::udf_apply(i.client.clone(), p, k, module, function, a)
        )
    }

    #[pyo3(signature = (key, module, function, args, policy))]
    fn udf_apply_blocking(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        module: String,
        function: String,
        args: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) -> PyResult<Py<PyAny>> {
        self.live()?;
        let (k, a, p) = (to_key(key)?, udf_args(args)?, self.natives(policy));
        twin!(direct self, py, move |c| calls::udf_apply(c, p, k, module, function, a))
    }

    fn __repr__(&self) -> String {
        format!(
            "<Client nodes={:?} closed={}>",
            self.inner.client.node_names(),
            self.inner.closed.load(Ordering::Acquire)
        )
    }
}
