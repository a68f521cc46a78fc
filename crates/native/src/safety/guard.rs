//! Panics never reach Python as `PanicException`: conversions and crate calls that might
//! panic run under `catch_unwind` and come back as `ClientError`.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};

use futures::FutureExt;
use pyo3::prelude::*;

use crate::errors::ClientError;
use crate::errors::{Failure, OpResult};

/// The text of a panic payload.
pub fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// The error for a panic in `what`.
pub fn panic_error(what: &str, payload: &(dyn Any + Send)) -> PyErr {
    ClientError::new_err(format!(
        "internal error in {what} (the aerospike crate panicked: {})",
        message(payload)
    ))
}

/// Run a conversion on the calling thread; a panic becomes `ClientError`.
pub fn sync<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(panic_error(what, &*p)))
}

/// Await `fut`; a panic while polling it becomes a `ClientError` failure.
pub async fn future<F, T>(fut: F) -> OpResult<T>
where
    F: Future<Output = OpResult<T>>,
{
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(p) => Err(Failure::Py(panic_error("an operation", &*p))),
    }
}
