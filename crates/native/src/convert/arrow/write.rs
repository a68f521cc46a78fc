//! Arrow input: the rows of a record batch stream become records, read column by column with
//! no Python object per cell, and are written in batches.
//!
//! `ArrowWriter` holds the stream and hands it out in `PutChunk`s of rows; `put_chunks` writes
//! chunks (the wire path for plain puts, the crate's batch otherwise) and reports the rows
//! written and each failed row with its key and error.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use aerospike::{BatchOperation, Bin, Key, Value};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, SchemaRef};
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3_arrow::input::AnyRecordBatch;

use crate::errors::invalid_argument;
use crate::exec::completion::{IntoPy, OpResult};
use crate::exec::routes::RuntimeClient;
use crate::py::policy::Natives;
use crate::request::batch::{Answer, Ask, Job};
use crate::request::retry::{self, Next};

/// The longest bin name a server takes.
const MAX_BIN_NAME: usize = 15;

/// One row to write: its key and bins (a null cell writes no bin).
pub struct Put {
    key: Key,
    bins: Vec<Bin>,
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

/// A row that failed: its key, result code, message and whether it may have been applied.
struct Failed {
    key: Key,
    code: i32,
    message: String,
    in_doubt: bool,
}

/// What writing some chunks did.
#[derive(Default)]
pub struct Report {
    written: u64,
    failed: Vec<Failed>,
}

impl IntoPy for Report {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let failed = PyList::empty(py);
        for f in self.failed {
            let key = crate::convert::values::from_key(py, &f.key)?;
            let error = crate::errors::error_for_code(
                py,
                f.code,
                &f.message,
                f.in_doubt,
                Some(key.clone().into_any()),
            )?;
            failed.append(PyTuple::new(py, [key.into_any(), error])?)?;
        }
        Ok(PyTuple::new(
            py,
            [
                self.written.into_pyobject(py)?.into_any(),
                failed.into_any(),
            ],
        )?
        .into_any()
        .unbind())
    }
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

/// Write `chunks`, `concurrency` of them at a time.
pub async fn put_chunks(
    c: RuntimeClient,
    p: Arc<Natives>,
    chunks: Vec<Vec<Put>>,
    concurrency: usize,
) -> OpResult<Report> {
    use futures::StreamExt;
    let mut runs = futures::stream::iter(chunks.into_iter().map(|rows| write(&c, &p, rows)))
        .buffer_unordered(concurrency.max(1));
    let mut report = Report::default();
    while let Some(part) = runs.next().await {
        report.written += part.written;
        report.failed.extend(part.failed);
    }
    Ok(report)
}

/// Write one chunk: plain puts on the wire path, the rest (and the rows it missed) through the
/// crate's batch.
async fn write(c: &RuntimeClient, p: &Natives, rows: Vec<Put>) -> Report {
    let mut report = Report::default();
    let mut rest: Vec<(Put, bool)> = Vec::new();
    let wire = c.wire.enabled()
        && p.wire_batch_put
        && rows
            .iter()
            .all(|r| crate::request::single::writable(&r.bins));
    if wire && !rows.is_empty() {
        let started = Instant::now();
        let (ttl, send_key) = (
            p.batch_write_row.expiration.into(),
            p.batch_write_row.send_key,
        );
        let asks: Vec<Ask> = rows
            .into_iter()
            .map(|r| Ask {
                key: r.key,
                job: Job::Put(r.bins),
                ttl,
                send_key,
            })
            .collect();
        let answers =
            crate::request::batch::read(&c.wire, &c.crate_client, &p.batch_write, &asks).await;
        for (ask, answer) in asks.into_iter().zip(answers) {
            let Job::Put(bins) = ask.job else { continue };
            let put = Put { key: ask.key, bins };
            match answer {
                Answer::Written(_) | Answer::Found(_) | Answer::TooDeep(_) => report.written += 1,
                Answer::NotFound => report.failed.push(refused(put.key, 2, "key not found")),
                Answer::Refused { code, node } | Answer::Stopped { code, node } => {
                    let message = format!("the server refused the write ({node})");
                    report
                        .failed
                        .push(refused(put.key, i32::from(code), &message));
                }
                Answer::NoResponse => rest.push((put, true)),
                Answer::Missed(miss) => match retry::after(
                    miss,
                    &p.batch_write,
                    started,
                    true,
                    crate::request::retry::Made::first(&p.batch_write),
                ) {
                    Next::Crate { in_doubt, .. } => rest.push((put, in_doubt)),
                    Next::Fail(f) => report.failed.push(Failed {
                        key: put.key,
                        code: f.code,
                        message: f.message,
                        in_doubt: f.in_doubt,
                    }),
                },
            }
        }
    } else {
        rest = rows.into_iter().map(|r| (r, false)).collect();
    }
    if rest.is_empty() {
        return report;
    }
    let (ops, doubts): (Vec<BatchOperation>, Vec<bool>) = rest
        .into_iter()
        .map(|(r, d)| {
            let ops: Vec<_> = r.bins.iter().map(aerospike::operations::put).collect();
            (BatchOperation::write(&p.batch_write_row, r.key, ops), d)
        })
        .unzip();
    let (ops, err) = match crate::request::calls::crate_batch(c, &p.batch_write, ops).await {
        Ok(ran) => ran,
        Err(_) => (
            Vec::new(),
            Some(aerospike::Error::client_error(
                "the batch's task ended without a result",
            )),
        ),
    };
    for (op, earlier_doubt) in ops.into_iter().zip(doubts) {
        let code = op.result_code().map(|c| i32::from(u8::from(c)));
        let record = op.batch_record();
        match (code, record.error(), &err) {
            (Some(0), _, _) => report.written += 1,
            (_, Some(e), _) | (None, None, Some(e)) => report.failed.push(Failed {
                key: record.key.clone(),
                code: crate::errors::code_of(e),
                message: e.to_string(),
                in_doubt: earlier_doubt || crate::errors::in_doubt(e),
            }),
            (Some(code), None, _) => report.failed.push(Failed {
                key: record.key.clone(),
                code,
                message: "the server refused the write".into(),
                in_doubt: earlier_doubt,
            }),
            (None, None, None) => report.failed.push(Failed {
                key: record.key.clone(),
                code: -1,
                message: "no answer for this row".into(),
                in_doubt: true,
            }),
        }
    }
    report
}

fn refused(key: Key, code: i32, message: &str) -> Failed {
    Failed {
        key,
        code,
        message: message.to_owned(),
        in_doubt: false,
    }
}
