//! Async operations that run on their event loop's own runtime (see `exec/loop_runtime.rs`).

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::FutureExt;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::completer::Completer;
use super::outcome::{settle_from, IntoPy, Ready};
use super::pending::{Abort, OpState, Pending, RUNNING};
use crate::errors::OpResult;
use crate::exec::loop_runtime::LoopRuntime;
use crate::exec::spin::Spin;

/// A loop gets its own runtime at its eighth call on it (all clients together).
pub const LOOP_RUNTIME_AFTER: usize = 8;
/// Default `loop_ops`: operations in flight on a loop's own runtime before new ones go to the
/// worker runtime.
pub const DEFAULT_LOOP_OPS: usize = 16;

/// An async operation that runs on its event loop's own runtime (see `exec/loop_runtime.rs`).
pub struct OnLoop<'py> {
    pub(super) completer: Bound<'py, Completer>,
    pub(super) fut: Py<PyAny>,
}

impl<'py> OnLoop<'py> {
    /// The loop of `done` (a `(Completer, future)` pair), if it may get a runtime and its
    /// runtime, once built, has room for one more operation.
    pub fn of(py: Python<'py>, done: &Py<PyAny>) -> Option<Self> {
        let t = done.bind(py).cast::<PyTuple>().ok()?;
        if t.len() != 2 {
            return None;
        }
        let completer = t.get_item(0).ok()?.cast_into::<Completer>().ok()?;
        let c = completer.get();
        if !c.local_allowed {
            return None;
        }
        match c.local.get() {
            Some(None) => return None,
            Some(Some(local)) if !local.usable() || local.in_flight() >= c.local_max => {
                return None
            }
            _ => {}
        }
        let fut = t.get_item(1).ok()?.unbind();
        Some(OnLoop { completer, fut })
    }

    /// Most operations in flight on the loop's runtime (more go to the worker runtime).
    pub fn capacity(&self) -> usize {
        self.completer.get().local_max
    }

    /// The loop's runtime, once built: at the loop's [`LOOP_RUNTIME_AFTER`]-th call (a loop
    /// making a few calls, `asyncio.run` per request, never pays for one).
    pub fn runtime(&self) -> Option<&Arc<LoopRuntime<Ready>>> {
        let c = self.completer.get();
        if let Some(local) = c.local() {
            return Some(local);
        }
        if c.local_calls.fetch_add(1, Ordering::Relaxed) + 1 < LOOP_RUNTIME_AFTER {
            return None;
        }
        Completer::build_local(&self.completer)
    }

    /// Start `fut` on the loop's runtime now (it sends its request before this returns; a
    /// scheduled flush would cost the loop an iteration per sequential call). A lone operation
    /// on an otherwise idle loop may then poll for its reply as `spin` allows, and settle its
    /// future before this returns.
    pub fn start<F, T>(self, fut: F, spin: &Spin) -> Pending
    where
        F: Future<Output = OpResult<T>> + Send + 'static,
        T: IntoPy,
    {
        let op = OpState::new();
        let (abort, registration) = futures::future::AbortHandle::new_pair();
        let _ = op.abort.set(Abort::Local(abort));
        let st = op.clone();
        let OnLoop {
            completer,
            fut: target,
        } = self;
        let task = async move {
            if st.state.load(Ordering::Acquire) != RUNNING {
                return None;
            }
            let out = crate::safety::guard::future(fut).await;
            st.complete().then(|| Ready::new(target, out))
        };
        let task = futures::future::Abortable::new(task, registration).map(|r| r.ok().flatten());
        let c = completer.get();
        if let Some(local) = c.local() {
            c.local_started.fetch_add(1, Ordering::Relaxed);
            let py = completer.py();
            settle_from(py, || match local.start(Box::pin(task)) {
                done if done.is_empty() => {
                    let done = c.poll_alone(py, local, spin);
                    if !done.is_empty() {
                        c.local_polled.fetch_add(1, Ordering::Relaxed);
                    }
                    done
                }
                done => done,
            });
            Completer::arm_tick(&completer, local);
        }
        Pending { op }
    }
}
