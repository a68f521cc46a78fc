//! A query chunk's records as Python `Record`s: bin names, namespace and set become one Python
//! string each per chunk instead of one per record.

use aerospike::{Key, Record as AsRecord};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use crate::record::Record;
use crate::values::{from_value, Names};

/// The namespace and set strings of the last key converted.
#[derive(Default)]
struct Scope<'py> {
    last: Option<(Bound<'py, PyString>, Bound<'py, PyString>)>,
}

impl<'py> Scope<'py> {
    fn key_tuple(&mut self, py: Python<'py>, key: &Key) -> PyResult<Bound<'py, PyTuple>> {
        let (ns, set) = match &self.last {
            Some((ns, set)) if ns == key.namespace() && set == key.set_name() => {
                (ns.clone(), set.clone())
            }
            _ => {
                let pair = (
                    PyString::new(py, key.namespace()),
                    PyString::new(py, key.set_name()),
                );
                self.last = Some(pair.clone());
                pair
            }
        };
        let user_key = match key.user_key() {
            Some(v) => from_value(py, v)?.into_bound(py),
            None => py.None().into_bound(py),
        };
        let digest = PyBytes::new(py, &key.digest()).into_any();
        PyTuple::new(py, [ns.into_any(), set.into_any(), user_key, digest])
    }
}

/// The records as a list of `Record`s.
pub fn records<'py>(py: Python<'py>, recs: &[AsRecord]) -> PyResult<Bound<'py, PyList>> {
    let mut names = Names::default();
    let mut scope = Scope::default();
    let mut out = Vec::with_capacity(recs.len());
    for r in recs {
        let key = r.key.as_ref().map(|k| scope.key_tuple(py, k)).transpose()?;
        out.push(Py::new(py, Record::convert(py, r, key, &mut names)?)?);
    }
    PyList::new(py, out)
}
