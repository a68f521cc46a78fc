//! Whole-table reads (`to_arrow()` without a schema): a chunk that does not fit the columns
//! inferred so far widens them instead of failing. A bin first seen later becomes a new
//! column, a column of nulls takes the type of the values that came, ints among floats make
//! a float column. Batches converted before are brought to the final columns by
//! [`conform`] when the table is assembled.

use std::sync::Arc;

use aerospike::Record as AsRecord;
use arrow_array::cast::AsArray;
use arrow_array::{
    new_null_array, Array, ArrayRef, ListArray, MapArray, RecordBatch, StringArray, StructArray,
};
use arrow_cast::cast;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use super::column::natural;
use super::convert::{infer_kinds, key_kind, ConvertError, Converter, Layout, Row, Source};
use super::kind::Kind;
use crate::convert::chunk::Batch;
use crate::convert::WireChunk;

impl Converter {
    /// Convert one chunk; when the columns may widen and the chunk does not fit them, widen
    /// them with the chunk's own and convert it again. A value that fits neither keeps the
    /// first error, which names its bin.
    pub fn convert_batch(&mut self, batch: &Batch) -> Result<RecordBatch, ConvertError> {
        let first = self.convert_once(batch);
        match first {
            Err(e) if self.widens() && self.has_layout() => {
                let decoded;
                let records: &[AsRecord] = match batch {
                    Batch::Crate(records) => records,
                    Batch::Wire(chunk) => {
                        decoded = wire_records(chunk)?;
                        &decoded
                    }
                };
                let rows: Vec<Row<'_>> = records.iter().map(Row::of).collect();
                if self.widen_with(&rows).is_err() {
                    return Err(e);
                }
                self.convert_once(batch)
            }
            other => other,
        }
    }

    fn convert_once(&mut self, batch: &Batch) -> Result<RecordBatch, ConvertError> {
        match batch {
            Batch::Crate(records) => {
                let rows: Vec<Row<'_>> = records.iter().map(Row::of).collect();
                self.convert(&rows)
            }
            Batch::Wire(chunk) => self.convert_wire(chunk),
        }
    }

    /// Widen the columns to fit `rows` too: each column's type is inferred again from what
    /// its type holds and the values of `rows`; bins first seen in `rows` become columns.
    fn widen_with(&mut self, rows: &[Row<'_>]) -> Result<(), ConvertError> {
        let Some(old) = self.layout() else {
            return Err("no layout".into());
        };
        let mut kinds = infer_kinds(rows, self.selected());
        let mut fields: Vec<Field> = Vec::with_capacity(old.sources.len());
        let mut sources = Vec::with_capacity(old.sources.len());
        for (field, source) in old.schema.fields().iter().zip(&old.sources) {
            let (new, what) = match source {
                Source::Bin(name) => match kinds.iter().position(|(n, _)| n == name) {
                    Some(i) => (kinds.remove(i).1, format!("bin '{name}'")),
                    None => (Kind::Empty, String::new()),
                },
                Source::Key => (key_kind(rows), "the key column".to_owned()),
                _ => (Kind::Empty, String::new()),
            };
            let dt = match new {
                Kind::Empty => field.data_type().clone(),
                new => match Kind::of_type(field.data_type()).merge(new).resolve(&what) {
                    Ok(dt) => dt,
                    Err(_) if old.text && matches!(source, Source::Bin(_)) => DataType::Utf8,
                    Err(e) => return Err(e),
                },
            };
            fields.push(field.as_ref().clone().with_data_type(dt));
            sources.push(source.clone());
        }
        for (name, kind) in kinds {
            let dt = match kind.resolve(&format!("bin '{name}'")) {
                Ok(dt) => dt,
                Err(_) if old.text => DataType::Utf8,
                Err(e) => return Err(e),
            };
            fields.push(Field::new(&name, dt, true));
            sources.push(Source::Bin(name));
        }
        let naturals = fields
            .iter()
            .map(|f| natural(f.data_type()))
            .collect::<Result<Vec<_>, _>>()?;
        let widened = Layout {
            schema: Arc::new(Schema::new(fields)),
            sources,
            naturals,
            extra_bins_ok: old.extra_bins_ok,
            lenient: old.lenient,
            text: old.text,
            origin: "the records read so far".to_owned(),
        };
        self.set_layout(widened);
        Ok(())
    }
}

/// A wire chunk's records decoded, for inferring their columns.
pub fn wire_records(chunk: &WireChunk) -> Result<Vec<AsRecord>, ConvertError> {
    chunk
        .records()
        .iter()
        .map(|r| chunk.to_record(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|(b, bin)| super::from_wire::bad_message(&b, bin.as_deref()))
}

/// `batch` with the columns of `schema`: its own cast to their types, nulls for the others.
/// Fails if `batch` has a column `schema` lacks.
pub fn conform(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
    if batch.schema() == *schema {
        return Ok(batch.clone());
    }
    let own = batch.schema();
    if let Some(f) = own
        .fields()
        .iter()
        .find(|f| schema.field_with_name(f.name()).is_err())
    {
        return Err(ArrowError::SchemaError(format!(
            "column '{}' is not in the table's schema",
            f.name()
        )));
    }
    let columns = schema
        .fields()
        .iter()
        .map(|f| match own.index_of(f.name()) {
            Ok(i) => conform_array(batch.column(i), f.data_type()),
            Err(_) => Ok(new_null_array(f.data_type(), batch.num_rows())),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(schema.clone(), columns, &options)
}

/// `array` as type `to`, nested columns matched by field name.
fn conform_array(array: &ArrayRef, to: &DataType) -> Result<ArrayRef, ArrowError> {
    use DataType as D;
    if array.data_type() == to {
        return Ok(array.clone());
    }
    Ok(match (array.data_type(), to) {
        (D::Null, _) => new_null_array(to, array.len()),
        (D::Struct(_), D::Struct(fields)) => {
            let s = array.as_struct();
            let children = fields
                .iter()
                .map(|f| match s.column_by_name(f.name()) {
                    Some(c) => conform_array(c, f.data_type()),
                    None => Ok(new_null_array(f.data_type(), s.len())),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(StructArray::try_new(
                fields.clone(),
                children,
                s.nulls().cloned(),
            )?)
        }
        (D::Map(..), D::Struct(fields)) => {
            // every map was empty: a struct of nulls, null where the map was
            let children = fields
                .iter()
                .map(|f| new_null_array(f.data_type(), array.len()))
                .collect();
            Arc::new(StructArray::try_new(
                fields.clone(),
                children,
                array.nulls().cloned(),
            )?)
        }
        (D::List(_), D::List(item)) => {
            let l = array.as_list::<i32>();
            let values = conform_array(l.values(), item.data_type())?;
            Arc::new(ListArray::try_new(
                item.clone(),
                l.offsets().clone(),
                values,
                l.nulls().cloned(),
            )?)
        }
        (D::Map(..), D::Map(entries, sorted)) => {
            let m = array.as_map();
            let entries_array: ArrayRef = Arc::new(m.entries().clone());
            let conformed = conform_array(&entries_array, entries.data_type())?;
            Arc::new(MapArray::try_new(
                entries.clone(),
                m.offsets().clone(),
                conformed.as_struct().clone(),
                m.nulls().cloned(),
                *sorted,
            )?)
        }
        // Lists and maps have no cast to strings: their text, as a string column shows it.
        (D::List(_) | D::Map(..) | D::Struct(_), D::Utf8) => {
            let formatter = ArrayFormatter::try_new(array.as_ref(), &FormatOptions::default())?;
            let texts: StringArray = (0..array.len())
                .map(|i| array.is_valid(i).then(|| formatter.value(i).to_string()))
                .collect();
            Arc::new(texts)
        }
        _ => cast(array, to)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::arrow::spec::Spec;
    use aerospike::Value;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Float64Type;

    fn chunk(recs: Vec<Vec<(&str, Value)>>) -> Batch {
        let recs = recs
            .into_iter()
            .map(|bins| {
                let bins = bins.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                AsRecord::new(None, bins, None, 1, 0)
            })
            .collect();
        Batch::Crate(recs)
    }

    fn map(pairs: Vec<(&str, Value)>) -> Value {
        Value::HashMap(
            pairs
                .into_iter()
                .map(|(k, v)| (Value::from(k), v))
                .collect(),
        )
    }

    #[test]
    fn later_chunks_widen_the_columns_and_earlier_batches_conform() {
        let mut c = Converter::widening(Spec::default());
        let first = c
            .convert_batch(&chunk(vec![vec![
                ("n", Value::Int(1)),
                ("l", Value::List(vec![])),
            ]]))
            .unwrap();
        let second = c
            .convert_batch(&chunk(vec![vec![
                ("n", Value::from(2.5)),
                ("l", Value::List(vec![Value::from("x")])),
                ("new", Value::from("y")),
            ]]))
            .unwrap();
        let schema = second.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["n", "l", "new"]);
        assert_eq!(schema.field(0).data_type(), &DataType::Float64);
        let first = conform(&first, &schema).unwrap();
        assert_eq!(first.column(0).as_primitive::<Float64Type>().value(0), 1.0);
        assert_eq!(first.column(2).null_count(), 1);
        assert_eq!(first.column(1).data_type(), schema.field(1).data_type());
    }

    #[test]
    fn a_struct_gains_fields_but_a_map_never_becomes_a_struct() {
        let mut c = Converter::widening(Spec::default());
        let mixed = |extra: Option<(&'static str, Value)>| {
            let mut pairs = vec![("a", Value::Int(1)), ("b", Value::from("x"))];
            pairs.extend(extra);
            vec![("s", map(pairs))]
        };
        let first = c.convert_batch(&chunk(vec![mixed(None)])).unwrap();
        let second = c
            .convert_batch(&chunk(vec![mixed(Some(("c", Value::Bool(true))))]))
            .unwrap();
        let DataType::Struct(fields) = second.schema().field(0).data_type().clone() else {
            panic!("not a struct: {:?}", second.schema());
        };
        assert_eq!(fields.len(), 3);
        let first = conform(&first, &second.schema()).unwrap();
        assert_eq!(first.column(0).as_struct().column(2).null_count(), 1);

        let mut c = Converter::widening(Spec::default());
        c.convert_batch(&chunk(vec![vec![("m", map(vec![("a", Value::Int(1))]))]]))
            .unwrap();
        let err = c
            .convert_batch(&chunk(vec![mixed(None)
                .into_iter()
                .map(|(_, v)| ("m", v))
                .collect()]))
            .unwrap_err();
        assert!(err.contains("bin 'm'"), "{err}");
    }

    #[test]
    fn without_widening_or_with_a_schema_the_first_chunk_fixes_the_columns() {
        let later = || chunk(vec![vec![("b", Value::Int(1))]]);
        let mut c = Converter::new(Spec::default());
        c.convert_batch(&chunk(vec![vec![("a", Value::Int(1))]]))
            .unwrap();
        assert!(c.convert_batch(&later()).is_err());
        let mut c = Converter::widening(Spec::default());
        c.convert_batch(&chunk(vec![vec![("a", Value::Int(1))]]))
            .unwrap();
        assert_eq!(c.convert_batch(&later()).unwrap().num_columns(), 2);
    }
}
