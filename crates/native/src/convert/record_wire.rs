//! A scanned record's key tuple and bins dict, built from the message bytes it keeps (see
//! `Record::from_wire`): only when first asked for, on the thread that asks.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyString, PyTuple};

use crate::convert::depth::TooDeep;
use crate::convert::name_cache;
use crate::convert::particle::{self, Bad};
use crate::convert::values::from_value;
use crate::convert::wire_chunk::OwnedRecord;
use crate::errors;

/// `(namespace, set, user key or None, digest)`.
pub fn key<'py>(py: Python<'py>, r: &OwnedRecord) -> PyResult<Bound<'py, PyTuple>> {
    let (ns, set) = {
        let mut names = name_cache::names();
        (names.get(py, r.namespace()), names.get(py, r.set_name()))
    };
    let user_key = user_key(py, r)?.unwrap_or_else(|| py.None().into_bound(py));
    let digest = PyBytes::new(py, &r.record().digest).into_any();
    PyTuple::new(py, [ns.into_any(), set.into_any(), user_key, digest])
}

/// The user key, when the server sent it.
pub fn user_key<'py>(py: Python<'py>, r: &OwnedRecord) -> PyResult<Option<Bound<'py, PyAny>>> {
    match r.user_key() {
        Some((t, b)) => {
            particle_to_py(py, t, b).map_err(|e| bad_value(py, e, "the user key", None))
        }
        None => Ok(None),
    }
}

/// The bins by name (`keep_nil`: nil ones too, as `None`); `key` names the record in the error
/// for a value that cannot be read.
pub fn bins<'py>(
    py: Python<'py>,
    r: &OwnedRecord,
    keep_nil: bool,
    key: impl FnOnce() -> Option<Bound<'py, PyTuple>>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let mut names = name_cache::names();
    for (name, ptype, value) in r.bins() {
        match particle_to_py(py, ptype, value) {
            Ok(Some(v)) => dict.set_item(names.get(py, name), v)?,
            Ok(None) if keep_nil => dict.set_item(names.get(py, name), py.None())?,
            Ok(None) => {}
            Err(b) => {
                drop(names);
                let name = String::from_utf8_lossy(name);
                return Err(bad_value(py, b, &name, key()));
            }
        }
    }
    Ok(dict)
}

/// A value from its particle bytes (`None` for nil, which a record does not hold).
pub(crate) fn particle_to_py<'py>(
    py: Python<'py>,
    ptype: u8,
    b: &[u8],
) -> Result<Option<Bound<'py, PyAny>>, Bad> {
    let v = match ptype {
        particle::NIL => return Ok(None),
        particle::INTEGER => PyInt::new(py, particle::int(b)?).into_any(),
        particle::FLOAT => PyFloat::new(py, particle::float(b)?).into_any(),
        // Python checks the UTF-8 as it decodes: no second pass here
        particle::STRING => PyString::from_bytes(py, b)
            .map_err(|_| Bad::Malformed("a string that is not UTF-8".into()))?
            .into_any(),
        particle::BLOB => PyBytes::new(py, b).into_any(),
        particle::BOOL => PyBool::new(py, b.first().is_some_and(|&x| x != 0))
            .to_owned()
            .into_any(),
        _ => {
            let value = particle::decode(ptype, b)?;
            from_value(py, &value)
                .map_err(|_| Bad::Malformed("a value Python cannot hold".into()))?
                .into_bound(py)
        }
    };
    Ok(Some(v))
}

/// The error for a value that could not be read: too deep, or malformed.
fn bad_value(py: Python<'_>, b: Bad, name: &str, key: Option<Bound<'_, PyTuple>>) -> PyErr {
    let key = key.map(Bound::into_any);
    match b {
        Bad::TooDeep => errors::too_deep(
            py,
            &TooDeep {
                bin: Some(name.to_owned()),
            },
            key,
        ),
        Bad::Malformed(m) => {
            let class = errors::class_for_code(py, -2);
            let message = format!("bin '{name}': {m}");
            match errors::error_instance(class, Some(-2), &message, false, key) {
                Ok(exc) => PyErr::from_value(exc),
                Err(e) => e,
            }
        }
    }
}
