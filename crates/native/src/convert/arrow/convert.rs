//! Records to Arrow record batches: the columns (metadata, then bins; a given schema orders
//! them all) are fixed by a given schema or inferred from the first chunk, and every later
//! chunk must fit them.

use std::sync::Arc;

use aerospike::{Key, Record as AsRecord, Value};
use arrow_array::builder::{FixedSizeBinaryBuilder, UInt32Builder};
use arrow_array::{ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::column::{natural, Column, Misfit};
use super::kind::Kind;
use super::spec::Spec;

/// One row: the record and the key it was read under (its own key for scans). A batch read's
/// missing record is a row too: an empty record, `found` false, null but for its key.
pub struct Row<'a> {
    pub key: Option<&'a Key>,
    pub rec: &'a AsRecord,
    pub found: bool,
}

impl<'a> Row<'a> {
    /// A record read.
    pub fn of(rec: &'a AsRecord) -> Self {
        Row {
            key: None,
            rec,
            found: true,
        }
    }
}

/// Where a column's values come from.
#[derive(Clone)]
pub(super) enum Source {
    Key,
    Digest,
    Generation,
    Ttl,
    Found,
    Bin(String),
}

/// The fixed columns: the schema handed out and, per column, its source and natural type.
pub(super) struct Layout {
    pub(super) schema: SchemaRef,
    pub(super) sources: Vec<Source>,
    pub(super) naturals: Vec<DataType>,
    /// Records may hold bins that are not columns (a given schema or a selection).
    pub(super) extra_bins_ok: bool,
    /// Map keys that are not fields of a struct column are skipped (a given schema).
    pub(super) lenient: bool,
    /// String columns take any value, as its text (`mixed_types="str"`).
    pub(super) text: bool,
    /// What fixed the columns, for messages.
    pub(super) origin: String,
}

/// Converts chunks of records to record batches with one schema.
pub struct Converter {
    spec: Spec,
    layout: Option<Layout>,
    /// Inferred columns widen to fit later chunks (`widen.rs`) instead of failing.
    widen: bool,
}

/// Why a chunk could not be converted.
pub type ConvertError = String;

impl Converter {
    pub fn new(spec: Spec) -> Converter {
        Converter {
            spec,
            layout: None,
            widen: false,
        }
    }

    /// A converter whose inferred columns widen to fit every chunk (for one whole table).
    pub fn widening(spec: Spec) -> Converter {
        Converter {
            widen: true,
            ..Converter::new(spec)
        }
    }

    /// Whether a chunk that does not fit may widen the columns (inferred ones only).
    pub(super) fn widens(&self) -> bool {
        self.widen && self.spec.schema.is_none()
    }

    /// Whether a given schema types the bin columns.
    pub(super) fn has_schema(&self) -> bool {
        self.spec.schema.is_some()
    }

    /// The bins selected, if the read selects some.
    pub(super) fn selected(&self) -> Option<&[String]> {
        self.spec.bins.as_deref()
    }

    pub(super) fn set_layout(&mut self, layout: Layout) {
        self.layout = Some(layout);
    }

    /// Whether the columns are fixed (by a schema, or by the first chunk).
    pub(super) fn has_layout(&self) -> bool {
        self.layout.is_some()
    }

    pub(super) fn layout(&self) -> Option<&Layout> {
        self.layout.as_ref()
    }

    /// The schema: given, or inferred from `rows` if this is the first chunk.
    pub fn schema(&mut self, rows: &[Row<'_>]) -> Result<SchemaRef, ConvertError> {
        if self.layout.is_none() {
            let sample = match self.spec.schema {
                Some(_) => Sample::keys_of(rows),
                None => Sample::of(rows, self.selected()),
            };
            self.layout = Some(self.lay_out(sample)?);
        }
        self.layout
            .as_ref()
            .map(|l| l.schema.clone())
            .ok_or_else(|| "no layout".to_owned())
    }

    /// Convert one chunk.
    pub fn convert(&mut self, rows: &[Row<'_>]) -> Result<RecordBatch, ConvertError> {
        let schema = self.schema(rows)?;
        let Some(layout) = &self.layout else {
            return Err("no layout".into());
        };
        let mut columns = Vec::with_capacity(layout.sources.len());
        let mut matched = vec![0usize; rows.len()];
        let mut bin_slot = 0;
        for (i, (source, natural)) in layout.sources.iter().zip(&layout.naturals).enumerate() {
            let target = schema.field(i);
            let array = match source {
                Source::Digest => digests(rows),
                Source::Generation => {
                    uint32s(rows.iter().map(|r| r.found.then_some(r.rec.generation)))
                }
                Source::Ttl => uint32s(rows.iter().map(|r| ttl(r.rec).filter(|_| r.found))),
                Source::Found => {
                    Arc::new(BooleanArray::from_iter(rows.iter().map(|r| Some(r.found))))
                }
                Source::Key => fill(natural, layout, rows.iter().map(user_key), &mut || {
                    format!("the {} column (user keys)", target.name())
                })?,
                Source::Bin(name) => {
                    let slot = bin_slot;
                    bin_slot += 1;
                    let values = rows.iter().zip(matched.iter_mut()).map(|(r, m)| {
                        let v = bin(r.rec, name, slot);
                        *m += usize::from(v.is_some());
                        v
                    });
                    fill(natural, layout, values, &mut || format!("bin '{name}'"))?
                }
            };
            columns.push(cast_to(array, target, &layout.origin)?);
        }
        if !layout.extra_bins_ok {
            check_no_new_bins(rows, layout, &matched)?;
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows.len()));
        RecordBatch::try_new_with_options(schema, columns, &options).map_err(|e| e.to_string())
    }

    /// Fix the columns from what the first chunk holds (when this is the first chunk).
    pub(super) fn set_sample(&mut self, sample: Sample) -> Result<(), ConvertError> {
        if self.layout.is_none() {
            self.layout = Some(self.lay_out(sample)?);
        }
        Ok(())
    }

    fn lay_out(&self, sample: Sample) -> Result<Layout, ConvertError> {
        let spec = &self.spec;
        let given = spec.schema.as_deref();
        let origin = match given {
            Some(_) => "the given schema".to_owned(),
            None => format!("the first {} records", sample.rows),
        };
        let mut fields: Vec<Field> = Vec::new();
        let mut sources = Vec::new();
        let field_named = |name: &str| given.and_then(|s| s.field_with_name(name).ok()).cloned();
        let metas = [
            (&spec.key, Source::Key),
            (&spec.digest, Source::Digest),
            (&spec.generation, Source::Generation),
            (&spec.ttl, Source::Ttl),
            (&spec.found, Source::Found),
        ];
        for (name, source) in metas {
            let Some(name) = name else { continue };
            let field = match field_named(name) {
                Some(f) => f,
                None => Field::new(name, meta_type(&source, &sample.key, name)?, true),
            };
            fields.push(field);
            sources.push(source);
        }
        let is_meta = |n: &str| fields.iter().any(|f| f.name() == n);
        let bins: Vec<Field> = match given {
            Some(s) => s
                .fields()
                .iter()
                .filter(|f| !is_meta(f.name()))
                .map(|f| f.as_ref().clone())
                .collect(),
            None => infer_bins(sample.bins, sample.rows, spec.mixed_as_text)?,
        };
        for f in bins {
            if fields.iter().any(|m| m.name() == f.name()) {
                return Err(format!(
                    "bin '{}' has the name of a metadata column; name that column otherwise",
                    f.name()
                ));
            }
            sources.push(Source::Bin(f.name().clone()));
            fields.push(f);
        }
        if let Some(schema) = given {
            // A metadata column the schema names takes its place there, as the bins do.
            let mut columns: Vec<(Field, Source)> = fields.into_iter().zip(sources).collect();
            columns.sort_by_key(|(f, _)| schema.index_of(f.name()).ok());
            (fields, sources) = columns.into_iter().unzip();
        }
        let naturals = fields
            .iter()
            .map(|f| natural(f.data_type()).map_err(|e| format!("column '{}': {e}", f.name())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Layout {
            schema: Arc::new(Schema::new(fields)),
            sources,
            naturals,
            extra_bins_ok: given.is_some() || spec.bins.is_some(),
            lenient: given.is_some(),
            text: spec.mixed_as_text,
            origin,
        })
    }
}

/// What fixing the columns reads from the first chunk: what the values of each bin have in
/// common (bins in order of first appearance, or of the selection), the user keys' kind, and
/// how many records the chunk held.
pub(super) struct Sample {
    pub(super) bins: Vec<(String, Kind)>,
    pub(super) key: Kind,
    pub(super) rows: usize,
}

impl Sample {
    fn of(rows: &[Row<'_>], selected: Option<&[String]>) -> Sample {
        Sample {
            bins: infer_kinds(rows, selected),
            ..Sample::keys_of(rows)
        }
    }

    /// The keys only (a given schema types the bins).
    fn keys_of(rows: &[Row<'_>]) -> Sample {
        Sample {
            bins: Vec::new(),
            key: key_kind(rows),
            rows: rows.len(),
        }
    }
}

fn meta_type(source: &Source, key: &Kind, name: &str) -> Result<DataType, ConvertError> {
    Ok(match source {
        Source::Digest => DataType::FixedSizeBinary(20),
        Source::Generation | Source::Ttl => DataType::UInt32,
        Source::Found => DataType::Boolean,
        Source::Key => key.resolve(&format!("the {name} column (user keys)"))?,
        Source::Bin(_) => DataType::Null,
    })
}

/// Bin columns in order of first appearance (or of `selected`), typed by their values; with
/// `text`, a bin of no one type is a string column.
fn infer_bins(
    kinds: Vec<(String, Kind)>,
    rows: usize,
    text: bool,
) -> Result<Vec<Field>, ConvertError> {
    kinds
        .into_iter()
        .map(|(name, k)| {
            let dt = match k.resolve(&format!("bin '{name}'")) {
                Ok(dt) => dt,
                Err(_) if text => DataType::Utf8,
                Err(e) => {
                    return Err(format!(
                        "{e} in the first {} records; pass mixed_types='str' for a string \
                         column of their text, or a schema to choose its column type",
                        rows
                    ))
                }
            };
            Ok(Field::new(name, dt, true))
        })
        .collect()
}

/// What the values of each bin of `rows` have in common, bins in order of first appearance
/// (or of `selected`).
pub(super) fn infer_kinds(rows: &[Row<'_>], selected: Option<&[String]>) -> Vec<(String, Kind)> {
    let mut kinds: Vec<(String, Kind)> = selected
        .unwrap_or_default()
        .iter()
        .map(|n| (n.clone(), Kind::Empty))
        .collect();
    for row in rows {
        for (i, (name, v)) in row.rec.bins.iter().enumerate() {
            let slot = match kinds.get(i) {
                Some((n, _)) if n == name => Some(i),
                _ => kinds.iter().position(|(n, _)| n == name),
            };
            match slot {
                Some(s) => {
                    let k = std::mem::replace(&mut kinds[s].1, Kind::Empty);
                    kinds[s].1 = k.merge(Kind::of(v));
                }
                None if selected.is_some() => {}
                None => kinds.push((name.clone(), Kind::of(v))),
            }
        }
    }
    kinds
}

/// What the user keys of `rows` have in common.
pub(super) fn key_kind(rows: &[Row<'_>]) -> Kind {
    rows.iter()
        .filter_map(user_key)
        .fold(Kind::Empty, |k, v| k.merge(Kind::of(v)))
}

fn fill<'a>(
    natural: &DataType,
    layout: &Layout,
    values: impl Iterator<Item = Option<&'a Value>>,
    what: &mut dyn FnMut() -> String,
) -> Result<ArrayRef, ConvertError> {
    let mut col = Column::top(natural, layout);
    for v in values {
        col.append(v)
            .map_err(|m| misfit_message(&what(), &m, &layout.origin))?;
    }
    col.finish().map_err(|e| e.to_string())
}

pub(super) fn misfit_message(what: &str, m: &Misfit, origin: &str) -> String {
    let article = match m.found.as_bytes().first() {
        Some(b'a' | b'e' | b'i' | b'o' | b'u' | b'H') => "an",
        _ => "a",
    };
    let (what, path, found) = (what, &m.path, m.found);
    if m.expected == "Null" {
        return format!(
            "{what}{path} had no value in {origin}, so its column is of type null, and \
             {article} {found} value came later; pass a schema to choose the column types"
        );
    }
    format!(
        "{what}{path}: {article} {found} value does not fit its column of type {} (from \
         {origin}); pass a schema to choose the column types",
        m.expected
    )
}

pub(super) fn cast_to(
    array: ArrayRef,
    target: &Field,
    origin: &str,
) -> Result<ArrayRef, ConvertError> {
    if array.data_type() == target.data_type() {
        return Ok(array);
    }
    let options = CastOptions {
        safe: false,
        ..CastOptions::default()
    };
    cast_with_options(&array, target.data_type(), &options).map_err(|e| {
        format!(
            "column '{}' (type {} from {origin}): {e}",
            target.name(),
            target.data_type()
        )
    })
}

/// Every bin of every row went to a column (`matched` counts, per row, the bins that did).
fn check_no_new_bins(
    rows: &[Row<'_>],
    layout: &Layout,
    matched: &[usize],
) -> Result<(), ConvertError> {
    for (row, &m) in rows.iter().zip(matched) {
        if row.rec.bins.len() == m {
            continue;
        }
        if let Some(name) = row.rec.bins.keys().find(|n| !has_bin(layout, n)) {
            return Err(format!(
                "bin '{name}' is in no column: the columns come from {}; pass a schema \
                 or select() the bins",
                layout.origin
            ));
        }
    }
    Ok(())
}

fn has_bin(layout: &Layout, name: &str) -> bool {
    layout
        .sources
        .iter()
        .any(|s| matches!(s, Source::Bin(n) if n == name))
}

/// A record's bin `name`; records usually hold their bins in column order, so position `slot`
/// is tried before a hash lookup.
fn bin<'a>(rec: &'a AsRecord, name: &str, slot: usize) -> Option<&'a Value> {
    match rec.bins.get_index(slot) {
        Some((n, v)) if n == name => Some(v),
        _ => rec.bins.get(name),
    }
}

fn user_key<'a>(row: &Row<'a>) -> Option<&'a Value> {
    row.key.or(row.rec.key.as_ref())?.user_key()
}

fn ttl(rec: &AsRecord) -> Option<u32> {
    rec.time_to_live()
        .map(|d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX))
}

fn digests(rows: &[Row<'_>]) -> ArrayRef {
    let mut b = FixedSizeBinaryBuilder::with_capacity(rows.len(), 20);
    for r in rows {
        match r.key.or(r.rec.key.as_ref()) {
            Some(k) => b.append_value(k.digest()).unwrap_or_default(),
            None => b.append_null(),
        }
    }
    Arc::new(b.finish())
}

fn uint32s(values: impl Iterator<Item = Option<u32>>) -> ArrayRef {
    let mut b = UInt32Builder::new();
    b.extend(values);
    Arc::new(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;

    fn rec(bins: Vec<(&str, Value)>) -> AsRecord {
        let bins = bins.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        AsRecord::new(None, bins, None, 1, 0)
    }

    fn rows(recs: &[AsRecord]) -> Vec<Row<'_>> {
        recs.iter().map(Row::of).collect()
    }

    #[test]
    fn later_chunks_must_fit_the_first() {
        let mut c = Converter::new(Spec::default());
        let first = [rec(vec![("a", Value::Int(1))]), rec(vec![])];
        let batch = c.convert(&rows(&first)).unwrap();
        assert_eq!(batch.num_rows(), 2);
        assert_eq!(batch.column(0).null_count(), 1);
        let later = [rec(vec![("a", Value::from("x"))])];
        let err = c.convert(&rows(&later)).unwrap_err();
        assert!(err.starts_with("bin 'a': a str value"), "{err}");
        let new_bin = [rec(vec![("b", Value::Int(1))])];
        let err = c.convert(&rows(&new_bin)).unwrap_err();
        assert!(err.starts_with("bin 'b' is in no column"), "{err}");
    }

    #[test]
    fn a_given_schema_casts_and_skips_unknown_struct_fields() {
        use arrow_schema::Fields;
        let fields = Fields::from(vec![Field::new("zip", DataType::Int32, true)]);
        let schema = Schema::new(vec![
            Field::new("n", DataType::Int16, true),
            Field::new("addr", DataType::Struct(fields), true),
        ]);
        let spec = Spec {
            schema: Some(Arc::new(schema)),
            ..Spec::default()
        };
        let mut addr = std::collections::HashMap::new();
        addr.insert(Value::from("zip"), Value::Int(75001));
        addr.insert(Value::from("city"), Value::from("Paris"));
        let recs = [rec(vec![
            ("n", Value::Int(7)),
            ("addr", Value::HashMap(addr)),
        ])];
        let batch = Converter::new(spec.clone()).convert(&rows(&recs)).unwrap();
        assert_eq!(batch.column(0).data_type(), &DataType::Int16);
        let zip = batch.column(1).as_struct().column(0).clone();
        assert_eq!(
            zip.as_primitive::<arrow_array::types::Int32Type>().value(0),
            75001
        );
        let too_big = [rec(vec![("n", Value::Int(1 << 20))])];
        let err = Converter::new(spec).convert(&rows(&too_big)).unwrap_err();
        assert!(err.contains("column 'n'"), "{err}");
    }
}
