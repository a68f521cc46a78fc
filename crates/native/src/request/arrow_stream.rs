//! `ArrowReader`: a query stream's chunks as Arrow record batches.
//!
//! The worker runtime fetches a chunk of records; the thread that takes it (the event loop's,
//! or the blocked caller's) converts it with the GIL released, so parsing the next chunk and
//! converting this one run on two cores.

use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::prelude::*;

use crate::convert::arrow::{ArrowSchemaError, ArrowSpec, ArrowTable, Converter};
use crate::convert::chunk::Batch;
use crate::exec::blocking::{self, Driver};
use crate::exec::completion::{self, IntoPy, OpResult, Pending};
use crate::request::query::QueryStream;

/// Converts the chunks of a `QueryStream` to Arrow, one record batch per chunk.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct ArrowReader {
    stream: Py<QueryStream>,
    state: Arc<Mutex<State>>,
}

struct State {
    converter: Converter,
    /// Rows still to deliver (`None`: no limit).
    left: Option<u64>,
}

/// A fetched chunk (`None` at the end), converted when it reaches Python.
struct Chunk {
    records: Option<Batch>,
    state: Arc<Mutex<State>>,
}

impl IntoPy for Chunk {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let Some(mut batch) = self.records else {
            return Ok(py.None());
        };
        let state = self.state;
        let batch = py.detach(move || {
            let mut st = state.lock();
            if let Some(left) = st.left.as_mut() {
                batch.truncate(usize::try_from(*left).unwrap_or(usize::MAX));
                *left -= batch.len() as u64;
            }
            if batch.is_empty() {
                return Ok(None);
            }
            let batch = st.converter.convert_batch(&batch)?;
            Ok::<_, String>(Some(ArrowTable::new(batch.schema(), vec![batch])))
        });
        match batch.map_err(ArrowSchemaError::new_err)? {
            Some(table) => Ok(Py::new(py, table)?.into_any()),
            None => Ok(py.None()),
        }
    }
}

impl ArrowReader {
    fn fetch(&self) -> impl std::future::Future<Output = OpResult<Chunk>> + Send + 'static {
        let records = self.stream.get().next_records();
        let state = self.state.clone();
        async move {
            Ok(Chunk {
                records: records.await?,
                state,
            })
        }
    }
}

#[pymethods]
impl ArrowReader {
    /// Batches of `stream`'s chunks with the columns of `spec`; at most `limit` rows in all
    /// (0: no limit). With `widen`, inferred columns grow to fit every chunk (for one table
    /// made with `ArrowTable.concat`); without, they are fixed by the first chunk.
    #[new]
    #[pyo3(signature = (stream, spec, limit=0, widen=false))]
    fn new(stream: Py<QueryStream>, spec: &Bound<'_, ArrowSpec>, limit: u64, widen: bool) -> Self {
        let spec = spec.get().spec.clone();
        ArrowReader {
            stream,
            state: Arc::new(Mutex::new(State {
                converter: if widen {
                    Converter::widening(spec)
                } else {
                    Converter::new(spec)
                },
                left: (limit > 0).then_some(limit),
            })),
        }
    }

    /// `done` receives the next chunk as a one-batch `ArrowTable`, or `None` at the end.
    fn next_batch(&self, done: Py<PyAny>) -> Pending {
        completion::start(self.stream.get().handle(), done, self.fetch())
    }

    /// The next chunk as a one-batch `ArrowTable`, blocking; `None` at the end.
    fn next_batch_blocking(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        blocking::block(py, Driver::Worker(self.stream.get().handle()), self.fetch())
    }

    /// A table with no rows and the columns the reader produces (inferred from no records
    /// when no chunk came).
    fn empty(&self) -> PyResult<ArrowTable> {
        let schema = self
            .state
            .lock()
            .converter
            .schema(&[])
            .map_err(ArrowSchemaError::new_err)?;
        Ok(ArrowTable::new(schema, Vec::new()))
    }

    /// The query stream the batches come from.
    #[getter]
    fn stream(&self, py: Python<'_>) -> Py<QueryStream> {
        self.stream.clone_ref(py)
    }
}
