//! The handle of a started operation (`Pending`), its cancellation, and the job that spawns it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use pyo3::prelude::*;
use tokio::runtime::Handle;
use tokio::task::AbortHandle;

use super::completer::Completer;

pub(super) const RUNNING: u8 = 0;
pub(super) const CANCELLED: u8 = 1;
pub(super) const COMPLETED: u8 = 2;

/// How to stop an operation's task.
pub(super) enum Abort {
    /// A task on the worker runtime.
    Task(AbortHandle),
    /// An operation on an event loop's runtime (dropped at its next tick, or when the
    /// completer is released).
    Local(futures::future::AbortHandle),
}

/// Shared by a `Pending` and its task: the race between completing and cancelling, and the
/// task's abort handle once it is spawned (a coalesced operation is spawned a little later).
pub(super) struct OpState {
    pub(super) state: AtomicU8,
    pub(super) abort: OnceLock<Abort>,
}

impl OpState {
    pub(super) fn new() -> Arc<Self> {
        Arc::new(OpState {
            state: AtomicU8::new(RUNNING),
            abort: OnceLock::new(),
        })
    }
}

impl OpState {
    /// Claim the right to deliver the outcome (false: cancelled first).
    pub(super) fn complete(&self) -> bool {
        self.state
            .compare_exchange(RUNNING, COMPLETED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// Handle of an operation started with a `done` callback.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct Pending {
    pub(super) op: Arc<OpState>,
}

#[pymethods]
impl Pending {
    /// Abort the native task; `done` is then never called. True if it was still running.
    fn cancel(&self) -> bool {
        let won = self
            .op
            .state
            .compare_exchange(RUNNING, CANCELLED, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if won {
            // Not spawned yet (coalesced): `Job::spawn` sees CANCELLED and aborts it.
            match self.op.abort.get() {
                Some(Abort::Task(a)) => a.abort(),
                Some(Abort::Local(a)) => a.abort(),
                None => {}
            }
        }
        won
    }

    fn __repr__(&self) -> &'static str {
        match self.op.state.load(Ordering::Acquire) {
            RUNNING => "<Pending running>",
            CANCELLED => "<Pending cancelled>",
            _ => "<Pending done>",
        }
    }
}

/// An operation ready to be spawned on the runtime.
pub(super) struct Job {
    pub(super) op: Arc<OpState>,
    pub(super) task: Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl Job {
    /// Queue the task on `completer` (coalesced with this loop iteration's), or spawn it.
    pub(super) fn submit<F>(
        handle: &Handle,
        completer: Option<Bound<'_, Completer>>,
        op: Arc<OpState>,
        task: F,
    ) where
        F: Future<Output = ()> + Send + 'static,
    {
        let job = Job {
            op,
            task: Box::pin(task),
        };
        match completer {
            Some(c) => Completer::submit(&c, handle, job),
            None => job.spawn(handle),
        }
    }

    /// Spawn the task and publish its abort handle (a cancel that came first aborts it here).
    pub(super) fn spawn(self, handle: &Handle) {
        let task = handle.spawn(self.task);
        let _ = self.op.abort.set(Abort::Task(task.abort_handle()));
        if self.op.state.load(Ordering::SeqCst) == CANCELLED {
            task.abort();
        }
    }
}

/// Spawn every job from one task on the runtime (spawns from a worker thread wake nobody).
pub(super) fn spawn_all(jobs: Vec<Job>, handle: Option<Handle>) {
    let Some(handle) = handle else { return };
    match jobs.len() {
        0 => {}
        1 => jobs.into_iter().for_each(|j| j.spawn(&handle)),
        _ => {
            let h = handle.clone();
            handle.spawn(async move {
                for j in jobs {
                    j.spawn(&h);
                }
            });
        }
    }
}
