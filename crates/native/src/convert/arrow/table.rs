//! `ArrowTable`: record batches exported through the Arrow PyCapsule interface, so pyarrow,
//! polars, pandas and duckdb take them without a copy.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StructArray};
use arrow_schema::{Field, SchemaRef};
use pyo3::exceptions::PyModuleNotFoundError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use pyo3_arrow::error::PyArrowResult;
use pyo3_arrow::ffi::{
    to_array_pycapsules, to_schema_pycapsule, to_stream_pycapsule, ArrayIterator,
};

/// Arrow data read from the database: one schema, zero or more record batches.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct ArrowTable {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl ArrowTable {
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> ArrowTable {
        ArrowTable { schema, batches }
    }

    fn struct_field(&self) -> Field {
        Field::new_struct("", self.schema.fields().clone(), false)
            .with_metadata(self.schema.metadata().clone())
    }
}

fn import<'py>(py: Python<'py>, module: &str, what: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import(module).map_err(|_| {
        PyModuleNotFoundError::new_err(format!(
            "{what} needs {module}: pip install 'aerospike-fluent[dataframes]'"
        ))
    })
}

#[pymethods]
impl ArrowTable {
    /// Rows in all batches.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// Columns.
    #[getter]
    fn num_columns(&self) -> usize {
        self.schema.fields().len()
    }

    /// Record batches (at most `rows` rows each).
    #[getter]
    fn num_batches(&self) -> usize {
        self.batches.len()
    }

    /// Column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// The schema as text: `name: type` per column, one a line.
    #[getter]
    fn schema_text(&self) -> String {
        self.schema
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn __len__(&self) -> usize {
        self.num_rows()
    }

    fn __repr__(&self) -> String {
        let cols: Vec<String> = self
            .schema
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect();
        format!(
            "ArrowTable({} rows, {} batches; {})",
            self.num_rows(),
            self.batches.len(),
            cols.join(", ")
        )
    }

    /// The schema as an Arrow C schema capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyArrowResult<Bound<'py, PyCapsule>> {
        to_schema_pycapsule(py, self.schema.as_ref())
    }

    /// The batches as an Arrow C stream capsule.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyArrowResult<Bound<'py, PyCapsule>> {
        let arrays = self
            .batches
            .clone()
            .into_iter()
            .map(|b| Ok(Arc::new(StructArray::from(b)) as ArrayRef));
        let reader = Box::new(ArrayIterator::new(arrays, self.struct_field().into()));
        to_stream_pycapsule(py, reader, requested_schema)
    }

    /// All rows as one Arrow C array (a struct array) and its schema.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyArrowResult<Bound<'py, PyTuple>> {
        let batch = match self.batches.as_slice() {
            [one] => one.clone(),
            many => arrow_select::concat::concat_batches(&self.schema, many)?,
        };
        let array: ArrayRef = Arc::new(StructArray::from(batch));
        to_array_pycapsules(py, self.struct_field().into(), &array, requested_schema)
    }

    /// A `pyarrow.Table` (needs pyarrow).
    fn to_pyarrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        import(slf.py(), "pyarrow", "to_pyarrow()")?.call_method1("table", (slf,))
    }

    /// A `pandas.DataFrame` (needs pandas and pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        import(slf.py(), "pandas", "to_pandas()")?;
        Self::to_pyarrow(slf)?.call_method0("to_pandas")
    }

    /// A `polars.DataFrame` (needs polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        import(slf.py(), "polars", "to_polars()")?.call_method1("DataFrame", (slf,))
    }

    /// One table holding the batches of `tables`, in order, with the last one's schema:
    /// earlier batches get null columns for the columns they lack and are cast to its types
    /// (the columns of a widening read only grow). A column the last table lacks is an error.
    #[staticmethod]
    fn concat(tables: Vec<PyRef<'_, ArrowTable>>) -> PyResult<ArrowTable> {
        let Some(last) = tables.last() else {
            return Err(crate::errors::invalid_argument("concat() needs a table"));
        };
        let schema = last.schema.clone();
        let mut batches = Vec::new();
        for t in &tables {
            for b in &t.batches {
                let b = super::widen::conform(b, &schema).map_err(|e| {
                    crate::errors::invalid_argument(format!(
                        "concat() needs tables whose columns fit the last one's: {e}"
                    ))
                })?;
                batches.push(b);
            }
        }
        Ok(ArrowTable { schema, batches })
    }
}
