//! Interpreter exit: native threads must not enter Python once finalization has started.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// Set by the `atexit` hook: the interpreter is about to finalize.
static EXITING: AtomicBool = AtomicBool::new(false);
/// Native (non-Python) threads currently inside `Python::attach`.
static IN_PYTHON: AtomicUsize = AtomicUsize::new(0);
/// How long the `atexit` hook waits for native threads to leave Python.
const EXIT_DRAIN: Duration = Duration::from_secs(5);

/// Run `f` under the GIL from a native thread, unless the interpreter is exiting.
///
/// A native thread that asks for the GIL after finalization started is terminated by CPython
/// with `pthread_exit`, and the unwinding drop of the GIL guard aborts the process
/// ("PyGILState_Release: thread state must be current"). So: announce the attach first, then
/// check the flag; the `atexit` hook sets the flag, then waits (GIL released) until no native
/// thread is inside Python. Work skipped here has nobody left to receive it.
pub fn with_python<R>(f: impl FnOnce(Python<'_>) -> R) -> Option<R> {
    IN_PYTHON.fetch_add(1, Ordering::SeqCst);
    let out = if EXITING.load(Ordering::SeqCst) {
        None
    } else {
        Some(Python::attach(f))
    };
    IN_PYTHON.fetch_sub(1, Ordering::SeqCst);
    out
}

/// Whether the `atexit` hook has run.
pub fn exiting() -> bool {
    EXITING.load(Ordering::SeqCst)
}

/// `atexit` hook: stop native threads from entering Python and wait (GIL released) for the
/// ones inside it to leave, so that none is there when the interpreter finalizes.
#[pyfunction]
fn _before_exit(py: Python<'_>) {
    EXITING.store(true, Ordering::SeqCst);
    py.detach(|| {
        let deadline = Instant::now() + EXIT_DRAIN;
        while IN_PYTHON.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// Register the `atexit` hook.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let hook = wrap_pyfunction!(_before_exit, m)?;
    m.py().import("atexit")?.call_method1("register", (hook,))?;
    Ok(())
}
