//! Operations delivered in parts (large batch reads): each part converted on the loop thread as
//! it lands, the last one settling the future.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tokio::runtime::Handle;
use tokio::task::AbortHandle;

use super::completer::{Completer, Queue};
use super::outcome::Ready;
use super::pending::{Job, OpState, Pending, RUNNING};
use super::Target;
use crate::errors::{join_error, ClientError};
use crate::errors::{Failure, OpResult};

/// The results of an operation delivered in parts, gathered on the loop thread.
pub trait Parts: Send + 'static {
    /// One part's native result.
    type Part: Send + 'static;
    /// Convert a part and add it (parts arrive in order).
    fn push(&mut self, py: Python<'_>, part: Self::Part) -> PyResult<()>;
    /// The whole result.
    fn finish(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

/// A part's future (spawned on the worker runtime on its own).
pub type PartFuture<P> = Pin<Box<dyn Future<Output = OpResult<P>> + Send + 'static>>;

/// Aborts the tasks still running when dropped.
pub struct AbortAll(pub Vec<AbortHandle>);

impl Drop for AbortAll {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

/// Whether `done` is a `(Completer, future)` pair (asyncio or trio), the one target that takes
/// results in parts.
pub fn takes_parts(py: Python<'_>, done: &Py<PyAny>) -> bool {
    done.bind(py)
        .cast::<PyTuple>()
        .is_ok_and(|t| t.len() == 2 && t.get_item(0).is_ok_and(|c| c.is_instance_of::<Completer>()))
}

/// Start `parts` at once on the worker runtime; each finished part is queued on the loop's
/// completer and converted by `drain` into `acc` while the next parts are still parsed, and
/// the last one settles the future with `acc.finish()`. The first failure settles it with
/// that error and aborts the other parts; so does cancelling the returned `Pending`.
/// `done` must satisfy [`takes_parts`].
pub fn start_parts<A: Parts>(
    handle: &Handle,
    done: Py<PyAny>,
    parts: Vec<PartFuture<A::Part>>,
    acc: A,
) -> Pending {
    let op = OpState::new();
    let st = op.clone();
    let spawner = handle.clone();
    Python::attach(|py| {
        let (target, completer) = Target::of(py, done);
        let Target::Queue(queue, fut) = target else {
            unreachable!("start_parts needs a completer (checked with takes_parts)")
        };
        let acc: Arc<Mutex<PyResult<A>>> = Arc::new(Mutex::new(Ok(acc)));
        let task = async move {
            if st.state.load(Ordering::Acquire) != RUNNING {
                return;
            }
            let mut running = AbortAll(Vec::with_capacity(parts.len()));
            let mut tasks = Vec::with_capacity(parts.len());
            for part in parts {
                let task = spawner.spawn(crate::safety::guard::future(part));
                running.0.push(task.abort_handle());
                tasks.push(task);
            }
            let last = tasks.len().saturating_sub(1);
            let mut fut = Some(fut);
            for (k, task) in tasks.into_iter().enumerate() {
                let part = match task.await {
                    Ok(Ok(part)) => part,
                    Ok(Err(f)) => return deliver_failure(&st, &queue, fut, f),
                    Err(e) => {
                        return deliver_failure(&st, &queue, fut, Failure::Py(join_error(&e)))
                    }
                };
                let fut = if k == last {
                    if !st.complete() {
                        return;
                    }
                    fut.take()
                } else {
                    None
                };
                queue.push(part_ready(fut, acc.clone(), part));
            }
        };
        Job::submit(handle, completer, op.clone(), task);
    });
    Pending { op }
}

/// A part's delivery: converted into `acc`; with `fut` (the last part), the whole outcome.
pub(super) fn part_ready<A: Parts>(
    fut: Option<Py<PyAny>>,
    acc: Arc<Mutex<PyResult<A>>>,
    part: A::Part,
) -> Ready {
    let last = fut.is_some();
    Ready {
        fut,
        out: Box::new(move |py| {
            let mut slot = acc.lock();
            if let Ok(a) = slot.as_mut() {
                if let Err(e) = crate::safety::guard::sync("result conversion", || a.push(py, part))
                {
                    *slot = Err(e);
                }
            }
            if !last {
                return Ok(py.None());
            }
            let done = std::mem::replace(&mut *slot, Err(ClientError::new_err("already finished")));
            done.and_then(|a| a.finish(py))
        }),
    }
}

pub(super) fn deliver_failure(st: &OpState, queue: &Queue, fut: Option<Py<PyAny>>, f: Failure) {
    if let Some(fut) = fut {
        if st.complete() {
            queue.push(Ready::new::<()>(fut, Err(f)));
        }
    }
}
