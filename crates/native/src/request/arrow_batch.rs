//! Batch reads as one Arrow table: a row per key asked for, in order. A missing record's row is
//! null but for the key, digest and `found` columns. Rows the wire path read are converted
//! from their bytes; when the crate's batch ran some rows, every row goes through crate records.

use std::sync::Arc;

use aerospike::{IndexMap, Key, Record as AsRecord};
use arrow_array::RecordBatch;
use pyo3::prelude::*;

use crate::client::Inner;
use crate::convert::arrow::{
    wire_records, ArrowSchemaError, ArrowSpec, ArrowTable, ConvertError, Converter, Row, Spec,
};
use crate::convert::wire_chunk::{OwnedRecord, WireChunk};
use crate::errors::OpResult;
use crate::exec::completion::IntoPy;
use crate::policy::Natives;
use crate::request::batch::Answer;
use crate::request::batch_wire::Done;
use crate::request::calls::{self, BatchOut};

/// KEY_NOT_FOUND_ERROR: a missing record, a row of nulls.
const NOT_FOUND: u8 = 2;

/// A finished batch, converted when it reaches Python.
pub struct BatchTable {
    out: BatchOut,
    spec: Spec,
}

/// Check the read rows and the columns; the call runs the batch and hands its records back for
/// conversion.
pub fn read(
    i: &Arc<Inner>,
    p: Arc<Natives>,
    rows: &Bound<'_, PyAny>,
    spec: &Bound<'_, ArrowSpec>,
) -> PyResult<impl std::future::Future<Output = OpResult<BatchTable>> + Send + 'static> {
    let rows = crate::request::batch_rows::to_rows(rows, &i.defaults.calls, false)?;
    let (i, spec) = (i.clone(), spec.get().spec.clone());
    Ok(async move {
        let out = calls::batch_on(i.worker_client(), p, rows).await?;
        Ok(BatchTable { out, spec })
    })
}

/// What a row that did not fail holds.
enum Got<'a> {
    Wire(&'a OwnedRecord),
    Crate(&'a AsRecord),
    Missing,
}

/// The key and record of a row, or `None` if the row failed.
fn got(done: &Done, too_deep: bool) -> Option<(&Key, Got<'_>)> {
    match done {
        Done::Wire(key, Answer::Found(rec)) => Some((key, Got::Wire(rec))),
        Done::Wire(key, Answer::NotFound) => Some((key, Got::Missing)),
        Done::Crate(op) if !too_deep => {
            let key = &op.batch_record().key;
            match op.result_code().map(u8::from) {
                Some(0) => Some((key, op.record().map_or(Got::Missing, Got::Crate))),
                Some(NOT_FOUND) => Some((key, Got::Missing)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The error of the first row that failed.
fn first_error(py: Python<'_>, out: BatchOut) -> PyErr {
    let mut rows = Vec::new();
    if let Err(e) = out.push_rows(py, &mut rows) {
        return e;
    }
    for row in rows {
        match row.bind(py).getattr("error") {
            Ok(error) if !error.is_none() => return PyErr::from_value(error),
            Err(e) => return e,
            Ok(_) => {}
        }
    }
    ArrowSchemaError::new_err("a batch row failed without an error")
}

/// The rows as one record batch.
fn convert(
    converter: &mut Converter,
    rows: &[(&Key, Got<'_>)],
) -> Result<RecordBatch, ConvertError> {
    let keys: Vec<&Key> = rows.iter().map(|(k, _)| *k).collect();
    if !rows.iter().any(|(_, g)| matches!(g, Got::Crate(_))) {
        let mut chunk = WireChunk::with_capacity(rows.len());
        for (key, g) in rows {
            match g {
                Got::Wire(rec) => chunk.push_owned(rec),
                _ => chunk.push_missing(key.digest()),
            }
        }
        return converter.convert_wire_keyed(&chunk, Some(&keys));
    }
    let mut chunk = WireChunk::default();
    for (_, g) in rows {
        if let Got::Wire(rec) = g {
            chunk.push_owned(rec);
        }
    }
    let decoded = wire_records(&chunk)?;
    let mut decoded = decoded.iter();
    let empty = AsRecord::new(None, IndexMap::new(), None, 0, 0);
    let mut out = Vec::with_capacity(rows.len());
    for (key, g) in rows {
        let (rec, found) = match g {
            Got::Wire(_) => (decoded.next().ok_or("a record was not decoded")?, true),
            Got::Crate(rec) => (*rec, true),
            Got::Missing => (&empty, false),
        };
        out.push(Row {
            key: Some(key),
            rec,
            found,
        });
    }
    converter.convert(&out)
}

impl IntoPy for BatchTable {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let BatchTable { out, spec } = self;
        if !out.rows().all(|(done, deep)| got(done, deep).is_some()) {
            return Err(first_error(py, out));
        }
        let table = py.detach(|| {
            let rows: Vec<(&Key, Got<'_>)> = out
                .rows()
                .filter_map(|(done, deep)| got(done, deep))
                .collect();
            let mut converter = Converter::new(spec);
            if rows.is_empty() {
                return Ok(ArrowTable::new(converter.schema(&[])?, Vec::new()));
            }
            let batch = convert(&mut converter, &rows)?;
            Ok::<_, String>(ArrowTable::new(batch.schema(), vec![batch]))
        });
        let table = table.map_err(ArrowSchemaError::new_err)?;
        Ok(Py::new(py, table)?.into_any())
    }
}
