//! Records straight into model instances (`aerospike_fluent/models`): a `ModelPlan`, made once
//! per model in Python, says which bin fills which field and how an instance is made; a record
//! that does not fit it plainly (a missing field, a value of another type) is left to Python,
//! which converts or explains it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::convert::particle;
use crate::convert::record::Record;
use crate::convert::record_wire::particle_to_py;
use crate::convert::wire_chunk::OwnedRecord;

/// How an instance is made from its field values `d`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Make {
    /// `object.__new__(cls)` with the values in its `__dict__` (plain dataclasses: no
    /// `__init__` run).
    Dict,
    /// `make(**d)`.
    Kwargs,
    /// `make(d)` (pydantic's `model_validate`, a TypedDict's `dict`).
    Call,
}

/// One field filled from a bin.
struct FieldPlan {
    bin: Vec<u8>,
    field: Py<PyString>,
    /// The particle type its values must have (`None`: any).
    particle: Option<u8>,
    required: bool,
}

/// How records become instances of one model.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct ModelPlan {
    make: Py<PyAny>,
    how: Make,
    /// `object.__new__`.
    object_new: Py<PyAny>,
    fields: Vec<FieldPlan>,
    /// Field -> default, for the fields a record may lack.
    defaults: Py<PyDict>,
    required: usize,
    key: Option<Py<PyString>>,
    generation: Option<Py<PyString>>,
    ttl: Option<Py<PyString>>,
}

/// A field's expected type name (`int`, `str`, `float`, `bytes`, `bool`, `any`) as a particle.
fn particle_of(kind: &str) -> PyResult<Option<u8>> {
    Ok(match kind {
        "int" => Some(particle::INTEGER),
        "float" => Some(particle::FLOAT),
        "str" => Some(particle::STRING),
        "bytes" => Some(particle::BLOB),
        "bool" => Some(particle::BOOL),
        "any" => None,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown field kind {other:?}"
            )))
        }
    })
}

#[pymethods]
impl ModelPlan {
    /// `fields`: `(bin, field, kind, required)`; `how`: `"dict"`, `"kwargs"` or `"call"`.
    #[new]
    #[pyo3(signature = (make, how, fields, defaults, key=None, generation=None, ttl=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        make: Py<PyAny>,
        how: &str,
        fields: Vec<(String, Py<PyString>, String, bool)>,
        defaults: Py<PyDict>,
        key: Option<Py<PyString>>,
        generation: Option<Py<PyString>>,
        ttl: Option<Py<PyString>>,
    ) -> PyResult<Self> {
        let how = match how {
            "dict" => Make::Dict,
            "kwargs" => Make::Kwargs,
            "call" => Make::Call,
            other => return Err(PyValueError::new_err(format!("unknown make {other:?}"))),
        };
        let fields = fields
            .into_iter()
            .map(|(bin, field, kind, required)| {
                Ok(FieldPlan {
                    bin: bin.into_bytes(),
                    field,
                    particle: particle_of(&kind)?,
                    required,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(ModelPlan {
            required: fields.iter().filter(|f| f.required).count(),
            object_new: py
                .get_type::<PyAny>()
                .getattr(pyo3::intern!(py, "__new__"))?
                .unbind(),
            make,
            how,
            fields,
            defaults,
            key,
            generation,
            ttl,
        })
    }
}

impl ModelPlan {
    /// Fill `d` with the field values of a record kept as its bytes; false when it does not
    /// fit plainly.
    fn fill_wire(
        &self,
        py: Python<'_>,
        w: &OwnedRecord,
        ttl: Option<u32>,
        d: &Bound<'_, PyDict>,
    ) -> PyResult<bool> {
        let mut required = 0;
        for (name, ptype, value) in w.bins() {
            let Some(f) = self.fields.iter().find(|f| f.bin == name) else {
                continue;
            };
            if ptype == particle::NIL {
                continue;
            }
            if f.particle.is_some_and(|p| p != ptype) {
                return Ok(false);
            }
            let Ok(Some(v)) = particle_to_py(py, ptype, value) else {
                return Ok(false); // Python reports it
            };
            d.set_item(f.field.bind(py), v)?;
            required += usize::from(f.required);
        }
        if required < self.required {
            return Ok(false);
        }
        if let Some(k) = &self.key {
            d.set_item(k.bind(py), crate::convert::record_wire::user_key(py, w)?)?;
        }
        if let Some(g) = &self.generation {
            d.set_item(g.bind(py), w.record().generation)?;
        }
        if let Some(t) = &self.ttl {
            d.set_item(t.bind(py), ttl)?;
        }
        Ok(true)
    }

    /// Fill `d` with the field values of `rec`; false when it does not fit plainly.
    fn fill(&self, py: Python<'_>, rec: &Record, d: &Bound<'_, PyDict>) -> PyResult<bool> {
        let mut required = 0;
        if let Some(w) = rec.wire() {
            if !self.fill_wire(py, w, rec.ttl_of(), d)? {
                return Ok(false);
            }
            if let Some(k) = &self.key {
                d.set_item(k.bind(py), rec.user_key_of(py)?)?; // a batch row's key is known
            }
            return Ok(true);
        } else {
            let bins = rec.bins_dict(py)?;
            for f in &self.fields {
                let name = std::str::from_utf8(&f.bin).unwrap_or_default();
                let Some(v) = bins.get_item(name)? else {
                    continue;
                };
                if f.particle.is_some() && !plain_fits(&v, f.particle) {
                    return Ok(false);
                }
                d.set_item(f.field.bind(py), v)?;
                required += usize::from(f.required);
            }
        }
        if required < self.required {
            return Ok(false);
        }
        if let Some(k) = &self.key {
            d.set_item(k.bind(py), rec.user_key_of(py)?)?;
        }
        if let Some(g) = &self.generation {
            d.set_item(g.bind(py), rec.generation_of())?;
        }
        if let Some(t) = &self.ttl {
            d.set_item(t.bind(py), rec.ttl_of())?;
        }
        Ok(true)
    }

    fn instance(&self, py: Python<'_>, rec: &Record) -> PyResult<Option<Py<PyAny>>> {
        self.make_with(py, |d| self.fill(py, rec, d))
    }

    /// An instance from a scanned record's bytes, or `None` when it does not fit plainly.
    pub fn of_wire(
        &self,
        py: Python<'_>,
        w: &OwnedRecord,
        now: u64,
    ) -> PyResult<Option<Py<PyAny>>> {
        let ttl = crate::convert::wire_chunk::ttl(w.record().expiration, now);
        self.make_with(py, |d| self.fill_wire(py, w, ttl, d))
    }

    /// An instance whose field values `fill` sets, or `None` when it returns false.
    fn make_with(
        &self,
        py: Python<'_>,
        fill: impl FnOnce(&Bound<'_, PyDict>) -> PyResult<bool>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let make = self.make.bind(py);
        if self.how == Make::Dict {
            // `object.__new__(cls)`, then the fields straight into the instance's own dict
            let obj = self.object_new.bind(py).call1((make,))?;
            let dict = obj.getattr(pyo3::intern!(py, "__dict__"))?;
            let d = dict.cast::<PyDict>()?;
            let defaults = self.defaults.bind(py);
            if !defaults.is_empty() {
                d.update(defaults.as_mapping())?;
            }
            return Ok(fill(d)?.then(|| obj.unbind()));
        }
        let d = PyDict::new(py);
        if !fill(&d)? {
            return Ok(None);
        }
        let obj = match self.how {
            Make::Kwargs => make.call((), Some(&d))?,
            _ => make.call1((d,))?,
        };
        Ok(Some(obj.unbind()))
    }
}

fn plain_fits(v: &Bound<'_, PyAny>, p: Option<u8>) -> bool {
    use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt};
    match p {
        Some(particle::INTEGER) => v.is_exact_instance_of::<PyInt>(),
        Some(particle::FLOAT) => v.is_exact_instance_of::<PyFloat>(),
        Some(particle::STRING) => v.is_exact_instance_of::<PyString>(),
        Some(particle::BLOB) => v.is_exact_instance_of::<PyBytes>(),
        Some(particle::BOOL) => v.is_exact_instance_of::<PyBool>(),
        _ => true,
    }
}

/// Instances of `plan`'s model from `records` (`Record`s, instances made already, or `None`
/// where a batch found nothing); `None` for each record that does not fit plainly, for Python
/// to handle.
#[pyfunction]
pub fn records_as(
    py: Python<'_>,
    records: &Bound<'_, PyList>,
    plan: &ModelPlan,
) -> PyResult<Py<PyList>> {
    let out = PyList::empty(py);
    for item in records.iter() {
        match item.cast::<Record>() {
            Ok(rec) => out.append(plan.instance(py, rec.get())?)?,
            Err(_) => out.append(item)?, // None, or an instance made already
        }
    }
    Ok(out.unbind())
}
