//! Arguments of single-record calls converted before anything is sent: bins, bin selectors
//! and UDF arguments.

use aerospike::{Bin, Bins, Value};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping, PyString};

use crate::convert::values::{to_value, Ctx};

/// Convert a bins mapping to `Bin`s (values converted before anything is sent).
pub fn to_bins(bins: &Bound<'_, PyAny>) -> PyResult<Vec<Bin>> {
    let mut out = Vec::new();
    let mut push = |k: Bound<'_, PyAny>, v: Bound<'_, PyAny>| -> PyResult<()> {
        let name = k.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "bin names must be str, not {}",
                k.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        let name = name.to_str()?;
        let value = to_value(&v, Ctx::bin(name))?;
        out.push(Bin::new(name.to_owned(), value));
        Ok(())
    };
    if let Ok(d) = bins.cast::<PyDict>() {
        for (k, v) in d.iter() {
            push(k, v)?;
        }
    } else {
        let m = bins
            .cast::<PyMapping>()
            .map_err(|_| PyTypeError::new_err("bins must be a mapping of str to values"))?;
        for item in m.items()?.iter() {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            push(k, v)?;
        }
    }
    Ok(out)
}

/// What a read returns: no bins (header only), all of them, or the ones named.
pub fn bins_selector(bins: Option<Vec<String>>, header_only: bool) -> Bins {
    match (header_only, bins) {
        (true, _) => Bins::None,
        (false, None) => Bins::All,
        (false, Some(b)) => Bins::Some(b),
    }
}

/// UDF arguments: a list or any iterable of values.
pub fn udf_args(args: &Bound<'_, PyAny>) -> PyResult<Vec<Value>> {
    match to_value(args, Ctx::bin("<udf args>"))? {
        Value::List(l) => Ok(l),
        _ => {
            let mut out = Vec::new();
            for a in args.try_iter()? {
                out.push(to_value(&a?, Ctx::bin("<udf args>"))?);
            }
            Ok(out)
        }
    }
}
