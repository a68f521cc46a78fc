//! The key tuple an error carries: `(namespace, set, user key, digest)`.

use aerospike::{Key, Value};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};

/// The Python key tuple of `key` (a user key a server cannot store as one is `None`).
pub fn from_key<'py>(py: Python<'py>, key: &Key) -> PyResult<Bound<'py, PyTuple>> {
    let user_key = match key.user_key() {
        Some(Value::Int(i)) => i.into_pyobject(py)?.into_any(),
        Some(Value::String(s)) => PyString::new(py, s).into_any(),
        Some(Value::Blob(b) | Value::Unknown(_, b)) => PyBytes::new(py, b).into_any(),
        _ => py.None().into_bound(py),
    };
    PyTuple::new(
        py,
        [
            PyString::new(py, key.namespace()).into_any(),
            PyString::new(py, key.set_name()).into_any(),
            user_key,
            PyBytes::new(py, &key.digest()).into_any(),
        ],
    )
}
