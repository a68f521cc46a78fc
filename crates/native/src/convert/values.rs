//! Python ⇄ `aerospike::Value` conversion, keys, and the GeoJSON / CDT marker types.

use aerospike::{FloatValue, Key, Value};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};

use crate::convert::bytes_keys::{self, BytesKeys};
use crate::convert::depth::{TooDeep, MAX_READ_DEPTH};
pub use crate::errors::from_key;
use crate::errors::invalid_argument;

/// A GeoJSON value (particle type GEOJSON) as opposed to a plain string.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct GeoJSON {
    value: String,
}

#[pymethods]
impl GeoJSON {
    #[new]
    fn new(geojson: String) -> Self {
        GeoJSON { value: geojson }
    }

    /// The GeoJSON text.
    #[getter]
    fn value(&self) -> &str {
        &self.value
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<GeoJSON>()
            .is_ok_and(|o| o.get().value == self.value)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.value.hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        format!("GeoJSON({:?})", self.value)
    }
}

/// The `INFINITY` / `WILDCARD` CDT markers.
#[pyclass(frozen, module = "aerospike_fluent._native", name = "_CdtMarker")]
pub struct CdtMarker {
    wildcard: bool,
}

#[pymethods]
impl CdtMarker {
    fn __repr__(&self) -> &'static str {
        if self.wildcard {
            "WILDCARD"
        } else {
            "INFINITY"
        }
    }
}

/// Register the value types and markers on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GeoJSON>()?;
    m.add_class::<CdtMarker>()?;
    m.add("INFINITY", CdtMarker { wildcard: false })?;
    m.add("WILDCARD", CdtMarker { wildcard: true })?;
    Ok(())
}

/// What a value is converted for: a bin (markers refused) or a CDT argument (markers allowed).
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// Bin (or argument) name used in error messages.
    pub bin: &'a str,
    /// Whether `INFINITY` / `WILDCARD` are accepted.
    pub cdt: bool,
    /// Lists/maps entered so far.
    depth: usize,
}

impl<'a> Ctx<'a> {
    /// A bin value.
    pub fn bin(bin: &'a str) -> Self {
        Ctx {
            bin,
            cdt: false,
            depth: 0,
        }
    }
    /// A CDT argument (markers allowed).
    pub fn cdt(bin: &'a str) -> Self {
        Ctx {
            bin,
            cdt: true,
            depth: 0,
        }
    }

    /// The context of a list's or map's items; refuses nesting past [`NESTING_MAX`] (a value
    /// that contains itself would otherwise recurse until the stack overflows).
    fn nested(self) -> PyResult<Self> {
        if self.depth >= NESTING_MAX {
            return Err(invalid_argument(format!(
                "bin {:?}: lists/maps are nested more than {NESTING_MAX} levels deep",
                self.bin
            )));
        }
        Ok(Ctx {
            depth: self.depth + 1,
            ..self
        })
    }
}

/// Deepest nesting converted here: above the SDK's own limit (`_validate.MAX_DEPTH`, checked
/// first, with its own messages), so it only guards direct callers of this module.
const NESTING_MAX: usize = 256;

fn type_error(ctx: Ctx<'_>, obj: &Bound<'_, PyAny>) -> PyErr {
    let tname = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!(
        "bin {:?}: unsupported value type {tname:?}",
        ctx.bin
    ))
}

/// Convert a Python value to an `aerospike::Value`.
pub fn to_value(obj: &Bound<'_, PyAny>, ctx: Ctx<'_>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Nil);
    }
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if let Ok(b) = obj.cast_exact::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return i.extract::<i64>().map(Value::Int).map_err(|_| {
            PyOverflowError::new_err(format!(
                "bin {:?}: integer {} does not fit in 64 bits",
                ctx.bin, i
            ))
        });
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(FloatValue::from(f.value())));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Value::Blob(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Value::Blob(b.to_vec()));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        let inner = ctx.nested()?;
        let mut out = Vec::with_capacity(l.len());
        for item in l.iter() {
            out.push(to_value(&item, inner)?);
        }
        return Ok(Value::List(out));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let inner = ctx.nested()?;
        // in the dict's order: a map is written (and stored) as the caller built it
        let mut out = aerospike::IndexMap::with_capacity(d.len());
        for (k, v) in d.iter() {
            out.insert(map_key(&k, inner)?, to_value(&v, inner)?);
        }
        return Ok(Value::OrderedMap(out));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if let Ok(g) = obj.cast::<GeoJSON>() {
        return Ok(Value::GeoJson(g.get().value.clone()));
    }
    if ctx.cdt {
        if let Ok(m) = obj.cast::<CdtMarker>() {
            return Ok(if m.get().wildcard {
                Value::Wildcard
            } else {
                Value::Infinity
            });
        }
    }
    Err(type_error(ctx, obj))
}

fn map_key(obj: &Bound<'_, PyAny>, ctx: Ctx<'_>) -> PyResult<Value> {
    if obj.is_instance_of::<PyString>()
        || (obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>())
        || obj.is_instance_of::<PyBytes>()
    {
        return to_value(obj, ctx);
    }
    let tname = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    Err(PyTypeError::new_err(format!(
        "bin {:?}: unsupported map key type {tname:?} (str, int or bytes)",
        ctx.bin
    )))
}

/// Convert an `aerospike::Value` to Python (lists/maps at most [`MAX_READ_DEPTH`] deep, else
/// `DeserializeError`; `convert/depth.rs` has already refused deeper values read from the server).
pub fn from_value(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    convert(py, v, 0)
}

fn convert(py: Python<'_>, v: &Value, depth: usize) -> PyResult<Py<PyAny>> {
    let inner = depth + 1;
    if inner > MAX_READ_DEPTH && crate::convert::depth::deeper_than(v, 0) {
        return Err(crate::errors::too_deep(py, &TooDeep { bin: None }, None));
    }
    Ok(match v {
        Value::Nil => py.None(),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Value::Float(f) => f64::from(f).into_pyobject(py)?.into_any().unbind(),
        Value::String(s) => PyString::new(py, s).into_any().unbind(),
        Value::Blob(b) | Value::Hll(b) | Value::Unknown(_, b) => {
            PyBytes::new(py, b).into_any().unbind()
        }
        Value::List(l) | Value::MultiResult(l) => {
            let out = PyList::empty(py);
            for item in l {
                out.append(convert(py, item, inner)?)?;
            }
            out.into_any().unbind()
        }
        Value::HashMap(m) => dict_from(py, m.iter(), inner)?,
        Value::OrderedMap(m) => dict_from(py, m.iter(), inner)?,
        Value::SortedMap(m) => dict_from(py, m.iter(), inner)?,
        Value::KeyValueList(kv) => {
            let out = PyList::empty(py);
            for (k, v) in kv {
                let pair = [convert(py, k, inner)?, convert(py, v, inner)?];
                out.append(PyTuple::new(py, pair)?)?;
            }
            out.into_any().unbind()
        }
        Value::GeoJson(s) => Py::new(py, GeoJSON { value: s.clone() })?.into_any(),
        Value::Infinity => Py::new(py, CdtMarker { wildcard: false })?.into_any(),
        Value::Wildcard => Py::new(py, CdtMarker { wildcard: true })?.into_any(),
        other => {
            return Err(PyTypeError::new_err(format!(
                "unsupported value from the server: {other:?}"
            )))
        }
    })
}

fn dict_from<'a>(
    py: Python<'_>,
    it: impl Iterator<Item = (&'a Value, &'a Value)>,
    depth: usize,
) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    for (k, v) in it {
        d.set_item(convert(py, k, depth)?, convert(py, v, depth)?)?;
    }
    Ok(d.into_any().unbind())
}

/// Convert a key tuple `(namespace, set_name, user_key, digest)`, a `bytes` user key hashed as
/// `bytes` says.
pub fn to_key(obj: &Bound<'_, PyAny>, bytes: BytesKeys) -> PyResult<Key> {
    to_key_parts_in(obj, &mut KeyScope::new(bytes))?
        .into_key()
        .map_err(|e| invalid_argument(e.to_string()))
}

/// A checked key whose digest (RIPEMD-160, the bulk of a key's cost) is computed by
/// [`KeyParts::into_key`], which can run off the caller's thread.
pub enum KeyParts {
    /// The caller gave the digest.
    Ready(Key),
    /// Namespace, set and user key, digest still to compute.
    Hash(String, String, Value),
}

impl KeyParts {
    pub fn namespace(&self) -> &str {
        match self {
            KeyParts::Ready(k) => k.namespace(),
            KeyParts::Hash(ns, ..) => ns,
        }
    }

    /// The crate key (computes the digest when needed).
    pub fn into_key(self) -> aerospike::Result<Key> {
        match self {
            KeyParts::Ready(k) => Ok(k),
            KeyParts::Hash(ns, set, user) => bytes_keys::key(ns, set, user),
        }
    }
}

/// The namespace and set of the last key converted, reused while keys share the objects, and
/// how `bytes` user keys are hashed.
#[derive(Default)]
pub struct KeyScope {
    ns: Option<(Py<PyAny>, String)>,
    set: Option<(Py<PyAny>, String)>,
    bytes: BytesKeys,
}

impl KeyScope {
    /// A scope whose `bytes` user keys are hashed as `bytes` says.
    pub fn new(bytes: BytesKeys) -> Self {
        KeyScope {
            bytes,
            ..KeyScope::default()
        }
    }
}

/// `obj` as a `String`, copied from `slot` when `slot` holds that same object.
fn scoped_text(
    slot: &mut Option<(Py<PyAny>, String)>,
    obj: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<String> {
    if let Some((seen, text)) = slot {
        if seen.is(obj) {
            return Ok(text.clone());
        }
    }
    let text: String = obj
        .extract()
        .map_err(|_| invalid_argument(format!("key {what} must be a str")))?;
    *slot = Some((obj.clone().unbind(), text.clone()));
    Ok(text)
}

/// Check a key tuple `(namespace, set, user_key, digest)` without hashing it; `scope`
/// remembers the last namespace and set (one of many keys).
pub fn to_key_parts_in(obj: &Bound<'_, PyAny>, scope: &mut KeyScope) -> PyResult<KeyParts> {
    let t = obj
        .cast::<PyTuple>()
        .map_err(|_| invalid_argument("key must be a tuple (namespace, set, user_key, digest)"))?;
    if t.len() != 4 {
        return Err(invalid_argument(
            "key must be a 4-tuple (namespace, set, user_key, digest)",
        ));
    }
    let ns = scoped_text(&mut scope.ns, &t.get_item(0)?, "namespace")?;
    let set = scoped_text(&mut scope.set, &t.get_item(1)?, "set")?;
    let user = t.get_item(2)?;
    let digest = t.get_item(3)?;
    if !digest.is_none() {
        let d = digest
            .cast::<PyBytes>()
            .map_err(|_| invalid_argument("key digest must be 20 bytes"))?;
        let arr: [u8; 20] = d
            .as_bytes()
            .try_into()
            .map_err(|_| invalid_argument("key digest must be 20 bytes"))?;
        let uk = if user.is_none() {
            None
        } else {
            Some(user_key(&user, scope.bytes)?)
        };
        return Ok(KeyParts::Ready(Key::with_digest(ns, set, uk, arr)));
    }
    if user.is_none() {
        return Err(invalid_argument("key needs a user key or a digest"));
    }
    Ok(KeyParts::Hash(ns, set, user_key(&user, scope.bytes)?))
}

/// The user key: an exact `bytes` as `bytes` says; a `bytearray` or a `bytes` subclass (the
/// fluent layer's copy of a `bytearray` key) a blob.
fn user_key(obj: &Bound<'_, PyAny>, bytes: BytesKeys) -> PyResult<Value> {
    if let Ok(b) = obj.cast_exact::<PyBytes>() {
        return Ok(bytes.user_key(b.as_bytes()));
    }
    if obj.is_instance_of::<PyBool>() {
        return Err(invalid_argument(
            "user key must be str, int or bytes, not bool",
        ));
    }
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyInt>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
    {
        return to_value(obj, Ctx::bin("<key>"));
    }
    let tname = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    Err(PyTypeError::new_err(format!(
        "user key must be str, int or bytes, not {tname:?}"
    )))
}

/// The key tuple of a reply about `key`, reusing the caller's tuple `orig` where it can: as is
/// when it carries the digest, else its namespace, set and user key (exact `str` / `int` /
/// `bytes`, immutable) with the digest added; anything else is rebuilt from `key`.
pub fn key_tuple<'py>(
    py: Python<'py>,
    orig: Option<&Bound<'py, PyAny>>,
    key: &Key,
) -> PyResult<Bound<'py, PyTuple>> {
    let Some(t) = orig.and_then(|o| o.cast_exact::<PyTuple>().ok()) else {
        return from_key(py, key);
    };
    if t.len() != 4 {
        return from_key(py, key);
    }
    let (ns, set, uk, digest) = (
        t.get_item(0)?,
        t.get_item(1)?,
        t.get_item(2)?,
        t.get_item(3)?,
    );
    let plain = ns.is_exact_instance_of::<PyString>()
        && set.is_exact_instance_of::<PyString>()
        && (uk.is_exact_instance_of::<PyString>()
            || uk.is_exact_instance_of::<PyInt>()
            || uk.is_exact_instance_of::<PyBytes>()
            || (uk.is_none() && !digest.is_none()));
    if !plain {
        return from_key(py, key);
    }
    if digest.is_exact_instance_of::<PyBytes>() {
        return Ok(t.clone());
    }
    let digest = PyBytes::new(py, &key.digest()).into_any();
    PyTuple::new(py, [ns, set, uk, digest])
}

/// Python strings for bin names, reused across the records of one reply.
#[derive(Default)]
pub struct Names<'py> {
    seen: Vec<(String, Bound<'py, PyString>)>,
}

impl<'py> Names<'py> {
    /// The Python string for `name`.
    pub fn get(&mut self, py: Python<'py>, name: &str) -> Bound<'py, PyString> {
        if let Some((_, s)) = self.seen.iter().find(|(n, _)| n == name) {
            return s.clone();
        }
        let s = PyString::new(py, name);
        if self.seen.len() < 32 {
            self.seen.push((name.to_owned(), s.clone()));
        }
        s
    }
}
