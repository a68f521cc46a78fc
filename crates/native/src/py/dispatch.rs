//! How `Client`'s operations are sent along the routes of `client/routes.rs`: async calls on
//! the worker runtime or the event loop's own, blocking twins on the caller-driven runtime, and
//! batches (large read-only ones in parts).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::client::routes::RuntimeClient;
use crate::client::Inner;
use crate::errors::{join_error, Failure, OpResult};
use crate::exec::blocking::{self, Driver};
use crate::exec::completion::{self, AbortAll, IntoPy, OnLoop, Pending, DEFAULT_LOOP_OPS};
use crate::exec::runtime;
use crate::metrics::{Call, Meter};
use crate::policy::Natives;
use crate::py::client::Client;
use crate::request::calls;

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
        let inner = &self.inner;
        let ticket = inner.ticket();
        // A call waiting for a slot stays off the loop's runtime: the slot's release, on
        // another thread, would not wake it there before the loop's next tick.
        let on_loop = (!ticket.queued())
            .then(|| self.on_loop(py, &done))
            .flatten();
        match on_loop {
            Some((on_loop, client)) => on_loop.start(
                inner.until_admitted(meter, ticket, built_when_admitted(call, client)),
                &inner.spin,
            ),
            None => {
                let fut = built_when_admitted(call, inner.worker_client());
                let fut = inner.until_admitted(meter, ticket, fut);
                completion::start(&inner.handle, done, fut)
            }
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
            return self.wait(py, meter, built_when_admitted(call, inner.worker_client()));
        }
        let rt = match inner.caller.get() {
            Some(rt) => rt,
            None => {
                let rt = runtime::caller_driven()?;
                inner.caller.get_or_init(|| rt)
            }
        };
        let fut = built_when_admitted(call, inner.caller_client());
        blocking::block(
            py,
            Driver::Caller(rt, &inner.spin),
            inner.until_closed(meter, fut),
        )
    }
}

/// `call`'s request, built and boxed on first poll: a call waiting for a slot of
/// `max_in_flight` holds its arguments only.
async fn built_when_admitted<C, F, T>(call: C, client: RuntimeClient) -> OpResult<T>
where
    C: FnOnce(RuntimeClient) -> F,
    F: std::future::Future<Output = OpResult<T>>,
{
    Box::pin(call(client)).await
}

/// Whether a batch is large enough to be sent as parts when read-only (see
/// [`PIPELINE_MIN_ROWS`]), and to stay off the event loop's runtime.
fn pipelined(rows: &[crate::request::batch_rows::Row]) -> bool {
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
        rows: Vec<crate::request::batch_rows::Row>,
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
                .spawn(crate::safety::guard::future(i.until_closed(call, part)));
            running.0.push(task.abort_handle());
            tasks.push(task);
        }
        let mut out = Vec::new();
        for task in tasks {
            let part = blocking::wait(py, Driver::Worker(&i.handle), async move {
                task.await.map_err(|e| Failure::Py(join_error(&e)))?
            })
            .map_err(|f| f.into_pyerr(py))?;
            crate::safety::guard::sync("result conversion", || part.push_rows(py, &mut out))?;
        }
        Ok(PyList::new(py, out)?.into_any().unbind())
    }
}

/// A batch prepared by its declaration: the client's state, its policies and its rows.
pub type BatchCall = (
    Arc<Inner>,
    Arc<Natives>,
    Vec<crate::request::batch_rows::Row>,
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
        let ticket = i.ticket();
        // a call waiting for a slot stays off the loop's runtime (see `go_on_loop`)
        if plain && !ticket.queued() {
            if let Some((on_loop, client)) = self.on_loop(py, &done) {
                let fut = Box::pin(calls::batch_on(client, p, rows));
                return Ok(on_loop.start(i.until_admitted(call, ticket, fut), &i.spin));
            }
        }
        let fut = i.until_admitted(call, ticket, Box::pin(calls::batch(i.clone(), p, rows)));
        Ok(completion::start(&i.handle, done, fut))
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
