//! The module's own Tokio runtime: configurable worker count, rebuilt after `fork()`.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use tokio::runtime::{Builder, Handle, Runtime};

use crate::errors::{invalid_argument, ClientError};

static WORKERS: AtomicUsize = AtomicUsize::new(1);
/// Bumped in the child after `fork()`; runtimes and clients of older generations are stale.
static GENERATION: AtomicU64 = AtomicU64::new(0);
static RUNTIME: Mutex<Option<(u64, Arc<Runtime>)>> = Mutex::new(None);

/// The current fork generation.
pub fn generation() -> u64 {
    GENERATION.load(Ordering::Relaxed)
}

/// A handle to the runtime of the current generation (built on first use).
pub fn handle() -> PyResult<Handle> {
    let gen = generation();
    let mut slot = RUNTIME
        .lock()
        .map_err(|_| ClientError::new_err("runtime lock poisoned"))?;
    if let Some((g, rt)) = slot.as_ref() {
        if *g == gen {
            return Ok(rt.handle().clone());
        }
    }
    let rt = Builder::new_multi_thread()
        .worker_threads(WORKERS.load(Ordering::Relaxed).max(1))
        .thread_name("aerospike-fluent")
        .enable_all()
        .build()
        .map_err(|e| ClientError::new_err(format!("cannot start the Tokio runtime: {e}")))?;
    let handle = rt.handle().clone();
    if let Some((_, stale)) = slot.replace((gen, Arc::new(rt))) {
        // Its threads do not exist in a forked child: never join them.
        std::mem::forget(stale);
    }
    Ok(handle)
}

/// Tokio worker count for the runtime (before its first use; default 1).
#[pyfunction]
pub fn set_worker_threads(n: usize) -> PyResult<()> {
    if n == 0 || n > 64 {
        return Err(invalid_argument("worker threads must be 1..=64"));
    }
    let slot = RUNTIME
        .lock()
        .map_err(|_| ClientError::new_err("runtime lock poisoned"))?;
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
}

/// Register the functions and the fork hook.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_worker_threads, m)?)?;
    let hook = wrap_pyfunction!(_after_fork_in_child, m)?;
    let kwargs = pyo3::types::PyDict::new(m.py());
    kwargs.set_item("after_in_child", &hook)?;
    m.py()
        .import("os")?
        .getattr("register_at_fork")?
        .call((), Some(&kwargs))?;
    Ok(())
}
