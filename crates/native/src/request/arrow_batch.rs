//! Batch reads as one Arrow table: a row per record found, in key order.

use std::sync::Arc;

use pyo3::prelude::*;

use crate::client::Inner;
use crate::convert::arrow::{ArrowSchemaError, ArrowSpec, ArrowTable, Converter, Row, Spec};
use crate::convert::record::BatchRow;
use crate::convert::values::Names;
use crate::errors::OpResult;
use crate::exec::completion::IntoPy;
use crate::policy::Natives;
use crate::request::calls::{self, BatchOut};

/// KEY_NOT_FOUND_ERROR: a missing record has no row.
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
        let out = calls::batch_crate(&i.worker_client(), p, rows).await?;
        Ok(BatchTable { out, spec })
    })
}

impl BatchTable {
    /// The error of the first row that failed (a missing record is no failure).
    fn first_error(&self, py: Python<'_>) -> PyResult<()> {
        for (op, key, outcome, shape) in self.out.parts() {
            if op
                .result_code()
                .is_some_and(|rc| matches!(u8::from(rc), 0 | NOT_FOUND))
            {
                continue;
            }
            let row = BatchRow::from_native(
                py,
                op,
                Some(key.bind(py)),
                outcome,
                shape,
                &mut Names::default(),
            )?;
            let error = Bound::new(py, row)?.getattr("error")?;
            if !error.is_none() {
                return Err(PyErr::from_value(error));
            }
        }
        Ok(())
    }
}

impl IntoPy for BatchTable {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.first_error(py)?;
        let BatchTable { out, spec } = self;
        let table = py.detach(|| {
            let rows: Vec<Row<'_>> = out
                .parts()
                .filter_map(|(op, ..)| {
                    Some(Row {
                        key: Some(&op.batch_record().key),
                        rec: op.record()?,
                    })
                })
                .collect();
            let mut converter = Converter::new(spec);
            if rows.is_empty() {
                return Ok(ArrowTable::new(converter.schema(&[])?, Vec::new()));
            }
            let batch = converter.convert(&rows)?;
            Ok::<_, String>(ArrowTable::new(batch.schema(), vec![batch]))
        });
        let table = table.map_err(ArrowSchemaError::new_err)?;
        Ok(Py::new(py, table)?.into_any())
    }
}
