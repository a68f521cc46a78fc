//! Wire chunks to record batches, each bin appended from its bytes: ints, floats, strings,
//! bytes and bools go straight into their column; lists, maps and the rarer types are
//! decoded to a value first. The first chunk of a stream, decoded to crate records, fixes the
//! columns (`convert.rs`, so both paths share one schema logic), then is converted here too.

use aerospike::Key;
use arrow_array::builder::{BooleanBuilder, FixedSizeBinaryBuilder, UInt32Builder};
use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use std::sync::Arc;

use super::column::{Column, Misfit};
use super::convert::{cast_to, misfit_message, ConvertError, Converter, Row, Source};
use super::widen::wire_records;
use crate::convert::particle::{self, Bad};
use crate::convert::wire_chunk::{ttl, unix_now};
use crate::convert::WireChunk;

impl Converter {
    /// Convert one chunk read from the wire.
    pub fn convert_wire(&mut self, chunk: &WireChunk) -> Result<RecordBatch, ConvertError> {
        self.convert_wire_keyed(chunk, None)
    }

    /// Convert one chunk read from the wire; `keys` (one per record): the keys a batch asked
    /// for, whose user keys fill the key column (else the keys the server sent).
    pub fn convert_wire_keyed(
        &mut self,
        chunk: &WireChunk,
        keys: Option<&[&Key]>,
    ) -> Result<RecordBatch, ConvertError> {
        if !self.has_layout() && !self.needs_values() {
            self.schema(&[])?;
        }
        if !self.has_layout() {
            // Inferring the columns needs the first chunk's values; converting it does not.
            let records = wire_records(chunk)?;
            let rows: Vec<Row<'_>> = records
                .iter()
                .zip(chunk.records())
                .enumerate()
                .map(|(i, (rec, r))| Row {
                    key: keys.map(|k| k[i]),
                    rec,
                    found: r.found,
                })
                .collect();
            self.schema(&rows)?;
        }
        let layout = self.layout().ok_or("no layout")?;
        let schema = layout.schema.clone();
        let n = chunk.len();
        // One pass over the records: every column built side by side.
        let mut columns: Vec<Filler> = layout
            .sources
            .iter()
            .zip(&layout.naturals)
            .map(|(source, natural)| match source {
                Source::Digest => Filler::Digest(FixedSizeBinaryBuilder::with_capacity(n, 20)),
                Source::Generation => Filler::Generation(UInt32Builder::with_capacity(n)),
                Source::Ttl => Filler::Ttl(UInt32Builder::with_capacity(n)),
                Source::Found => Filler::Found(BooleanBuilder::with_capacity(n)),
                Source::Key => Filler::Key(Column::top(natural, layout)),
                Source::Bin(name) => Filler::Bin(name.as_bytes(), Column::top(natural, layout)),
            })
            .collect();
        let bin_columns: Vec<usize> = (0..columns.len())
            .filter(|&i| matches!(columns[i], Filler::Bin(..)))
            .collect();
        let mut filled = vec![false; columns.len()];
        // per position in a record, the column the previous record's bin there went to
        let mut hint: Vec<usize> = Vec::new();
        let now = unix_now();
        for (row, r) in chunk.records().iter().enumerate() {
            filled.fill(false);
            for (slot, (name, ptype, value)) in chunk.bins(r).enumerate() {
                if ptype == particle::NIL {
                    continue;
                }
                let guess = hint.get(slot).copied();
                let found = match guess {
                    Some(i) if columns[i].is_bin(name) => Some(i),
                    _ => bin_columns
                        .iter()
                        .copied()
                        .find(|&i| columns[i].is_bin(name)),
                };
                let Some(i) = found else {
                    if layout.extra_bins_ok {
                        continue;
                    }
                    return Err(format!(
                        "bin '{}' is in no column: the columns come from {}; pass a schema \
                         or select() the bins",
                        String::from_utf8_lossy(name),
                        layout.origin
                    ));
                };
                if slot < hint.len() {
                    hint[slot] = i;
                } else {
                    hint.push(i);
                }
                if std::mem::replace(&mut filled[i], true) {
                    continue; // a bin named twice: the first one counts
                }
                if let Filler::Bin(_, col) = &mut columns[i] {
                    append_particle(col, ptype, value).map_err(|m| {
                        let what = format!("bin '{}'", String::from_utf8_lossy(name));
                        misfit_message(&what, &m, &layout.origin)
                    })?;
                }
            }
            for (i, col) in columns.iter_mut().enumerate() {
                match col {
                    Filler::Digest(b) => b.append_value(r.digest).map_err(|e| e.to_string())?,
                    Filler::Generation(b) => b.append_option(r.found.then_some(r.generation)),
                    Filler::Ttl(b) => b.append_option(ttl(r.expiration, now).filter(|_| r.found)),
                    Filler::Found(b) => b.append_value(r.found),
                    Filler::Key(c) => {
                        let decoded;
                        let key = match (keys, chunk.user_key(r)) {
                            (Some(keys), _) => keys[row].user_key(),
                            (None, Some((t, b))) => {
                                decoded = particle::decode(t, b)
                                    .map_err(|b| bad_message(&b, Some("the user key")))?;
                                Some(&decoded)
                            }
                            (None, None) => None,
                        };
                        c.append(key)
                            .map_err(|m| misfit_message("the key column", &m, &layout.origin))?;
                    }
                    Filler::Bin(_, c) if !filled[i] => {
                        c.append(None).map_err(|e| format!("{e:?}"))?;
                    }
                    Filler::Bin(..) => {}
                }
            }
        }
        let mut arrays = Vec::with_capacity(columns.len());
        for (i, col) in columns.into_iter().enumerate() {
            let array: ArrayRef = match col {
                Filler::Digest(mut b) => Arc::new(b.finish()),
                Filler::Generation(mut b) | Filler::Ttl(mut b) => Arc::new(b.finish()),
                Filler::Found(mut b) => Arc::new(b.finish()),
                Filler::Key(mut c) | Filler::Bin(_, mut c) => {
                    c.finish().map_err(|e| e.to_string())?
                }
            };
            arrays.push(cast_to(array, schema.field(i), &layout.origin)?);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(n));
        RecordBatch::try_new_with_options(schema, arrays, &options).map_err(|e| e.to_string())
    }
}

/// One column being filled from wire records.
enum Filler<'a> {
    Digest(FixedSizeBinaryBuilder),
    Generation(UInt32Builder),
    Ttl(UInt32Builder),
    Found(BooleanBuilder),
    Key(Column),
    Bin(&'a [u8], Column),
}

impl Filler<'_> {
    fn is_bin(&self, name: &[u8]) -> bool {
        matches!(self, Filler::Bin(n, _) if *n == name)
    }
}

/// Append a bin's value from its particle bytes.
fn append_particle(col: &mut Column, ptype: u8, b: &[u8]) -> Result<(), Misfit> {
    let bad = |e: Bad| Misfit {
        path: String::new(),
        found: match e {
            Bad::TooDeep => "too deeply nested",
            Bad::Malformed(_) => "malformed",
        },
        expected: col_type_name(),
    };
    match (&mut *col, ptype) {
        (Column::Int(c), particle::INTEGER) => c.append_value(particle::int(b).map_err(bad)?),
        (Column::Float(c), particle::FLOAT) => c.append_value(particle::float(b).map_err(bad)?),
        #[allow(clippy::cast_precision_loss)]
        (Column::Float(c), particle::INTEGER) => {
            c.append_value(particle::int(b).map_err(bad)? as f64);
        }
        (Column::Str(c) | Column::Text(c), particle::STRING) => {
            c.append_value(particle::text(b).map_err(bad)?);
        }
        (Column::Bytes(c), particle::BLOB) => c.append_value(b),
        (Column::Bool(c), particle::BOOL) => c.append_value(b.first().is_some_and(|&x| x != 0)),
        (col, _) => {
            let v = particle::decode(ptype, b).map_err(bad)?;
            col.append(Some(&v))?;
        }
    }
    Ok(())
}

fn col_type_name() -> String {
    "its column".to_owned()
}

pub(super) fn bad_message(b: &Bad, what: Option<&str>) -> String {
    let what = what.map_or_else(|| "a value".to_owned(), |w| format!("'{w}'"));
    match b {
        Bad::TooDeep => format!("{what} nests lists/maps deeper than the client reads"),
        Bad::Malformed(m) => format!("{what}: {m}"),
    }
}
