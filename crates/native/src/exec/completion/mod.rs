//! Completion: how a started operation's outcome reaches Python.
//!
//! - `outcome`: what an operation ends with (`Failure`, `OpResult`, `IntoPy`) and `Ready`, an
//!   outcome waiting to settle its future on the loop thread.
//! - `pending`: the `Pending` handle a started operation returns, and cancellation.
//! - `completer`: one event loop's completion queue and its own runtime.
//! - `on_loop`: operations started on that runtime.
//! - `parts`: operations delivered in parts (large batch reads).
//!
//! `start` is the route for everything that runs on the worker runtime.

mod completer;
mod on_loop;
mod outcome;
mod parts;
mod pending;
mod wake;

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tokio::runtime::Handle;

pub use crate::errors::{Failure, OpResult};
pub use completer::Completer;
use completer::Queue;
pub use on_loop::{OnLoop, DEFAULT_LOOP_OPS, LOOP_RUNTIME_AFTER};
use outcome::deliver;
pub use outcome::{IntoPy, Ready};
pub use parts::{start_parts, takes_parts, AbortAll, PartFuture, Parts};
pub use pending::Pending;
use pending::{Job, OpState, RUNNING};

use crate::exec::exit::with_python;

/// Spawn `fut` on the runtime. `done` is either a callable, called as `done(result, error)`
/// under the GIL on a runtime thread, or a `(Completer, future)` pair: the outcome is queued on
/// the completer without the GIL and the event loop settles the future in `drain()`; the
/// operation itself may be coalesced with the others started in the same loop iteration
/// (see `Completer::submit`).
pub fn start<F, T>(handle: &Handle, done: Py<PyAny>, fut: F) -> Pending
where
    F: Future<Output = OpResult<T>> + Send + 'static,
    T: IntoPy,
{
    let op = OpState::new();
    let st = op.clone();
    // Boxed: held inline, the task would hold the future twice (as captured and as awaited),
    // several KiB for a call that may wait long for its slot (`max_in_flight`).
    let fut = Box::pin(fut);
    Python::attach(|py| {
        let (target, completer) = Target::of(py, done);
        let task = async move {
            if st.state.load(Ordering::Acquire) != RUNNING {
                return; // cancelled before it was spawned
            }
            let out = crate::safety::guard::future(fut).await;
            if !st.complete() {
                return; // cancelled: done is never called
            }
            match target {
                Target::Callback(done) => {
                    with_python(|py| deliver(py, &done, out));
                }
                Target::Queue(c, fut) => c.push(Ready::new(fut, out)),
            }
        };
        Job::submit(handle, completer, op.clone(), task);
    });
    Pending { op }
}

enum Target {
    Callback(Py<PyAny>),
    Queue(Arc<Queue>, Py<PyAny>),
}

impl Target {
    fn of<'py>(py: Python<'py>, done: Py<PyAny>) -> (Target, Option<Bound<'py, Completer>>) {
        if let Ok(t) = done.bind(py).cast::<PyTuple>() {
            if t.len() == 2 {
                if let (Ok(c), Ok(f)) = (t.get_item(0), t.get_item(1)) {
                    if let Ok(c) = c.cast_into::<Completer>() {
                        let queue = c.get().queue.clone();
                        return (Target::Queue(queue, f.unbind()), Some(c));
                    }
                }
            }
        }
        (Target::Callback(done), None)
    }
}
