//! Blocking calls: run a future on the calling thread with the GIL released, refusing to do so
//! inside a running event loop, honouring Ctrl-C on the main thread.

use std::future::Future;
use std::thread::ThreadId;
use std::time::Duration;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use tokio::runtime::{Handle, Runtime};

use crate::errors::ClientError;
use crate::exec::completion::{Failure, IntoPy, OpResult};
use crate::exec::exit::exiting;
use crate::exec::park::Tick;
use crate::exec::spin::Spin;

struct Probes {
    running_loop: Py<PyAny>,
    sniffio_local: Option<Py<PyAny>>,
    /// `sys.modules`: trio can only be running once imported.
    modules: Py<PyDict>,
    main_thread: Option<ThreadId>,
}

static PROBES: PyOnceLock<Probes> = PyOnceLock::new();

fn probes(py: Python<'_>) -> PyResult<&Probes> {
    PROBES.get_or_try_init(py, || {
        let threading = py.import("threading")?;
        let is_main = threading
            .call_method0("current_thread")?
            .is(&threading.call_method0("main_thread")?);
        Ok(Probes {
            running_loop: py.import("asyncio")?.getattr("_get_running_loop")?.unbind(),
            sniffio_local: py
                .import("sniffio")
                .and_then(|m| m.getattr("thread_local"))
                .ok()
                .map(Bound::unbind),
            modules: py.import("sys")?.getattr("modules")?.cast_into()?.unbind(),
            main_thread: is_main.then(|| std::thread::current().id()),
        })
    })
}

/// Record the main thread (call at import, which normally runs on it) and the event-loop
/// probes.
pub fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    probes(py)?;
    Ok(())
}

fn refuse_in_event_loop(py: Python<'_>, p: &Probes) -> PyResult<()> {
    if Handle::try_current().is_ok() {
        return Err(ClientError::new_err(
            "blocking call on a Tokio runtime thread; use the async API",
        ));
    }
    let asyncio = !p.running_loop.call0(py)?.is_none(py);
    let other = match &p.sniffio_local {
        Some(l) if p.modules.bind(py).contains(intern!(py, "trio"))? => {
            !l.bind(py).getattr("name")?.is_none()
        }
        _ => false,
    };
    if asyncio || other {
        return Err(ClientError::new_err(
            "blocking call from inside a running event loop; await the async API instead",
        ));
    }
    Ok(())
}

/// How often a blocking call on the main thread checks for signals (Ctrl-C).
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// Which runtime a blocking call runs on (see `exec/runtime.rs`).
#[derive(Clone, Copy)]
pub enum Driver<'a> {
    /// Polled on the calling thread; its I/O is driven by the worker runtime.
    Worker(&'a Handle),
    /// The calling thread runs the caller-driven runtime (and its I/O) itself, busy-polling
    /// first as the client's `Spin` allows.
    Caller(&'a Runtime, &'a Spin),
}

impl Driver<'_> {
    fn run<F, T>(self, fut: F, tick: Option<Tick<'_, Failure>>) -> OpResult<T>
    where
        F: Future<Output = OpResult<T>>,
    {
        match self {
            Driver::Worker(handle) => crate::exec::park::block_on(handle, fut, tick),
            Driver::Caller(rt, spin) => crate::exec::park::drive(rt, fut, tick, spin),
        }
    }
}

/// Run `fut` on the calling thread with the GIL released and convert its result; Ctrl-C is
/// honoured every 100 ms on the main thread.
pub fn block<F, T>(py: Python<'_>, driver: Driver<'_>, fut: F) -> PyResult<Py<PyAny>>
where
    F: Future<Output = OpResult<T>> + Send,
    T: IntoPy,
{
    let out = wait(py, driver, fut);
    crate::safety::guard::sync("result conversion", || {
        out.map_err(|f| f.into_pyerr(py))?.into_py(py)
    })
}

/// [`block`] without the conversion: the outcome as the future gave it.
pub fn wait<F, T>(py: Python<'_>, driver: Driver<'_>, fut: F) -> OpResult<T>
where
    F: Future<Output = OpResult<T>> + Send,
    T: Send,
{
    let p = probes(py).map_err(Failure::Py)?;
    refuse_in_event_loop(py, p).map_err(Failure::Py)?;
    let on_main = p.main_thread == Some(std::thread::current().id());
    let fut = crate::safety::guard::future(fut);
    if on_main {
        py.detach(|| {
            let mut check = || Python::attach(|py| py.check_signals()).map_err(Failure::Py);
            driver.run(fut, Some((SIGNAL_CHECK, &mut check)))
        })
    } else {
        py.detach(|| {
            let out = driver.run(fut, None);
            if exiting() {
                // Only daemon threads run after the atexit hooks started; re-taking the GIL
                // once finalization begins would kill this thread mid-unwind. Park instead:
                // the process is ending.
                loop {
                    std::thread::park();
                }
            }
            out
        })
    }
}
