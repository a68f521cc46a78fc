//! Column builders: append crate values row by row, finish as an Arrow array.
//!
//! A column is built in its *natural* type (int64, float64, utf8, binary, bool, list, map,
//! struct, null), the one a value converts to without loss; `natural` maps any supported
//! target type to it, and the caller casts the finished array to the target when they differ
//! (int32, timestamps, large strings, ...).

use std::sync::Arc;

use aerospike::Value;
use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Float64Builder, Int64Builder, StringBuilder,
};
use arrow_array::{ArrayRef, ListArray, MapArray, NullArray, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef, Fields};

use super::kind::Kind;

/// A value that does not fit its column: where (relative to the column), what it was, what
/// the column holds.
#[derive(Debug)]
pub struct Misfit {
    pub path: String,
    pub found: &'static str,
    pub expected: String,
}

impl Misfit {
    fn new(found: &Value, expected: &DataType) -> Misfit {
        Misfit {
            path: String::new(),
            found: Kind::name_of(found),
            expected: expected.to_string(),
        }
    }

    fn within(mut self, segment: &str) -> Misfit {
        self.path.insert_str(0, segment);
        self
    }
}

/// The type a column of `target` is built in; `Err` for a type values cannot become.
pub fn natural(target: &DataType) -> Result<DataType, String> {
    use DataType as D;
    let item = |f: &FieldRef| -> Result<FieldRef, String> {
        Ok(Field::new(f.name(), natural(f.data_type())?, true).into())
    };
    Ok(match target {
        D::Null => D::Null,
        D::Boolean => D::Boolean,
        t if t.is_integer() || t.is_temporal() => D::Int64,
        t if t.is_floating() || matches!(t, D::Decimal128(..) | D::Decimal256(..)) => D::Float64,
        D::Utf8 | D::LargeUtf8 | D::Utf8View => D::Utf8,
        D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => D::Binary,
        D::List(f) | D::LargeList(f) | D::FixedSizeList(f, _) | D::ListView(f) => D::List(item(f)?),
        D::Map(entries, _) => {
            let D::Struct(kv) = entries.data_type() else {
                return Err(format!(
                    "a map type whose entries are {}",
                    entries.data_type()
                ));
            };
            if kv.len() != 2 {
                return Err("a map type whose entries are not (key, value)".into());
            }
            let key = Field::new(kv[0].name(), natural(kv[0].data_type())?, false);
            let value = Field::new(kv[1].name(), natural(kv[1].data_type())?, true);
            let entries = Field::new(
                entries.name(),
                D::Struct(Fields::from(vec![key, value])),
                false,
            );
            D::Map(entries.into(), false)
        }
        D::Struct(fields) => D::Struct(fields.iter().map(item).collect::<Result<Fields, _>>()?),
        other => return Err(format!("no value converts to Arrow type {other}")),
    })
}

/// One column being built, in its natural type.
pub enum Column {
    Null(usize),
    Bool(BooleanBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Str(StringBuilder),
    /// A string column taking any value, as its text (`mixed_types="str"`).
    Text(StringBuilder),
    Bytes(BinaryBuilder),
    List(Box<Nested>),
    Map(Box<Nested>),
    Struct(Box<Record>),
}

/// A list or map column: offsets into its child (the items, or the entries' keys and values).
pub struct Nested {
    field: FieldRef,
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
    children: Vec<Column>,
    entry_fields: Fields,
}

/// A struct column: one child per field, filled from a map's string keys.
pub struct Record {
    fields: Fields,
    children: Vec<Column>,
    nulls: NullBufferBuilder,
    len: usize,
    /// Keys that are not fields are skipped (a given schema) rather than refused.
    lenient: bool,
}

impl Column {
    /// An empty top-level column of natural type `dt` under `layout`: a string column takes
    /// any value as text when the layout says so.
    pub(super) fn top(dt: &DataType, layout: &super::convert::Layout) -> Column {
        match dt {
            DataType::Utf8 if layout.text => Column::Text(StringBuilder::new()),
            _ => Column::new(dt, layout.lenient),
        }
    }

    /// An empty column of natural type `dt` (see [`natural`]).
    pub fn new(dt: &DataType, lenient: bool) -> Column {
        match dt {
            DataType::Boolean => Column::Bool(BooleanBuilder::new()),
            DataType::Int64 => Column::Int(Int64Builder::new()),
            DataType::Float64 => Column::Float(Float64Builder::new()),
            DataType::Utf8 => Column::Str(StringBuilder::new()),
            DataType::Binary => Column::Bytes(BinaryBuilder::new()),
            DataType::List(f) => Column::List(Box::new(Nested {
                field: f.clone(),
                offsets: vec![0],
                nulls: NullBufferBuilder::new(0),
                children: vec![Column::new(f.data_type(), lenient)],
                entry_fields: Fields::empty(),
            })),
            DataType::Map(f, _) => {
                let kv = match f.data_type() {
                    DataType::Struct(kv) => kv.clone(),
                    _ => Fields::empty(),
                };
                Column::Map(Box::new(Nested {
                    field: f.clone(),
                    offsets: vec![0],
                    nulls: NullBufferBuilder::new(0),
                    children: kv
                        .iter()
                        .map(|f| Column::new(f.data_type(), lenient))
                        .collect(),
                    entry_fields: kv,
                }))
            }
            DataType::Struct(fields) => Column::Struct(Box::new(Record {
                fields: fields.clone(),
                children: fields
                    .iter()
                    .map(|f| Column::new(f.data_type(), lenient))
                    .collect(),
                nulls: NullBufferBuilder::new(0),
                len: 0,
                lenient,
            })),
            _ => Column::Null(0),
        }
    }

    /// Append one row: `None` (or nil) is a null.
    pub fn append(&mut self, v: Option<&Value>) -> Result<(), Misfit> {
        let v = match v {
            None | Some(Value::Nil) => {
                self.append_null();
                return Ok(());
            }
            Some(v) => v,
        };
        match (self, v) {
            (Column::Bool(b), Value::Bool(x)) => b.append_value(*x),
            (Column::Int(b), Value::Int(x)) => b.append_value(*x),
            (Column::Float(b), Value::Float(x)) => b.append_value(f64::from(x)),
            #[allow(clippy::cast_precision_loss)]
            (Column::Float(b), Value::Int(x)) => b.append_value(*x as f64),
            (Column::Str(b) | Column::Text(b), Value::String(s) | Value::GeoJson(s)) => {
                b.append_value(s);
            }
            (Column::Text(b), v) => b.append_value(text_of(v)),
            (Column::Bytes(b), Value::Blob(x) | Value::Hll(x)) => b.append_value(x),
            (Column::List(n), Value::List(items) | Value::MultiResult(items)) => {
                for item in items {
                    n.children[0]
                        .append(Some(item))
                        .map_err(|m| m.within("[]"))?;
                }
                n.close_row()?;
            }
            (Column::Map(n), v) if is_map(v) => {
                for_pairs(v, |k, v| {
                    n.children[0]
                        .append(Some(k))
                        .map_err(|m| m.within(" key"))?;
                    n.children[1].append(Some(v)).map_err(|m| m.within("{}"))
                })?;
                n.close_row()?;
            }
            (Column::Struct(r), v) if is_map(v) => r.append(v)?,
            (col, v) => return Err(Misfit::new(v, &col.data_type())),
        }
        Ok(())
    }

    fn append_null(&mut self) {
        match self {
            Column::Null(n) => *n += 1,
            Column::Bool(b) => b.append_null(),
            Column::Int(b) => b.append_null(),
            Column::Float(b) => b.append_null(),
            Column::Str(b) | Column::Text(b) => b.append_null(),
            Column::Bytes(b) => b.append_null(),
            Column::List(n) | Column::Map(n) => {
                n.offsets.push(*n.offsets.last().unwrap_or(&0));
                n.nulls.append_null();
            }
            Column::Struct(r) => {
                for c in &mut r.children {
                    c.append_null();
                }
                r.nulls.append_null();
                r.len += 1;
            }
        }
    }

    /// The natural type this column builds.
    pub fn data_type(&self) -> DataType {
        match self {
            Column::Null(_) => DataType::Null,
            Column::Bool(_) => DataType::Boolean,
            Column::Int(_) => DataType::Int64,
            Column::Float(_) => DataType::Float64,
            Column::Str(_) | Column::Text(_) => DataType::Utf8,
            Column::Bytes(_) => DataType::Binary,
            Column::List(n) => DataType::List(n.field.clone()),
            Column::Map(n) => DataType::Map(n.field.clone(), false),
            Column::Struct(r) => DataType::Struct(r.fields.clone()),
        }
    }

    /// The rows appended so far as an array; the column starts empty again.
    pub fn finish(&mut self) -> Result<ArrayRef, arrow_schema::ArrowError> {
        Ok(match self {
            Column::Null(n) => Arc::new(NullArray::new(std::mem::take(n))),
            Column::Bool(b) => Arc::new(b.finish()),
            Column::Int(b) => Arc::new(b.finish()),
            Column::Float(b) => Arc::new(b.finish()),
            Column::Str(b) | Column::Text(b) => Arc::new(b.finish()),
            Column::Bytes(b) => Arc::new(b.finish()),
            Column::List(n) => {
                let (offsets, nulls) = n.take_offsets();
                let items = n.children[0].finish()?;
                Arc::new(ListArray::try_new(n.field.clone(), offsets, items, nulls)?)
            }
            Column::Map(n) => {
                let (offsets, nulls) = n.take_offsets();
                let keys = n.children[0].finish()?;
                let values = n.children[1].finish()?;
                let entries =
                    StructArray::try_new(n.entry_fields.clone(), vec![keys, values], None)?;
                Arc::new(MapArray::try_new(
                    n.field.clone(),
                    offsets,
                    entries,
                    nulls,
                    false,
                )?)
            }
            Column::Struct(r) => {
                let children = r
                    .children
                    .iter_mut()
                    .map(Column::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                let len = std::mem::take(&mut r.len);
                Arc::new(StructArray::try_new_with_length(
                    r.fields.clone(),
                    children,
                    r.nulls.finish(),
                    len,
                )?)
            }
        })
    }
}

impl Nested {
    fn close_row(&mut self) -> Result<(), Misfit> {
        let end = i32::try_from(self.children[0].len()).map_err(|_| Misfit {
            path: String::new(),
            found: "more than 2^31 items",
            expected: "a list chunk".into(),
        })?;
        self.offsets.push(end);
        self.nulls.append_non_null();
        Ok(())
    }

    fn take_offsets(&mut self) -> (OffsetBuffer<i32>, Option<arrow_buffer::NullBuffer>) {
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        (
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            self.nulls.finish(),
        )
    }
}

impl Record {
    fn append(&mut self, v: &Value) -> Result<(), Misfit> {
        let mut seen = vec![false; self.fields.len()];
        for_pairs(v, |k, v| {
            let Value::String(name) = k else {
                return Err(Misfit::new(k, &DataType::Utf8).within(" key"));
            };
            match self.fields.iter().position(|f| f.name() == name) {
                Some(i) => {
                    seen[i] = true;
                    self.children[i]
                        .append(Some(v))
                        .map_err(|m| m.within(&format!(".{name}")))
                }
                None if self.lenient => Ok(()),
                None => Err(Misfit {
                    path: format!(".{name}"),
                    found: "a key that is not a field",
                    expected: DataType::Struct(self.fields.clone()).to_string(),
                }),
            }
        })?;
        for (i, seen) in seen.into_iter().enumerate() {
            if !seen {
                self.children[i].append_null();
            }
        }
        self.nulls.append_non_null();
        self.len += 1;
        Ok(())
    }
}

impl Column {
    /// Rows (or items) appended so far.
    fn len(&self) -> usize {
        use arrow_array::builder::ArrayBuilder;
        match self {
            Column::Null(n) => *n,
            Column::Bool(b) => b.len(),
            Column::Int(b) => b.len(),
            Column::Float(b) => b.len(),
            Column::Str(b) | Column::Text(b) => b.len(),
            Column::Bytes(b) => b.len(),
            Column::List(n) | Column::Map(n) => n.offsets.len() - 1,
            Column::Struct(r) => r.len,
        }
    }
}

fn is_map(v: &Value) -> bool {
    matches!(
        v,
        Value::HashMap(_) | Value::OrderedMap(_) | Value::SortedMap(_) | Value::KeyValueList(_)
    )
}

fn for_pairs(
    v: &Value,
    mut f: impl FnMut(&Value, &Value) -> Result<(), Misfit>,
) -> Result<(), Misfit> {
    match v {
        Value::HashMap(m) => m.iter().try_for_each(|(k, v)| f(k, v)),
        Value::OrderedMap(m) => m.iter().try_for_each(|(k, v)| f(k, v)),
        Value::SortedMap(m) => m.iter().try_for_each(|(k, v)| f(k, v)),
        Value::KeyValueList(kv) => kv.iter().try_for_each(|(k, v)| f(k, v)),
        _ => Ok(()),
    }
}

/// A value as text, as Arrow displays it: strings as they are, numbers and booleans as
/// written, bytes in hex, lists as `[a, b]`, maps as `{k: v}`.
fn text_of(v: &Value) -> String {
    let mut out = String::new();
    write_text(v, &mut out, true);
    out
}

fn write_text(v: &Value, out: &mut String, top: bool) {
    use std::fmt::Write as _;
    match v {
        Value::String(s) | Value::GeoJson(s) => out.push_str(s),
        Value::Nil => out.push_str(if top { "" } else { "null" }),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => {
            let _ = write!(out, "{:?}", f64::from(f));
        }
        Value::Blob(b) | Value::Hll(b) => {
            for byte in b {
                let _ = write!(out, "{byte:02x}");
            }
        }
        Value::List(items) | Value::MultiResult(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_text(item, out, false);
            }
            out.push(']');
        }
        v if is_map(v) => {
            out.push('{');
            let mut first = true;
            let _ = for_pairs(v, |k, val| {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                write_text(k, out, false);
                out.push_str(": ");
                write_text(val, out, false);
                Ok(())
            });
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}
