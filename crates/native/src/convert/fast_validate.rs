//! The fast path of the client-side value checks (`_validate`): `bins_ok` / `value_ok` say
//! "certainly valid" for the common shapes (exact built-in types, UTF-8 text, 64-bit ints, bin
//! names of 1 to 15 bytes, nesting within the limit); `key_tuples` builds the key tuples of many
//! plain user keys at once. Anything else is left to the Python
//! validator, which accepts it or raises the error the user sees; so these never raise.

use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};

use crate::convert::values::GeoJSON;

/// `_validate.MAX_DEPTH`: the deepest nesting of lists/maps the SDK accepts.
const MAX_DEPTH: usize = 64;
/// `_validate.BIN_MAX`: the longest bin name, in UTF-8 bytes.
const BIN_MAX: usize = 15;

/// Whether `values` is a non-empty `dict` of valid bin names to plain values.
#[pyfunction]
pub fn bins_ok(values: &Bound<'_, PyAny>) -> bool {
    let Ok(d) = values.cast_exact::<PyDict>() else {
        return false;
    };
    !d.is_empty() && d.iter().all(|(k, v)| bin_name_ok(&k) && plain(&v, 0))
}

/// Whether `value` is a plain value (scalars, and lists/maps of them) the server can store.
#[pyfunction]
pub fn value_ok(value: &Bound<'_, PyAny>) -> bool {
    plain(value, 0)
}

/// The key tuples `(namespace, set, key, None)` of `keys` (a list or tuple), when every key is
/// certainly valid (exact `str` encodable as UTF-8, exact 64-bit `int`, exact `bytes`);
/// `None` otherwise (the Python checks then build them or raise).
#[pyfunction]
pub fn key_tuples<'py>(
    namespace: &Bound<'py, PyAny>,
    set: &Bound<'py, PyAny>,
    keys: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    if !(keys.is_exact_instance_of::<PyList>() || keys.is_exact_instance_of::<PyTuple>()) {
        return Ok(None);
    }
    // nothing below runs Python code, so a list cannot change between the two passes
    if !keys.try_iter()?.all(|k| k.is_ok_and(|k| user_key_ok(&k))) {
        return Ok(None);
    }
    let py = keys.py();
    let none = py.None().into_bound(py);
    let made = keys
        .try_iter()?
        .map(|k| PyTuple::new(py, [namespace.clone(), set.clone(), k?, none.clone()]))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, made).map(Some)
}

fn user_key_ok(k: &Bound<'_, PyAny>) -> bool {
    match k.cast_exact::<PyString>() {
        Ok(s) => text_ok(s),
        Err(_) => int_ok(k) || k.cast_exact::<PyBytes>().is_ok(),
    }
}

fn bin_name_ok(k: &Bound<'_, PyAny>) -> bool {
    k.cast_exact::<PyString>()
        .ok()
        .and_then(|s| s.to_str().ok().map(str::len))
        .is_some_and(|n| (1..=BIN_MAX).contains(&n))
}

fn text_ok(s: &Bound<'_, PyString>) -> bool {
    s.to_str().is_ok()
}

fn int_ok(v: &Bound<'_, PyAny>) -> bool {
    v.cast_exact::<PyInt>()
        .is_ok_and(|i| i.extract::<i64>().is_ok())
}

fn plain(v: &Bound<'_, PyAny>, depth: usize) -> bool {
    if v.is_none()
        || v.cast_exact::<PyBool>().is_ok()
        || v.cast_exact::<PyFloat>().is_ok()
        || v.cast_exact::<PyBytes>().is_ok()
        || v.cast_exact::<PyByteArray>().is_ok()
        || v.cast::<GeoJSON>().is_ok()
    {
        return true;
    }
    if let Ok(s) = v.cast_exact::<PyString>() {
        return text_ok(s);
    }
    if v.cast_exact::<PyInt>().is_ok() {
        return int_ok(v);
    }
    if depth >= MAX_DEPTH {
        return false;
    }
    if let Ok(l) = v.cast_exact::<PyList>() {
        return l.iter().all(|item| plain(&item, depth + 1));
    }
    if let Ok(d) = v.cast_exact::<PyDict>() {
        return d
            .iter()
            .all(|(k, item)| user_key_ok(&k) && plain(&item, depth + 1));
    }
    false
}

/// Register the checks on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bins_ok, m)?)?;
    m.add_function(wrap_pyfunction!(value_ok, m)?)?;
    m.add_function(wrap_pyfunction!(key_tuples, m)?)?;
    Ok(())
}
