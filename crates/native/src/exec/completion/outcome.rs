//! What an operation ends with, and delivering it to Python: a callback called under the GIL,
//! or a future settled on its event loop's thread.

use pyo3::intern;
use pyo3::prelude::*;

use crate::errors::OpResult;

/// A native result that becomes a Python object under the GIL.
pub trait IntoPy: Send + 'static {
    /// Convert.
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl IntoPy for () {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py.None())
    }
}

impl IntoPy for bool {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(pyo3::types::PyBool::new(py, self)
            .to_owned()
            .into_any()
            .unbind())
    }
}

pub(super) fn deliver<T: IntoPy>(py: Python<'_>, done: &Py<PyAny>, out: OpResult<T>) {
    let args = match crate::safety::guard::sync("result conversion", || {
        out.map_err(|f| f.into_pyerr(py))
            .and_then(|v| v.into_py(py))
    }) {
        Ok(v) => (v, py.None()),
        Err(e) => (py.None(), e.into_value(py).into_any()),
    };
    if let Err(e) = done.call1(py, args) {
        e.write_unraisable(py, Some(done.bind(py)));
    }
}

pub(super) type Outcome = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// A finished operation (or part of one): the future to settle, if any, and how to convert
/// its outcome.
pub struct Ready {
    pub(super) fut: Option<Py<PyAny>>,
    pub(super) out: Outcome,
}

impl Ready {
    pub(super) fn new<T: IntoPy>(fut: Py<PyAny>, out: OpResult<T>) -> Self {
        Ready {
            fut: Some(fut),
            out: Box::new(move |py| {
                out.map_err(|f| f.into_pyerr(py))
                    .and_then(|v| v.into_py(py))
            }),
        }
    }
}

/// Settle each future with its outcome, on the loop thread (a cancelled one is skipped).
pub(super) fn settle(py: Python<'_>, batch: Vec<Ready>) {
    for r in batch {
        let Some(fut) = r.fut else {
            // a part: its conversion keeps its own error for the final outcome
            let _ = crate::safety::guard::sync("result conversion", || (r.out)(py));
            continue;
        };
        let fut = fut.bind(py);
        // No `done()` probe per future: settling a cancelled future fails, and only then
        // is it asked (cancellation is rare; one Python call per completion saved).
        let res = match crate::safety::guard::sync("result conversion", || (r.out)(py)) {
            Ok(v) => fut.call_method1(intern!(py, "set_result"), (v,)),
            Err(e) => fut.call_method1(intern!(py, "set_exception"), (e.into_value(py),)),
        };
        if let Err(e) = res {
            let done = fut
                .call_method0(intern!(py, "done"))
                .and_then(|d| d.is_truthy())
                .unwrap_or(false);
            if !done {
                e.write_unraisable(py, Some(fut));
            }
        }
    }
}

/// Settle what a pass over the loop's runtime finished (a panic in it is reported, not
/// raised: the loop called us).
pub(super) fn settle_from(py: Python<'_>, pass: impl FnOnce() -> Vec<Ready>) {
    match crate::safety::guard::sync("the event loop's runtime", || Ok(pass())) {
        Ok(done) => settle(py, done),
        Err(e) => e.write_unraisable(py, None),
    }
}
