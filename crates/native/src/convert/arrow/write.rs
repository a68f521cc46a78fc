//! Arrow input: the rows of a record batch stream become records, read column by column with
//! no Python object per cell.
//!
//! `ArrowWriter` holds the stream and hands it out in `PutChunk`s of rows, which
//! `request::put_arrow` writes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use aerospike::{Bin, Key, Value};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, SchemaRef};
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3_arrow::input::AnyRecordBatch;

use crate::errors::invalid_argument;

/// The longest bin name a server takes.
const MAX_BIN_NAME: usize = 15;

/// One row to write: its key and bins (a null cell writes no bin).
pub struct Put {
    pub key: Key,
    pub bins: Vec<Bin>,
}

/// A stream of record batches to write as records of one set.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct ArrowWriter {
    reader: Mutex<Option<Box<dyn RecordBatchReader + Send>>>,
    /// Rows of the last batch read that the previous chunk did not take.
    rest: Mutex<Option<RecordBatch>>,
    namespace: String,
    set: String,
    key: usize,
    key_name: String,
    /// Rows handed out so far: where the next batch starts, for the row numbers of errors.
    rows_read: AtomicUsize,
    /// The columns written as bins: index and bin name.
    bins: Vec<(usize, String)>,
}

/// Rows of an `ArrowWriter`, converted and waiting to be written.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct PutChunk {
    rows: Mutex<Option<Vec<Put>>>,
    len: usize,
}

#[pymethods]
impl PutChunk {
    fn __len__(&self) -> usize {
        self.len
    }
}

#[pymethods]
impl ArrowWriter {
    /// Check `data` (anything exporting an Arrow stream or array) against what records can
    /// hold: `key` names the column of user keys (int or str or bytes); every other column
    /// is a bin.
    #[new]
    fn new(data: AnyRecordBatch, namespace: String, set: String, key: &str) -> PyResult<Self> {
        let reader = data.into_reader()?;
        let schema = reader.schema();
        let (key_at, bins) = columns(&schema, key)?;
        Ok(ArrowWriter {
            reader: Mutex::new(Some(reader)),
            rest: Mutex::new(None),
            namespace,
            set,
            key: key_at,
            key_name: key.to_owned(),
            rows_read: AtomicUsize::new(0),
            bins,
        })
    }

    /// The next `rows` rows (fewer at the end; None when none are left), converted.
    fn next_chunk(&self, py: Python<'_>, rows: usize) -> PyResult<Option<PutChunk>> {
        let rows = rows.max(1);
        py.detach(|| {
            let mut out = Vec::with_capacity(rows);
            while out.len() < rows {
                let Some(batch) = self.next_batch()? else {
                    break;
                };
                let take = (rows - out.len()).min(batch.num_rows());
                if take < batch.num_rows() {
                    *self.rest.lock() = Some(batch.slice(take, batch.num_rows() - take));
                }
                self.convert(&batch.slice(0, take), &mut out)?;
            }
            Ok((!out.is_empty()).then(|| PutChunk {
                len: out.len(),
                rows: Mutex::new(Some(out)),
            }))
        })
    }
}

impl ArrowWriter {
    fn next_batch(&self) -> PyResult<Option<RecordBatch>> {
        if let Some(rest) = self.rest.lock().take() {
            return Ok(Some(rest));
        }
        let mut reader = self.reader.lock();
        let Some(r) = reader.as_mut() else {
            return Ok(None);
        };
        match r.next() {
            Some(Ok(b)) => Ok(Some(b)),
            Some(Err(e)) => Err(invalid_argument(format!("reading the Arrow stream: {e}"))),
            None => {
                *reader = None;
                Ok(None)
            }
        }
    }

    fn convert(&self, batch: &RecordBatch, out: &mut Vec<Put>) -> PyResult<()> {
        let keys = batch.column(self.key);
        let columns: Vec<(&dyn Array, &str)> = self
            .bins
            .iter()
            .map(|(i, name)| (batch.column(*i).as_ref(), name.as_str()))
            .collect();
        let first = self
            .rows_read
            .fetch_add(batch.num_rows(), Ordering::Relaxed);
        for (col, name) in &columns {
            if let Some(row) = super::timestamp::first_out_of_range(*col) {
                return Err(invalid_argument(format!(
                    "column '{name}' at row {} (counting from 0): the instant is beyond the \
                     years 1677 to 2262, which UTC nanoseconds in 64 bits cover",
                    first + row
                )));
            }
        }
        for row in 0..batch.num_rows() {
            let user_key = self.user_key(keys.as_ref(), row, first + row)?;
            let key = Key::new(self.namespace.as_str(), self.set.as_str(), user_key)
                .map_err(|e| invalid_argument(e.to_string()))?;
            let bins = columns
                .iter()
                .filter_map(|(col, name)| Some(Bin::new((*name).to_owned(), value_at(*col, row)?)))
                .collect();
            out.push(Put { key, bins });
        }
        Ok(())
    }

    /// The user key at `row` of the key column (row `number` of the stream): neither null
    /// nor empty, as a row left without a key would be written under one shared key.
    fn user_key(&self, keys: &dyn Array, row: usize, number: usize) -> PyResult<Value> {
        let refuse = |what: &str| {
            invalid_argument(format!(
                "key column '{}' is {what} at row {number} (counting from 0): every row needs \
                 a key of its own",
                self.key_name
            ))
        };
        match value_at(keys, row) {
            None => Err(refuse("null")),
            Some(Value::String(s)) if s.is_empty() => Err(refuse("an empty str")),
            Some(Value::Blob(b)) if b.is_empty() => Err(refuse("empty bytes")),
            Some(key) => Ok(key),
        }
    }
}

/// The key column's index and the bin columns, checked: every type one a record can hold.
fn columns(schema: &SchemaRef, key: &str) -> PyResult<(usize, Vec<(usize, String)>)> {
    let key_at = schema.index_of(key).map_err(|_| {
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        invalid_argument(format!(
            "no key column '{key}' (columns: {})",
            names.join(", ")
        ))
    })?;
    let key_type = schema.field(key_at).data_type();
    if !key_kind(key_type) {
        return Err(invalid_argument(format!(
            "key column '{key}' is {key_type}: user keys are int, str or bytes"
        )));
    }
    let mut bins = Vec::new();
    for (i, f) in schema.fields().iter().enumerate() {
        if i == key_at {
            continue;
        }
        if f.name().len() > MAX_BIN_NAME || f.name().is_empty() {
            return Err(invalid_argument(format!(
                "column '{}' cannot be a bin: bin names are 1 to {MAX_BIN_NAME} bytes",
                f.name()
            )));
        }
        if let Some(why) = super::timestamp::refusal(f.name(), f.data_type()) {
            return Err(invalid_argument(why));
        }
        if let Some(bad) = unsupported(f.data_type()) {
            return Err(invalid_argument(format!(
                "column '{}' is {}: {bad} has no record type (int, float, str, bytes, bool, \
                 list, map or struct)",
                f.name(),
                f.data_type()
            )));
        }
        bins.push((i, f.name().clone()));
    }
    Ok((key_at, bins))
}

fn key_kind(t: &DataType) -> bool {
    use DataType::*;
    matches!(
        t,
        Int8 | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Utf8
            | LargeUtf8
            | Utf8View
            | Binary
            | LargeBinary
            | BinaryView
    ) || matches!(t, Dictionary(_, v) if key_kind(v))
}

/// The first type inside `t` a record cannot hold, if any.
fn unsupported(t: &DataType) -> Option<&DataType> {
    use DataType::*;
    match t {
        Null | Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64
        | Float16 | Float32 | Float64 | Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary
        | BinaryView | FixedSizeBinary(_) => None,
        Timestamp(_, Some(_)) => None,
        Dictionary(_, v) => unsupported(v),
        List(f) | LargeList(f) | FixedSizeList(f, _) | ListView(f) | LargeListView(f) => {
            unsupported(f.data_type())
        }
        Struct(fields) => fields.iter().find_map(|f| unsupported(f.data_type())),
        Map(f, _) => unsupported(f.data_type()),
        other => Some(other),
    }
}

/// The value at `row` of `a` (None: null).
fn value_at(a: &dyn Array, row: usize) -> Option<Value> {
    use DataType::*;
    if a.is_null(row) {
        return None;
    }
    let int = |v: i64| Some(Value::Int(v));
    match a.data_type() {
        Null => None,
        Boolean => Some(Value::Bool(a.as_boolean().value(row))),
        Int8 => int(a.as_primitive::<Int8Type>().value(row).into()),
        Int16 => int(a.as_primitive::<Int16Type>().value(row).into()),
        Int32 => int(a.as_primitive::<Int32Type>().value(row).into()),
        Int64 => int(a.as_primitive::<Int64Type>().value(row)),
        UInt8 => int(a.as_primitive::<UInt8Type>().value(row).into()),
        UInt16 => int(a.as_primitive::<UInt16Type>().value(row).into()),
        UInt32 => int(a.as_primitive::<UInt32Type>().value(row).into()),
        // Beyond i64::MAX it wraps, as the server's integers do.
        UInt64 => int(a.as_primitive::<UInt64Type>().value(row) as i64),
        Float16 => Some(Value::from(f64::from(
            a.as_primitive::<Float16Type>().value(row),
        ))),
        Float32 => Some(Value::from(f64::from(
            a.as_primitive::<Float32Type>().value(row),
        ))),
        Float64 => Some(Value::from(a.as_primitive::<Float64Type>().value(row))),
        Timestamp(unit, _) => super::timestamp::nanos(a, unit, row).map(Value::Int),
        Utf8 => Some(Value::String(a.as_string::<i32>().value(row).to_owned())),
        LargeUtf8 => Some(Value::String(a.as_string::<i64>().value(row).to_owned())),
        Utf8View => Some(Value::String(a.as_string_view().value(row).to_owned())),
        Binary => Some(Value::Blob(a.as_binary::<i32>().value(row).to_vec())),
        LargeBinary => Some(Value::Blob(a.as_binary::<i64>().value(row).to_vec())),
        BinaryView => Some(Value::Blob(a.as_binary_view().value(row).to_vec())),
        FixedSizeBinary(_) => Some(Value::Blob(a.as_fixed_size_binary().value(row).to_vec())),
        Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let at = d.normalized_keys()[row];
            value_at(d.values().as_ref(), at)
        }
        List(_) => Some(list(a.as_list::<i32>().value(row).as_ref())),
        LargeList(_) => Some(list(a.as_list::<i64>().value(row).as_ref())),
        FixedSizeList(_, _) => Some(list(a.as_fixed_size_list().value(row).as_ref())),
        ListView(_) => Some(list(a.as_list_view::<i32>().value(row).as_ref())),
        LargeListView(_) => Some(list(a.as_list_view::<i64>().value(row).as_ref())),
        Struct(fields) => {
            let s = a.as_struct();
            let map = fields
                .iter()
                .zip(s.columns())
                .filter_map(|(f, col)| {
                    Some((
                        Value::String(f.name().clone()),
                        value_at(col.as_ref(), row)?,
                    ))
                })
                .collect();
            Some(Value::HashMap(map))
        }
        Map(_, _) => {
            let entries = a.as_map().value(row);
            let (keys, values) = (entries.column(0), entries.column(1));
            let map: HashMap<Value, Value> = (0..entries.len())
                .filter_map(|i| {
                    let v = value_at(values.as_ref(), i).unwrap_or(Value::Nil);
                    Some((value_at(keys.as_ref(), i)?, v))
                })
                .collect();
            Some(Value::HashMap(map))
        }
        _ => None,
    }
}

/// A list's elements (a null element stays in place as nil).
fn list(items: &dyn Array) -> Value {
    Value::List(
        (0..items.len())
            .map(|i| value_at(items, i).unwrap_or(Value::Nil))
            .collect(),
    )
}

/// The rows of `chunks`, taken (a chunk is written once).
pub fn take_rows(chunks: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<Put>>> {
    let mut out = Vec::new();
    for c in chunks.try_iter()? {
        let c = c?;
        let chunk = c
            .cast::<PutChunk>()
            .map_err(|_| invalid_argument("put_chunks takes PutChunk objects"))?;
        let rows = chunk
            .get()
            .rows
            .lock()
            .take()
            .ok_or_else(|| invalid_argument("this chunk was written already"))?;
        out.push(rows);
    }
    Ok(out)
}
