//! Wire chunks to record batches, each bin appended from its bytes: ints, floats, strings,
//! bytes and bools go straight into their column; lists, maps and the rarer types are
//! decoded to a value first. The first chunk of a stream, decoded to crate records, fixes the
//! columns (`convert.rs`, so both paths share one schema logic), then is converted here too.

use aerospike::Key;
use arrow_array::builder::{BooleanBuilder, FixedSizeBinaryBuilder, UInt32Builder};
use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use std::sync::Arc;

use super::column::{Column, Misfit};
use super::convert::{cast_to, misfit_message, ConvertError, Converter, Sample, Source};
use super::kind::Kind;
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
        if !self.has_layout() {
            let bins = if self.has_schema() {
                Vec::new()
            } else {
                wire_kinds(chunk, self.selected())?
            };
            let key = match keys {
                Some(keys) => keys
                    .iter()
                    .filter_map(|k| k.user_key())
                    .fold(Kind::Empty, |k, v| k.merge(Kind::of(v))),
                None => wire_key_kind(chunk)?,
            };
            let rows = chunk.len();
            self.set_sample(Sample { bins, key, rows })?;
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

/// What the values of each bin of `chunk` have in common, bins in order of first appearance
/// (or of `selected`), read from their bytes: only lists, maps and the rarer types are decoded.
fn wire_kinds(
    chunk: &WireChunk,
    selected: Option<&[String]>,
) -> Result<Vec<(String, Kind)>, ConvertError> {
    let mut kinds: Vec<(String, Kind)> = selected
        .unwrap_or_default()
        .iter()
        .map(|n| (n.clone(), Kind::Empty))
        .collect();
    for r in chunk.records() {
        for (i, (name, ptype, bytes)) in chunk.bins(r).enumerate() {
            let kind = match ptype {
                particle::NIL => continue,
                particle::INTEGER => Kind::Int,
                particle::FLOAT => Kind::Float,
                particle::STRING => Kind::Str,
                particle::BLOB => Kind::Bytes,
                particle::BOOL => Kind::Bool,
                _ => Kind::of(
                    &particle::decode(ptype, bytes)
                        .map_err(|b| bad_message(&b, Some(&String::from_utf8_lossy(name))))?,
                ),
            };
            let slot = match kinds.get(i) {
                Some((n, _)) if n.as_bytes() == name => Some(i),
                _ => kinds.iter().position(|(n, _)| n.as_bytes() == name),
            };
            match slot {
                Some(s) => {
                    let k = std::mem::replace(&mut kinds[s].1, Kind::Empty);
                    kinds[s].1 = k.merge(kind);
                }
                None if selected.is_some() => {}
                None => kinds.push((String::from_utf8_lossy(name).into_owned(), kind)),
            }
        }
    }
    Ok(kinds)
}

/// What the user keys the server sent with `chunk`'s records have in common.
fn wire_key_kind(chunk: &WireChunk) -> Result<Kind, ConvertError> {
    let mut kind = Kind::Empty;
    for r in chunk.records() {
        if let Some((t, b)) = chunk.user_key(r) {
            let v = particle::decode(t, b).map_err(|b| bad_message(&b, Some("the user key")))?;
            kind = kind.merge(Kind::of(&v));
        }
    }
    Ok(kind)
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
