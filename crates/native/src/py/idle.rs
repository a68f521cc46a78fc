//! A call that does no work: the floor under every async call (the benchmarks' `ours-floor`).

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::OpResult;
use crate::exec::completion::{self, Pending};
use crate::exec::runtime;

/// Complete with `None` on the worker runtime, the way an operation that sends and reads
/// nothing would: spawned and delivered like every worker call (`args` are ignored).
#[pyfunction]
#[pyo3(signature = (done, *args))]
pub fn idle(done: Py<PyAny>, args: &Bound<'_, PyTuple>) -> PyResult<Pending> {
    let _ = args;
    let handle = runtime::handle()?;
    Ok(completion::start(&handle, done, async { OpResult::Ok(()) }))
}
