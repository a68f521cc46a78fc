//! The module's own Tokio runtimes, rebuilt after `fork()`.
//!
//! - The *worker* runtime (multi-thread, configurable worker count, default 1) runs async
//!   calls, batches, streams and admin calls.
//! - The *caller-driven* runtime (current-thread) runs blocking single-record calls: the
//!   blocked caller runs its I/O driver, so a reply wakes that thread directly instead of
//!   waking the worker, which then wakes the caller. It has its own crate client (sockets are
//!   bound to the driver that opened them). A ticker thread drives it for a moment every
//!   [`TICK`] so its background tasks (cluster tend, connection recovery) progress while no
//!   call runs.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use std::thread;
use std::time::Duration;

use pyo3::prelude::*;
use tokio::runtime::{Builder, Handle, Runtime};

use crate::errors::{invalid_argument, ClientError};
use crate::safety::deep_stack;

static WORKERS: AtomicUsize = AtomicUsize::new(1);
/// Bumped in the child after `fork()`; runtimes and clients of older generations are stale.
static GENERATION: AtomicU64 = AtomicU64::new(0);
static RUNTIME: Slot = Mutex::new(None);
static CALLER_DRIVEN: Slot = Mutex::new(None);

/// How often the ticker drives the caller-driven runtime, and for how long.
const TICK: Duration = Duration::from_millis(100);
const TICK_HOLD: Duration = Duration::from_millis(2);

/// The current fork generation.
pub fn generation() -> u64 {
    GENERATION.load(Ordering::Relaxed)
}

type Slot = Mutex<Option<(u64, Arc<Runtime>)>>;

/// The runtime in `slot` for the current generation, built by `build` on first use.
fn current(
    slot: &Slot,
    build: impl FnOnce() -> std::io::Result<Arc<Runtime>>,
) -> PyResult<Arc<Runtime>> {
    let gen = generation();
    let mut slot = slot.lock();
    if let Some((g, rt)) = slot.as_ref() {
        if *g == gen {
            return Ok(rt.clone());
        }
    }
    let rt = build()
        .map_err(|e| ClientError::new_err(format!("cannot start the Tokio runtime: {e}")))?;
    if let Some((_, stale)) = slot.replace((gen, rt.clone())) {
        // Its threads do not exist in a forked child: never join them.
        std::mem::forget(stale);
    }
    Ok(rt)
}

/// A handle to the worker runtime of the current generation (built on first use).
///
/// Its threads poll the crate's futures, which decode replies recursively: each gets the
/// deep stack's size (`safety/deep_stack.rs`; reserved, committed only as touched), or the largest
/// the system grants.
pub fn handle() -> PyResult<Handle> {
    let rt = current(&RUNTIME, || {
        Builder::new_multi_thread()
            .worker_threads(WORKERS.load(Ordering::Relaxed).max(1))
            .thread_name("aerospike-fluent")
            .thread_stack_size(deep_stack::thread_stack_size())
            .enable_all()
            .build()
            .map(Arc::new)
    })?;
    Ok(rt.handle().clone())
}

/// The caller-driven runtime of the current generation (built, with its ticker, on first use).
pub fn caller_driven() -> PyResult<Arc<Runtime>> {
    current(&CALLER_DRIVEN, || {
        let rt = Arc::new(Builder::new_current_thread().enable_all().build()?);
        let ticked = Arc::downgrade(&rt);
        thread::Builder::new()
            .name("aerospike-fluent-tick".into())
            .spawn(move || tick(&ticked))?;
        Ok(rt)
    })
}

fn tick(rt: &Weak<Runtime>) {
    loop {
        thread::sleep(TICK);
        let Some(rt) = rt.upgrade() else { return };
        rt.block_on(async { tokio::time::sleep(TICK_HOLD).await });
    }
}

/// Tokio worker count for the runtime (before its first use; default 1).
#[pyfunction]
pub fn set_worker_threads(n: usize) -> PyResult<()> {
    if n == 0 || n > 64 {
        return Err(invalid_argument("worker threads must be 1..=64"));
    }
    let slot = RUNTIME.lock();
    if slot.as_ref().is_some_and(|(g, _)| *g == generation()) {
        return Err(ClientError::new_err(
            "the runtime is already running; call set_worker_threads before the first connect",
        ));
    }
    WORKERS.store(n, Ordering::Relaxed);
    Ok(())
}

/// Called in the child after `os.fork()`: the next use builds a fresh runtime.
#[pyfunction]
fn _after_fork_in_child() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
    crate::exec::spin::after_fork();
}

/// Register the functions and the fork hook.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_worker_threads, m)?)?;
    let hook = wrap_pyfunction!(_after_fork_in_child, m)?;
    let kwargs = pyo3::types::PyDict::new(m.py());
    kwargs.set_item("after_in_child", &hook)?;
    // Windows has no fork (nor `os.register_at_fork`)
    if let Ok(register) = m.py().import("os")?.getattr("register_at_fork") {
        register.call((), Some(&kwargs))?;
    }
    Ok(())
}
