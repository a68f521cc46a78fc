//! The record handed to Python: `Record`.

use aerospike::Record as AsRecord;
use pyo3::exceptions::PyKeyError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyIterator, PyList, PyTuple};

use crate::convert::record_wire;
use crate::convert::values::{from_value, key_tuple, Names};
use crate::convert::wire_chunk::{ttl, OwnedRecord};
use crate::ops::Answers;

/// A record as read: bins, key, generation and TTL (seconds; `None` = never expires).
///
/// A scanned record keeps a copy of its message bytes (`wire`) and builds its key tuple and bins dict
/// from them when first asked for (`convert/record_wire.rs`); other records have both from the start.
#[pyclass(frozen, freelist = 1024, module = "aerospike_fluent._native")]
pub struct Record {
    results: Option<Py<PyList>>,
    key: PyOnceLock<Option<Py<PyTuple>>>,
    bins: PyOnceLock<Py<PyDict>>,
    wire: Option<OwnedRecord>,
    /// A write's reply: its bins are the ops it ran, each nil (kept, as the crate keeps them).
    written: bool,
    generation: u32,
    ttl: Option<u32>,
}

/// A cell holding `v` already.
fn ready<T>(py: Python<'_>, v: T) -> PyOnceLock<T> {
    let cell = PyOnceLock::new();
    let _ = cell.set(py, v);
    cell
}

/// The value of `cell`, built by `f` if it has none. (`PyOnceLock::get_or_try_init` would
/// release the GIL around every first build.)
fn built<'a, T>(
    py: Python<'_>,
    cell: &'a PyOnceLock<T>,
    f: impl FnOnce() -> PyResult<T>,
) -> PyResult<&'a T> {
    if let Some(v) = cell.get(py) {
        return Ok(v);
    }
    let v = f()?;
    // Building may have run Python code that built it too: the first one set is kept.
    let _ = cell.set(py, v);
    Ok(cell.get(py).expect("the cell was just set"))
}

impl Record {
    /// A scanned record, kept as its bytes until its key or bins are asked for.
    pub fn from_wire(r: OwnedRecord, now: u64) -> Self {
        let meta = r.record();
        Record {
            results: None,
            key: PyOnceLock::new(),
            bins: PyOnceLock::new(),
            generation: meta.generation,
            ttl: ttl(meta.expiration, now),
            wire: Some(r),
            written: false,
        }
    }

    /// A batch read's record, kept as its bytes; its key tuple is the row's.
    pub fn from_wire_keyed(py: Python<'_>, r: OwnedRecord, now: u64, key: Py<PyTuple>) -> Self {
        Record {
            key: ready(py, Some(key)),
            ..Record::from_wire(r, now)
        }
    }

    /// A batch write's reply (its bins the ops it ran, each nil); its key tuple is the row's.
    pub fn written_keyed(py: Python<'_>, r: OwnedRecord, now: u64, key: Py<PyTuple>) -> Self {
        Record {
            written: true,
            ..Record::from_wire_keyed(py, r, now, key)
        }
    }

    /// A read record's bytes, when it was kept as them (not a write's reply).
    pub fn wire(&self) -> Option<&OwnedRecord> {
        self.wire.as_ref().filter(|_| !self.written)
    }

    /// The user key, when known (`user_key` in Python).
    pub fn user_key_of<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.user_key(py)
    }

    pub fn generation_of(&self) -> u32 {
        self.generation
    }

    pub fn ttl_of(&self) -> Option<u32> {
        self.ttl
    }

    /// The key tuple, built on first use for a scanned record.
    fn key_tuple<'py>(&self, py: Python<'py>) -> PyResult<Option<&Bound<'py, PyTuple>>> {
        let key = built(py, &self.key, || match &self.wire {
            Some(w) => record_wire::key(py, w).map(|k| Some(k.unbind())),
            None => Ok(None),
        })?;
        Ok(key.as_ref().map(|k| k.bind(py)))
    }

    /// The bins dict, built on first use for a scanned record.
    pub fn bins_dict<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyDict>> {
        let bins = built(py, &self.bins, || match &self.wire {
            Some(w) => {
                let key = || self.key_tuple(py).ok().flatten().cloned();
                record_wire::bins(py, w, self.written, key).map(Bound::unbind)
            }
            None => Ok(PyDict::new(py).unbind()),
        })?;
        Ok(bins.bind(py))
    }

    /// Convert a crate record; `key` overrides the (usually absent) key in the reply, and
    /// `orig`, the key tuple it was asked with, is reused for it where possible.
    pub fn from_native(
        py: Python<'_>,
        rec: &AsRecord,
        key: Option<&aerospike::Key>,
        orig: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let key = match key.or(rec.key.as_ref()) {
            Some(k) => Some(key_tuple(py, orig, k)?),
            None => None,
        };
        // one record: its bin names are distinct, a `Names` cache would only add copies
        let bins = PyDict::new(py);
        for (name, v) in &rec.bins {
            bins.set_item(name, from_value(py, v)?)?;
        }
        Ok(Record::new(rec, key, bins))
    }

    /// Convert a crate record with its key tuple ready; bin names come from `names`.
    pub fn convert<'py>(
        py: Python<'py>,
        rec: &AsRecord,
        key: Option<Bound<'py, PyTuple>>,
        names: &mut Names<'py>,
    ) -> PyResult<Self> {
        let bins = PyDict::new(py);
        for (name, v) in &rec.bins {
            bins.set_item(names.get(py, name), from_value(py, v)?)?;
        }
        Ok(Record::new(rec, key, bins))
    }

    /// A record from its parts, converted already.
    fn new(rec: &AsRecord, key: Option<Bound<'_, PyTuple>>, bins: Bound<'_, PyDict>) -> Self {
        let ttl = rec
            .time_to_live()
            .map(|d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX));
        let py = bins.py();
        Record {
            results: None,
            key: ready(py, key.map(Bound::unbind)),
            bins: ready(py, bins.unbind()),
            wire: None,
            written: false,
            generation: rec.generation,
            ttl,
        }
    }

    /// A chain's record (an operate, or a batch row of one), see `from_answers`.
    pub fn from_operate(
        py: Python<'_>,
        rec: &AsRecord,
        (key, orig): (&aerospike::Key, &Bound<'_, PyAny>),
        answers: &Answers,
    ) -> PyResult<Self> {
        let key = key_tuple(py, Some(orig), key)?;
        Record::from_answers(py, rec, key, answers, &mut Names::default())
    }

    /// A chain's record: `bins` holds, per bin, the last answer of an op that reports one, and
    /// `results` one entry per op in request order (`None` for ops that report nothing, such as
    /// writes and `touch`, which a server leaves out of its answer). With a whole-record read
    /// (`read_all`, `read_header`) the bins are the ones the server named.
    pub fn from_answers<'py>(
        py: Python<'py>,
        rec: &AsRecord,
        key: Bound<'py, PyTuple>,
        answers: &Answers,
        names: &mut Names<'py>,
    ) -> PyResult<Self> {
        let Some(results) = rec.results.as_ref() else {
            return Record::convert(py, rec, Some(key), names);
        };
        let list = results_list(py, results)?;
        let ops = answers.reports.len();
        if !answers.touches.is_empty() && list.len() + answers.touches.len() == ops {
            for &i in &answers.touches {
                list.insert(i, py.None())?;
            }
        }
        if answers.whole || list.len() != ops {
            let mut out = Record::convert(py, rec, Some(key), names)?;
            out.results = Some(list.unbind());
            return Ok(out);
        }
        let bins = PyDict::new(py);
        for (name, v) in answers.reports.iter().zip(list.iter()) {
            if let Some(name) = name {
                bins.set_item(names.get(py, name), v)?;
            }
        }
        let mut out = Record::new(rec, Some(key), bins);
        out.results = Some(list.unbind());
        Ok(out)
    }
}

fn results_list<'py>(
    py: Python<'py>,
    results: &[aerospike::Value],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for v in results {
        list.append(from_value(py, v)?)?;
    }
    Ok(list)
}

#[pymethods]
impl Record {
    /// Operate only: every op's result in request order (`None` for other reads).
    #[getter]
    fn results(&self, py: Python<'_>) -> Option<Py<PyList>> {
        self.results.as_ref().map(|r| r.clone_ref(py))
    }
    /// The record's key tuple, when known.
    #[getter]
    fn key<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        Ok(self.key_tuple(py)?.cloned())
    }
    /// Bins by name.
    #[getter]
    fn bins<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.bins_dict(py).cloned()
    }
    /// Generation (write count).
    #[getter]
    fn generation(&self) -> u32 {
        self.generation
    }
    /// Seconds to live; `None` = never expires.
    #[getter]
    fn ttl(&self) -> Option<u32> {
        self.ttl
    }
    fn __getitem__<'py>(&self, py: Python<'py>, bin_name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.bins_dict(py)?
            .get_item(bin_name)?
            .ok_or_else(|| PyKeyError::new_err(bin_name.to_owned()))
    }
    #[pyo3(signature = (bin_name, default = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        bin_name: &str,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self.bins_dict(py)?.get_item(bin_name)? {
            Some(v) => v,
            None => default.unwrap_or_else(|| py.None().into_bound(py)),
        })
    }
    fn __contains__(&self, py: Python<'_>, bin_name: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.bins_dict(py)?.contains(bin_name)
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Record>() else {
            return Ok(false);
        };
        let o = o.get();
        let keys_eq = match (self.key_tuple(py)?, o.key_tuple(py)?) {
            (Some(a), Some(b)) => a.eq(b)?,
            (None, None) => true,
            _ => false,
        };
        Ok(keys_eq
            && self.generation == o.generation
            && self.ttl == o.ttl
            && self.bins_dict(py)?.eq(o.bins_dict(py)?)?)
    }
    /// The user key (`None` when only the digest is known).
    #[getter]
    fn user_key<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let (None, Some(w)) = (self.key.get(py), &self.wire) {
            return record_wire::user_key(py, w);
        }
        let Some(k) = self.key_tuple(py)?.and_then(|k| k.get_item(2).ok()) else {
            return Ok(None);
        };
        Ok((!k.is_none()).then_some(k))
    }
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.bins_dict(py)?.len())
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        self.bins_dict(py)?.as_any().try_iter()
    }
    /// The bin names (a view of the bins).
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.bins_dict(py)?.call_method0(intern!(py, "keys"))
    }
    /// The bin values (a view of the bins).
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.bins_dict(py)?.call_method0(intern!(py, "values"))
    }
    /// `(name, value)` pairs (a view of the bins).
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.bins_dict(py)?.call_method0(intern!(py, "items"))
    }
    /// Rebuild a record from what `__reduce__` gave (pickling, `copy`).
    #[staticmethod]
    #[pyo3(signature = (bins, key, generation, ttl, results))]
    fn _restore(
        bins: Bound<'_, PyDict>,
        key: Option<Bound<'_, PyTuple>>,
        generation: u32,
        ttl: Option<u32>,
        results: Option<Bound<'_, PyList>>,
    ) -> Record {
        let py = bins.py();
        Record {
            results: results.map(Bound::unbind),
            key: ready(py, key.map(Bound::unbind)),
            bins: ready(py, bins.unbind()),
            wire: None,
            written: false,
            generation,
            ttl,
        }
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let restore = slf.get_type().getattr(intern!(py, "_restore"))?;
        let state = (
            this.bins_dict(py)?.clone(),
            this.key_tuple(py)?.cloned(),
            this.generation,
            this.ttl,
            this.results.as_ref().map(|r| r.clone_ref(py)),
        );
        PyTuple::new(py, [restore, state.into_pyobject(py)?.into_any()])
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Record(key={}, bins={}, generation={}, ttl={})",
            match self.key_tuple(py)? {
                Some(k) => k.repr()?.to_string(),
                None => "None".into(),
            },
            self.bins_dict(py)?.repr()?,
            self.generation,
            self.ttl
                .map_or_else(|| "None".to_owned(), |t| t.to_string())
        ))
    }
}
