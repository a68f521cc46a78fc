//! A query chunk (crate records, or records as the wire brought them) and its conversion to
//! Python `Record`s: bin names, namespace and set become one Python string each per chunk
//! instead of one per record.

use aerospike::{Key, Record as AsRecord};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::depth::TooDeep;
use crate::errors;
use crate::record::Record;
use crate::token::Cursor;
use crate::values::{from_value, Names};
use crate::wire::chunk::{ttl, unix_now, WireRecord};
use crate::wire::particle::{self, Bad};
use crate::wire::WireChunk;

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

    /// The records as a list of `Record`s.
    pub fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        match self {
            Batch::Crate(recs) => records(py, recs),
            Batch::Wire(c) => wire_records(py, c),
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

/// Wire records as a list of `Record`s, each value converted straight from its bytes.
fn wire_records<'py>(py: Python<'py>, chunk: &WireChunk) -> PyResult<Bound<'py, PyList>> {
    let mut names = Names::default();
    let mut scope = Scope::default();
    let now = unix_now();
    let mut out = Vec::with_capacity(chunk.len());
    for r in chunk.records() {
        let key = wire_key(py, chunk, r, &mut scope)?;
        let bins = PyDict::new(py);
        for (name, ptype, value) in chunk.bins(r) {
            let name = String::from_utf8_lossy(name);
            let v = match particle_to_py(py, ptype, value) {
                Ok(Some(v)) => v,
                Ok(None) => continue,
                Err(b) => return Err(bad_value(py, b, &name, &key)),
            };
            bins.set_item(names.get(py, &name), v)?;
        }
        let rec = Record::from_parts(Some(key), bins, r.generation, ttl(r.expiration, now));
        out.push(Py::new(py, rec)?);
    }
    PyList::new(py, out)
}

fn wire_key<'py>(
    py: Python<'py>,
    chunk: &WireChunk,
    r: &WireRecord,
    scope: &mut Scope<'py>,
) -> PyResult<Bound<'py, PyTuple>> {
    let text = |b| String::from_utf8_lossy(b);
    let (ns, set) = scope.strings(py, &text(chunk.namespace(r)), &text(chunk.set_name(r)));
    let user_key = match chunk.user_key(r) {
        Some((t, b)) => particle_to_py(py, t, b)
            .map_err(|e| bad_value(py, e, "the user key", &PyTuple::empty(py)))?
            .unwrap_or_else(|| py.None().into_bound(py)),
        None => py.None().into_bound(py),
    };
    let digest = PyBytes::new(py, &r.digest).into_any();
    PyTuple::new(py, [ns.into_any(), set.into_any(), user_key, digest])
}

/// A value from its particle bytes (`None` for nil, which a record does not hold).
fn particle_to_py<'py>(
    py: Python<'py>,
    ptype: u8,
    b: &[u8],
) -> Result<Option<Bound<'py, PyAny>>, Bad> {
    let v = match ptype {
        particle::NIL => return Ok(None),
        particle::INTEGER => PyInt::new(py, particle::int(b)?).into_any(),
        particle::FLOAT => PyFloat::new(py, particle::float(b)?).into_any(),
        particle::STRING => PyString::new(py, particle::text(b)?).into_any(),
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
fn bad_value(py: Python<'_>, b: Bad, name: &str, key: &Bound<'_, PyTuple>) -> PyErr {
    let key = Some(key.clone().into_any()).filter(|k| !k.is_empty().unwrap_or(true));
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
