//! A query chunk (crate records, or records as the wire brought them) and its conversion to
//! Python `Record`s. Crate records are converted whole, bin names, namespace and set sharing
//! one Python string each per chunk; a wire record becomes a `Record` that keeps its bytes.

use aerospike::{Key, Record as AsRecord};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use crate::convert::models::ModelPlan;
use crate::convert::record::Record;
use crate::convert::token::Cursor;
use crate::convert::values::{from_value, Names};
use crate::convert::wire_chunk::unix_now;
use crate::convert::WireChunk;

/// The records of one chunk.
pub enum Batch {
    /// From the crate's query path.
    Crate(Vec<AsRecord>),
    /// Read from the wire (see `wire`).
    Wire(WireChunk),
}

impl Batch {
    pub fn len(&self) -> usize {
        match self {
            Batch::Crate(r) => r.len(),
            Batch::Wire(c) => c.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keep the first `n` records.
    pub fn truncate(&mut self, n: usize) {
        match self {
            Batch::Crate(r) => r.truncate(n),
            Batch::Wire(c) => c.truncate(n),
        }
    }

    /// Per record, its partition and cursor (`None` for a record without a key); the
    /// crate's records carry no bval.
    pub fn positions(&self) -> Vec<Option<(u16, Cursor)>> {
        match self {
            Batch::Crate(recs) => recs
                .iter()
                .map(|r| {
                    let k = r.key.as_ref()?;
                    let pid = u16::try_from(k.partition_id()).ok()?;
                    let digest = k.digest();
                    Some((pid, Cursor { digest, bval: None }))
                })
                .collect(),
            Batch::Wire(c) => c
                .records()
                .iter()
                .map(|r| {
                    let (digest, bval) = (r.digest, r.bval);
                    Some((r.pid, Cursor { digest, bval }))
                })
                .collect(),
        }
    }

    /// The records as instances of `plan`'s model, or `Record`s where they do not fit plainly.
    pub fn into_py_as<'py>(
        self,
        py: Python<'py>,
        plan: &ModelPlan,
    ) -> PyResult<Bound<'py, PyList>> {
        match self {
            Batch::Crate(_) => self.into_py(py),
            Batch::Wire(c) => {
                let now = unix_now();
                let out = PyList::empty(py);
                for r in c.into_owned() {
                    match plan.of_wire(py, &r, now)? {
                        Some(obj) => out.append(obj)?,
                        None => out.append(Record::from_wire(r, now))?,
                    }
                }
                Ok(out)
            }
        }
    }

    /// The records as a list of `Record`s.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
        match self {
            Batch::Crate(recs) => records(py, &recs),
            Batch::Wire(c) => {
                let now = unix_now();
                PyList::new(py, c.into_owned().map(|r| Record::from_wire(r, now)))
            }
        }
    }
}

/// The namespace and set strings of the last key converted.
#[derive(Default)]
struct Scope<'py> {
    last: Option<(Bound<'py, PyString>, Bound<'py, PyString>)>,
}

impl<'py> Scope<'py> {
    fn strings(
        &mut self,
        py: Python<'py>,
        ns: &str,
        set: &str,
    ) -> (Bound<'py, PyString>, Bound<'py, PyString>) {
        match &self.last {
            Some((n, s)) if n == ns && s == set => (n.clone(), s.clone()),
            _ => {
                let pair = (PyString::new(py, ns), PyString::new(py, set));
                self.last = Some(pair.clone());
                pair
            }
        }
    }

    fn key_tuple(&mut self, py: Python<'py>, key: &Key) -> PyResult<Bound<'py, PyTuple>> {
        let (ns, set) = self.strings(py, key.namespace(), key.set_name());
        let user_key = match key.user_key() {
            Some(v) => from_value(py, v)?.into_bound(py),
            None => py.None().into_bound(py),
        };
        let digest = PyBytes::new(py, &key.digest()).into_any();
        PyTuple::new(py, [ns.into_any(), set.into_any(), user_key, digest])
    }
}

/// Crate records as a list of `Record`s.
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
