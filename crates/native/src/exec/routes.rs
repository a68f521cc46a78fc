//! Where a call runs: the runtimes and connection pools a client owns, and the route each call
//! takes through them.
//!
//! A client owns one crate client, on the shared multi-threaded worker runtime
//! (`exec/runtime.rs`), connected by `connect`: its tend is the client's one view of the nodes,
//! and it serves the calls only the crate encodes. Next to it, one wire pool per runtime a call
//! can run on (the worker's, the caller-driven runtime's, each event loop's), all within one
//! budget per node, `max_conns_per_node` ([`shares`]). A crate call made on another runtime is
//! run on the worker's ([`RuntimeClient::on_crate`]): the crate's sockets belong to it.
//!
//! Route of an async single-record call (get, put, delete, exists, touch, operate), checked in
//! this order; the first "no" sends it to the worker runtime:
//!
//! | condition | where it is decided |
//! |---|---|
//! | the caller runs asyncio or trio with a `Completer` (not a plain callback) | `_bridge.py`, `_trio.py` |
//! | the loop has a runtime of its own (`loop_runtime=True`, the loop gave `call_soon`, `call_later`, `add_reader`; built at its [`crate::exec::completion::LOOP_RUNTIME_AFTER`]-th call; Linux: `/proc` found its epoll fd) | `Completer::new`, `OnLoop::runtime`, `LoopRuntime::new` |
//! | fewer than 16 operations in flight on it (`loop_ops`, [`DEFAULT_LOOP_OPS`]) | `OnLoop::of` |
//!
//! On the loop runtime the call sends before the native call returns; it then polls for its
//! reply (GIL released, up to `spin_wait_us`) only when it is the one operation in flight, the
//! loop has nothing else ready (asyncio `loop._ready` empty; trio: no runnable task; never on
//! uvloop) and `exec/spin.rs` allows it (budget > 0, not backed off after 8 late replies, at most
//! half the CPUs polling, no more blocking calls waiting than that). On the worker runtime,
//! operations started in one loop iteration are spawned together by `Completer::flush`.
//!
//! Blocking single-record calls (and blocking `udf_apply`) run on the caller-driven runtime,
//! polled by the calling thread with the same spin rules. An async batch of fewer than
//! [`PIPELINE_MIN_ROWS`] plain read rows (`batch_wire::plain_rows`; auto-batched gets and
//! exists) or plain put rows (`batch_wire::put_rows`; auto-batched puts, small `put_many`)
//! takes the route of a single-record call. Everything else (other batches, query,
//! info, truncate, indexes, UDF registration, async `udf_apply`) runs on the worker runtime;
//! read-only batches of [`PIPELINE_MIN_ROWS`] rows or more go as parts of
//! [`PIPELINE_PART_ROWS`], converted as they land (async on asyncio and trio, and blocking).

use std::sync::Arc;

use aerospike::policy::ClientPolicy;
use pyo3::prelude::*;
use pyo3::types::PyList;
use tokio::runtime::Handle;

use crate::conn;
use crate::errors::join_error;
use crate::exec::blocking::{self, Driver};
use crate::exec::completion::{
    self, AbortAll, Failure, IntoPy, OnLoop, OpResult, Pending, Ready, DEFAULT_LOOP_OPS,
};
use crate::exec::loop_runtime::LoopRuntime;
use crate::exec::runtime;
use crate::metrics::{Call, Meter};
use crate::py::client::{Client, Inner};
use crate::py::policy::Natives;
use crate::request::calls;

/// What a call running on one runtime uses: the client's crate client, and the connections
/// the wire path keeps on that runtime (`conn::pool`).
#[derive(Clone)]
pub struct RuntimeClient {
    /// The worker runtime's crate client: read its node list anywhere, but run its calls with
    /// [`Self::on_crate`].
    pub crate_client: aerospike::Client,
    pub wire: Arc<conn::Pool>,
    /// The worker runtime, when this is another runtime's.
    worker: Option<Handle>,
}

/// How a client's `max_conns_per_node` is shared out: the crate client gets a fixed part (its
/// tend connection and a pool for the calls only it serves), the wire path the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shares {
    pub worker: usize,
    pub wire: usize,
}

/// Below this limit the wire path gets no share: every call goes through the crate client.
const WIRE_FROM: usize = 8;

pub fn shares(limit: usize) -> Shares {
    let limit = limit.max(1);
    if limit < WIRE_FROM {
        return Shares {
            worker: limit,
            wire: 0,
        };
    }
    let worker = limit / 4;
    Shares {
        worker,
        wire: limit - worker,
    }
}

/// The pool size of a crate client holding `share` places: one is its tend connection.
fn crate_pool(share: usize) -> usize {
    share.saturating_sub(1).max(1)
}

/// A task on the worker runtime, aborted when the call awaiting it is dropped.
struct Hop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for Hop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl RuntimeClient {
    /// The client's crate client with a new wire pool, for a runtime other than the worker's.
    fn elsewhere(inner: &Inner) -> RuntimeClient {
        RuntimeClient {
            crate_client: inner.client.clone(),
            wire: conn::Pool::new(&inner.policy, inner.links.clone()),
            worker: Some(inner.handle.clone()),
        }
    }

    /// Run `call`, a crate call, where the crate's sockets live: here on the worker runtime,
    /// else spawned there (one thread wake-up each way).
    pub async fn on_crate<F, T>(&self, call: F) -> OpResult<T>
    where
        F: std::future::Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        match &self.worker {
            None => Ok(call.await),
            Some(worker) => {
                let mut hop = Hop(worker.spawn(crate::exec::guard::future(async move {
                    Ok::<T, Failure>(call.await)
                })));
                match (&mut hop.0).await {
                    Ok(out) => out,
                    Err(e) => Err(Failure::Py(join_error(&e))),
                }
            }
        }
    }

    /// Close the wire path's connections (and, on the worker, the crate client's).
    pub async fn close(&self) {
        self.wire.close();
        if self.worker.is_none() {
            let _ = self.crate_client.close().await;
        }
    }
}

impl Inner {
    /// What calls on the caller-driven runtime use (made by the first one).
    fn caller_client(&self) -> RuntimeClient {
        self.direct
            .get_or_init(|| RuntimeClient::elsewhere(self))
            .clone()
    }

    /// The clients of the worker runtime.
    pub(crate) fn worker_client(&self) -> RuntimeClient {
        RuntimeClient {
            crate_client: self.client.clone(),
            wire: self.worker_wire.clone(),
            worker: None,
        }
    }

    /// What this client's calls on the loop runtime `rt` use (made by the first one).
    fn loop_client(&self, rt: &Arc<LoopRuntime<Ready>>) -> RuntimeClient {
        let (cell, calls) = rt.client_for(self.id);
        if calls == 1 {
            let mut on_loops = self.on_loops.lock();
            on_loops.retain(|l| l.strong_count() > 0);
            on_loops.push(Arc::downgrade(rt));
        }
        cell.get_or_init(|| RuntimeClient::elsewhere(self)).clone()
    }
}

/// How long `close()` drives a loop runtime to close the client's connections on it.
const LOOP_CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Close a client's connections on a loop runtime: with `py`, now (its loop may never run
/// again, or be blocked by the caller, and only driving the runtime closes the sockets);
/// without, at the loop's next tick.
pub fn close_on_loop(py: Option<Python<'_>>, rt: &LoopRuntime<Ready>, c: RuntimeClient) {
    let close = async move {
        let _ = tokio::time::timeout(LOOP_CLOSE_WAIT, c.close()).await;
    };
    match py {
        // block_on is not allowed inside a runtime: the loop's next tick runs it
        Some(py) if Handle::try_current().is_err() => {
            py.detach(|| rt.block_on(close));
        }
        _ => rt.spawn(close),
    }
}

/// The worker runtime's crate client: its share of the budget (see [`shares`]); below
/// [`WIRE_FROM`] it serves every call, with the whole limit for its pool.
pub fn worker_policy(policy: &ClientPolicy) -> ClientPolicy {
    let limit = policy.max_conns_per_node;
    // The path that serves the plain calls keeps `min_conns_per_node` open: the wire path
    // (`client::maintain`), or below WIRE_FROM this client.
    let (max, min) = if limit < WIRE_FROM {
        let max = limit.max(1);
        (max, policy.min_conns_per_node.min(max))
    } else {
        (crate_pool(shares(limit).worker), 0)
    };
    ClientPolicy {
        max_conns_per_node: max,
        min_conns_per_node: min,
        ..policy.clone()
    }
}

impl Client {
    /// Async call on the worker runtime (`writes`: see [`Inner::until_closed`]).
    pub(crate) fn go<F, T>(&self, call: impl Into<Call>, done: Py<PyAny>, fut: F) -> Pending
    where
        F: std::future::Future<Output = OpResult<T>> + Send + 'static,
        T: IntoPy,
    {
        let fut = self.inner.until_closed(call.into(), fut);
        completion::start(&self.inner.handle, done, fut)
    }

    /// Async single-record call: on the event loop's own runtime when `done` has one with
    /// room, else on the worker runtime. `call` gets the crate client of the runtime chosen.
    pub(crate) fn go_on_loop<C, F, T>(
        &self,
        py: Python<'_>,
        meter: Call,
        done: Py<PyAny>,
        call: C,
    ) -> Pending
    where
        C: FnOnce(RuntimeClient) -> F + Send + 'static,
        F: std::future::Future<Output = OpResult<T>> + Send + 'static,
        T: IntoPy,
    {
        match self.on_loop(py, &done) {
            Some((on_loop, client)) => on_loop.start(
                self.inner.until_closed(meter, Box::pin(call(client))),
                &self.inner.spin,
            ),
            None => self.go(meter, done, Box::pin(call(self.inner.worker_client()))),
        }
    }

    /// The event loop of `done` and what this client's calls use on its runtime, when a call
    /// can run there now.
    pub(crate) fn on_loop<'py>(
        &self,
        py: Python<'py>,
        done: &Py<PyAny>,
    ) -> Option<(OnLoop<'py>, RuntimeClient)> {
        // Where a loop cannot have a runtime, or every call is the crate's (a budget under 8).
        if !crate::exec::loop_runtime::LINUX_EPOLL || !self.inner.worker_wire.enabled() {
            return None;
        }
        let on_loop = OnLoop::of(py, done).filter(|l| l.capacity() <= DEFAULT_LOOP_OPS)?;
        let rt = on_loop.runtime()?;
        let client = self.inner.loop_client(rt);
        Some((on_loop, client))
    }

    /// Blocking call on the worker runtime.
    pub(crate) fn wait<F, T>(
        &self,
        py: Python<'_>,
        call: impl Into<Call>,
        fut: F,
    ) -> PyResult<Py<PyAny>>
    where
        F: std::future::Future<Output = OpResult<T>> + Send,
        T: IntoPy,
    {
        let driver = Driver::Worker(&self.inner.handle);
        blocking::block(py, driver, self.inner.until_closed(call.into(), fut))
    }

    /// Blocking single-record call on the caller-driven runtime (on the worker's when the wire
    /// path is off: every call is then the crate's).
    pub(crate) fn wait_direct<C, F, T>(
        &self,
        py: Python<'_>,
        meter: Call,
        call: C,
    ) -> PyResult<Py<PyAny>>
    where
        C: FnOnce(RuntimeClient) -> F + Send,
        F: std::future::Future<Output = OpResult<T>> + Send,
        T: IntoPy,
    {
        let inner = &self.inner;
        if !inner.worker_wire.enabled() {
            return self.wait(py, meter, call(inner.worker_client()));
        }
        let rt = match inner.caller.get() {
            Some(rt) => rt,
            None => {
                let rt = runtime::caller_driven()?;
                inner.caller.get_or_init(|| rt)
            }
        };
        let fut = Box::pin(call(inner.caller_client()));
        blocking::block(
            py,
            Driver::Caller(rt, &inner.spin),
            inner.until_closed(meter, fut),
        )
    }
}

/// Whether a batch is large enough to be sent as parts when read-only (see
/// [`PIPELINE_MIN_ROWS`]), and to stay off the event loop's runtime.
fn pipelined(rows: &[crate::convert::batch_rows::Row]) -> bool {
    rows.len() >= PIPELINE_MIN_ROWS
}

/// Read-only batches of at least this many rows are pipelined, in parts of
/// [`PIPELINE_PART_ROWS`].
const PIPELINE_MIN_ROWS: usize = 400;
const PIPELINE_PART_ROWS: usize = 250;

impl Client {
    /// A large read-only batch as parts requested at once: while this thread turns one
    /// part's rows into Python objects, the worker runtime parses the next part's reply.
    pub(crate) fn batch_pipelined(
        &self,
        py: Python<'_>,
        i: &Arc<Inner>,
        p: &Arc<Natives>,
        rows: Vec<crate::convert::batch_rows::Row>,
        meter: Option<&Meter>,
    ) -> PyResult<Py<PyAny>> {
        let parts = calls::batch_parts(i, p, rows, PIPELINE_PART_ROWS);
        let mut tasks = Vec::with_capacity(parts.len());
        let mut running = AbortAll(Vec::with_capacity(parts.len()));
        for part in parts {
            let call = Call {
                writes: false,
                meter: meter.cloned(),
            };
            let task = i
                .handle
                .spawn(crate::exec::guard::future(i.until_closed(call, part)));
            running.0.push(task.abort_handle());
            tasks.push(task);
        }
        let mut out = Vec::new();
        for task in tasks {
            let part = blocking::wait(py, Driver::Worker(&i.handle), async move {
                task.await.map_err(|e| Failure::Py(join_error(&e)))?
            })
            .map_err(|f| f.into_pyerr(py))?;
            crate::exec::guard::sync("result conversion", || part.push_rows(py, &mut out))?;
        }
        Ok(PyList::new(py, out)?.into_any().unbind())
    }
}

/// A batch prepared by its declaration: the client's state, its policies and its rows.
pub type BatchCall = (
    Arc<Inner>,
    Arc<Natives>,
    Vec<crate::convert::batch_rows::Row>,
);

impl Client {
    /// Start a batch: large read-only ones in parts (asyncio, trio), the rest as one task.
    pub(crate) fn start_batch(
        &self,
        py: Python<'_>,
        call: Call,
        done: Py<PyAny>,
        (i, p, rows): BatchCall,
    ) -> PyResult<Pending> {
        let writes = call.writes;
        if !writes && pipelined(&rows) && completion::takes_parts(py, &done) {
            let meter = call.meter;
            let parts = calls::batch_parts(&i, &p, rows, PIPELINE_PART_ROWS)
                .into_iter()
                .map(|part| {
                    let call = Call {
                        writes: false,
                        meter: meter.clone(),
                    };
                    Box::pin(i.until_closed(call, part)) as completion::PartFuture<_>
                })
                .collect();
            let acc = calls::BatchRows::default();
            return Ok(completion::start_parts(&i.handle, done, parts, acc));
        }
        // Small batches of plain reads or of plain puts, on an event loop with a runtime of
        // its own, are sent from the calling thread, as gets are, and read there: no hop to a
        // worker and back (unless the wire path is off: AEROSPIKE_FLUENT_CRATE_RECORDS,
        // login, TLS). Larger ones would hold the loop while they are encoded.
        let plain = i.worker_wire.enabled()
            && !pipelined(&rows)
            && if writes {
                crate::request::batch_wire::put_rows(&p, &rows)
            } else {
                crate::request::batch_wire::plain_rows(&p, &rows)
            };
        if plain {
            if let Some((on_loop, client)) = self.on_loop(py, &done) {
                let fut = Box::pin(calls::batch_on(client, p, rows));
                return Ok(on_loop.start(i.until_closed(call, fut), &i.spin));
            }
        }
        Ok(self.go(call, done, Box::pin(calls::batch(i, p, rows))))
    }

    /// Run a batch, blocking: large read-only ones in parts.
    pub(crate) fn wait_batch(
        &self,
        py: Python<'_>,
        call: Call,
        (i, p, rows): BatchCall,
    ) -> PyResult<Py<PyAny>> {
        if !call.writes && pipelined(&rows) {
            return self.batch_pipelined(py, &i, &p, rows, call.meter.as_ref());
        }
        self.wait(py, call, Box::pin(calls::batch(i, p, rows)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_share_together_is_the_limit() {
        for limit in 8..=1024 {
            let s = shares(limit);
            assert_eq!(s.worker + s.wire, limit, "{limit}: {s:?}");
            assert!(s.worker >= 2 && s.wire >= 1, "{limit}: {s:?}");
            assert!(crate_pool(s.worker) < s.worker);
        }
        assert_eq!(
            shares(256),
            Shares {
                worker: 64,
                wire: 192
            }
        );
    }

    #[test]
    fn a_small_limit_is_one_crate_client() {
        for limit in 0..8 {
            let s = shares(limit);
            assert_eq!(s.wire, 0);
            assert_eq!(s.worker, limit.max(1));
        }
    }
}
