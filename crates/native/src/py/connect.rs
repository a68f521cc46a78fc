//! `connect` and `connect_blocking`: the module functions that make a `Client`.

use pyo3::prelude::*;

use crate::exec::blocking::{self, Driver};
use crate::exec::completion::{self, Pending};
use crate::py::client::do_connect;
use crate::py::config::{prepare_connect, ClientConfig};

/// Connect (async); `done` receives the `Client`.
#[pyfunction]
pub fn connect(done: Py<PyAny>, config: &Bound<'_, ClientConfig>) -> PyResult<Pending> {
    let (policy, hosts, defaults, handle) = prepare_connect(config.get())?;
    let h = handle.clone();
    Ok(completion::start(
        &handle,
        done,
        do_connect(policy, hosts, defaults, h),
    ))
}

/// Connect, blocking.
#[pyfunction]
pub fn connect_blocking(py: Python<'_>, config: &Bound<'_, ClientConfig>) -> PyResult<Py<PyAny>> {
    let (policy, hosts, defaults, handle) = prepare_connect(config.get())?;
    let fut = do_connect(policy, hosts, defaults, handle.clone());
    blocking::block(py, Driver::Worker(&handle), fut)
}
