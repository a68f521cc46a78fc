//! One row of a batch handed to Python: `BatchRow`, and how a finished row is read back.

use aerospike::BatchOperation;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::record::Record;
use crate::convert::values::{from_value, key_tuple, Names};
use crate::errors;
use crate::ops::Answers;

/// How a finished row is read back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Reads and deletes: a missing record is an outcome, not an error.
    MissingOk,
    /// A UDF call: its return value (or Lua error) comes back as a `SUCCESS` (`FAILURE`) bin.
    Udf,
    /// Other writes.
    Write,
}

/// KEY_NOT_FOUND_ERROR.
const NOT_FOUND: u8 = 2;
/// UDF_BAD_RESPONSE.
const UDF_ERROR: i32 = 100;

/// One row of a batch: its key, the record (when any) and the row's own outcome.
#[pyclass(frozen, freelist = 1024, module = "aerospike_fluent._native")]
pub struct BatchRow {
    key: Py<PyTuple>,
    record: Option<Py<Record>>,
    udf_result: Option<Py<PyAny>>,
    result_code: i32,
    error: Option<Py<PyAny>>,
    in_doubt: bool,
    node_failed: bool,
}

impl BatchRow {
    /// A row whose record held a value nested deeper than the client reads: no record, a
    /// `DeserializeError`.
    pub fn too_deep<'py>(
        py: Python<'py>,
        op: &BatchOperation,
        orig: Option<&Bound<'py, PyAny>>,
        t: &crate::convert::depth::TooDeep,
    ) -> PyResult<Self> {
        let key = key_tuple(py, orig, &op.batch_record().key)?;
        let exc = errors::too_deep(py, t, Some(key.clone().into_any()));
        Ok(BatchRow {
            key: key.unbind(),
            record: None,
            udf_result: None,
            result_code: -2,
            error: Some(exc.into_value(py).into_any()),
            in_doubt: false,
            node_failed: false,
        })
    }

    /// Convert a finished batch operation; rows never answered get `ClientError` code -15.
    /// `orig` is the key tuple the row was asked with (reused where possible). For reads and
    /// deletes a missing record is not an error (result code 2, no exception); a UDF row's
    /// return value is `udf_result`, its Lua error text the error's message.
    pub fn from_native<'py>(
        py: Python<'py>,
        op: &BatchOperation,
        orig: Option<&Bound<'py, PyAny>>,
        outcome: Outcome,
        shape: Option<&Answers>,
        names: &mut Names<'py>,
    ) -> PyResult<Self> {
        let br = op.batch_record();
        let key = key_tuple(py, orig, &br.key)?;
        let udf = |bin: &str| {
            op.record()
                .filter(|_| outcome == Outcome::Udf)
                .and_then(|r| r.bins.get(bin))
        };
        let udf_result = udf("SUCCESS").map(|v| from_value(py, v)).transpose()?;
        let udf_failure = udf("FAILURE").map(|v| v.to_string());
        let record = match op.record() {
            Some(_) if outcome == Outcome::Udf => None,
            Some(r) => {
                let rec = match shape {
                    Some(answers) => Record::from_answers(py, r, key.clone(), answers, names)?,
                    None => Record::convert(py, r, Some(key.clone()), names)?,
                };
                Some(Py::new(py, rec)?)
            }
            None => None,
        };
        let in_doubt = op.in_doubt();
        let (code, error) = match (op.result_code(), op.error()) {
            (Some(rc), _) if u8::from(rc) == 0 => (0, None),
            (Some(rc), _) if outcome == Outcome::MissingOk && u8::from(rc) == NOT_FOUND => {
                (i32::from(NOT_FOUND), None)
            }
            (rc, Some(err)) if udf_failure.is_none() => {
                let code = rc.map_or(err.result_code(), |rc| i32::from(u8::from(rc)));
                let exc = errors::to_py(py, err, Some(key.clone().into_any()));
                (code, Some(exc.into_value(py).into_any()))
            }
            (rc, err) => {
                let (code, msg) = match (rc, udf_failure) {
                    (Some(rc), Some(text)) => (i32::from(u8::from(rc)), text),
                    (None, Some(text)) => (err.map_or(UDF_ERROR, |e| e.result_code()), text),
                    (Some(rc), None) => (i32::from(u8::from(rc)), rc.into_string()),
                    (None, None) => (-15, "no response for this row".to_owned()),
                };
                let exc = errors::error_instance(
                    errors::class_for_code(py, code),
                    Some(code),
                    &msg,
                    in_doubt,
                    Some(key.clone().into_any()),
                )?;
                (code, Some(exc.unbind()))
            }
        };
        Ok(BatchRow {
            key: key.unbind(),
            record,
            udf_result,
            result_code: code,
            error,
            in_doubt,
            node_failed: false,
        })
    }
}

impl BatchRow {
    /// A read row's outcome from the wire path (see `batch_wire`).
    pub fn of_read(
        key: Py<PyTuple>,
        record: Option<Py<Record>>,
        result_code: i32,
        error: Option<Py<PyAny>>,
    ) -> Self {
        BatchRow {
            key,
            record,
            udf_result: None,
            result_code,
            error,
            in_doubt: false,
            node_failed: false,
        }
    }
}

impl BatchRow {
    /// This row, marked in doubt when `in_doubt` (a write that may have been applied).
    pub fn in_doubt_if(mut self, in_doubt: bool) -> Self {
        self.in_doubt |= in_doubt;
        self
    }

    /// This row, marked as failed with its node's part of the batch when `failed` (a timeout,
    /// a lost connection, an error that stopped the node's reply, or no answer).
    pub fn node_failed_if(mut self, failed: bool) -> Self {
        self.node_failed |= failed;
        self
    }
}

#[pymethods]
impl BatchRow {
    /// The row's key tuple.
    #[getter]
    fn key(&self, py: Python<'_>) -> Py<PyTuple> {
        self.key.clone_ref(py)
    }
    /// The record, when the row returned one.
    #[getter]
    fn record(&self, py: Python<'_>) -> Option<Py<Record>> {
        self.record.as_ref().map(|r| r.clone_ref(py))
    }
    /// A UDF row's return value (`None` for other rows and failed calls).
    #[getter]
    fn udf_result(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.udf_result.as_ref().map(|v| v.clone_ref(py))
    }
    /// The record's bins, when the row returned one.
    #[getter]
    fn bins<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.record
            .as_ref()
            .map(|r| r.get().bins_dict(py).cloned())
            .transpose()
    }
    /// The row's result code (0 = ok).
    #[getter]
    fn result_code(&self) -> i32 {
        self.result_code
    }
    /// The row's error, if it failed.
    #[getter]
    fn error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.error.as_ref().map(|e| e.clone_ref(py))
    }
    /// Whether a failed write may have been applied.
    #[getter]
    fn in_doubt(&self) -> bool {
        self.in_doubt
    }
    /// Whether the row failed because its node's part of the batch failed as a whole.
    #[getter]
    fn node_failed(&self) -> bool {
        self.node_failed
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "BatchRow(key={}, result_code={}, record={})",
            self.key.bind(py).repr()?,
            self.result_code,
            match &self.record {
                Some(r) => r.bind(py).repr()?.to_string(),
                None => "None".into(),
            }
        ))
    }
}
