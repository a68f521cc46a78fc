//! A chunk of records as the server sent them: each record's message bytes copied once into
//! one buffer, with where its key and bins are. Values are decoded only by whoever takes the
//! chunk (into Arrow columns), or by a record taken out of it with its own bytes
//! ([`OwnedRecord`]: a Python `Record` keeps one and builds its bins on first use).

use std::ops::Range;

use aerospike::{IndexMap, Key, Record as AsRecord, Value};

use crate::convert::message::{Bins, Message};
use crate::convert::particle::{self, Bad};

/// One record of a [`WireChunk`]; ranges are into the chunk's bytes.
pub struct WireRecord {
    /// The whole message.
    span: Range<usize>,
    pub pid: u16,
    pub digest: [u8; 20],
    /// Where it stands in the index (an index query's record).
    pub bval: Option<u64>,
    pub generation: u32,
    /// Void time, seconds since 2010-01-01 (0: never expires).
    pub expiration: u32,
    namespace: Range<usize>,
    set_name: Range<usize>,
    key: Option<(u8, Range<usize>)>,
    ops: Range<usize>,
    n_ops: u16,
    /// False for the row of a batch read whose record was not found (no bins, no metadata).
    pub found: bool,
}

/// Records of a scan or query, in the order the server sent them.
#[derive(Default)]
pub struct WireChunk {
    data: Vec<u8>,
    records: Vec<WireRecord>,
}

/// `r`, a range of a message starting at `from`, for the message copied to `to` (an absent
/// part, `0..0`, stays empty).
fn rebase(r: &Range<usize>, from: usize, to: usize) -> Range<usize> {
    if r.start < from {
        return to..to;
    }
    r.start - from + to..r.end - from + to
}

impl WireRecord {
    /// The record of message `m`, its bytes copied to offset `to` of its new buffer.
    fn of(m: &Message, pid: u16, digest: [u8; 20], to: usize) -> Self {
        let from = m.span.start;
        WireRecord {
            span: rebase(&m.span, from, to),
            pid,
            digest,
            bval: m.bval,
            generation: m.generation,
            expiration: m.expiration,
            namespace: rebase(&m.namespace, from, to),
            set_name: rebase(&m.set_name, from, to),
            key: m.key.as_ref().map(|(t, r)| (*t, rebase(r, from, to))),
            ops: rebase(&m.ops, from, to),
            n_ops: m.n_ops,
            found: true,
        }
    }

    /// This record, its bytes (now from offset 0) moved to offset `to` of another buffer.
    fn moved_to(&self, to: usize) -> Self {
        WireRecord {
            span: rebase(&self.span, 0, to),
            namespace: rebase(&self.namespace, 0, to),
            set_name: rebase(&self.set_name, 0, to),
            key: self.key.as_ref().map(|(t, k)| (*t, rebase(k, 0, to))),
            ops: rebase(&self.ops, 0, to),
            ..*self
        }
    }
}

impl WireChunk {
    pub fn with_capacity(records: usize) -> Self {
        WireChunk {
            data: Vec::with_capacity(records * 64),
            records: Vec::with_capacity(records),
        }
    }

    /// Add the record `m` of the reply `body`, in partition `pid` with `digest`.
    pub fn push(&mut self, body: &[u8], m: &Message, pid: u16, digest: [u8; 20]) {
        let to = self.data.len();
        self.data.extend_from_slice(&body[m.span.clone()]);
        self.records.push(WireRecord::of(m, pid, digest, to));
    }

    /// Add a batch row's record, with a copy of its bytes.
    pub fn push_owned(&mut self, rec: &OwnedRecord) {
        let to = self.data.len();
        self.data.extend_from_slice(&rec.bytes);
        self.records.push(rec.record.moved_to(to));
    }

    /// Add the row of a batch read whose record `digest` was not found.
    pub fn push_missing(&mut self, digest: [u8; 20]) {
        let to = self.data.len();
        self.records.push(WireRecord {
            span: to..to,
            pid: 0,
            digest,
            bval: None,
            generation: 0,
            expiration: 0,
            namespace: to..to,
            set_name: to..to,
            key: None,
            ops: to..to,
            n_ops: 0,
            found: false,
        });
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn records(&self) -> &[WireRecord] {
        &self.records
    }

    /// Keep the first `n` records.
    pub fn truncate(&mut self, n: usize) {
        self.records.truncate(n);
    }

    pub fn namespace(&self, r: &WireRecord) -> &[u8] {
        &self.data[r.namespace.clone()]
    }

    pub fn set_name(&self, r: &WireRecord) -> &[u8] {
        &self.data[r.set_name.clone()]
    }

    /// The user key's particle type and bytes, when the server sent it.
    pub fn user_key(&self, r: &WireRecord) -> Option<(u8, &[u8])> {
        user_key(&self.data, r)
    }

    /// The record's bins: name, particle type, value bytes.
    pub fn bins(&self, r: &WireRecord) -> Bins<'_> {
        Bins::new(&self.data[r.ops.clone()], r.n_ops)
    }

    /// The records, each with a copy of its own bytes.
    pub fn into_owned(self) -> impl ExactSizeIterator<Item = OwnedRecord> {
        let data = self.data;
        self.records.into_iter().map(move |r| {
            let from = r.span.start;
            OwnedRecord {
                bytes: data[r.span.clone()].into(),
                record: WireRecord {
                    span: rebase(&r.span, from, 0),
                    namespace: rebase(&r.namespace, from, 0),
                    set_name: rebase(&r.set_name, from, 0),
                    key: r.key.as_ref().map(|(t, k)| (*t, rebase(k, from, 0))),
                    ops: rebase(&r.ops, from, 0),
                    ..r
                },
            }
        })
    }

    /// The record as a crate record (for the conversions written for those).
    pub fn to_record(&self, r: &WireRecord) -> Result<AsRecord, (Bad, Option<String>)> {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let user_key = match self.user_key(r) {
            Some((t, b)) => Some(particle::decode(t, b).map_err(|e| (e, None))?),
            None => None,
        };
        let key = Key::with_digest(
            text(self.namespace(r)),
            text(self.set_name(r)),
            user_key,
            r.digest,
        );
        let mut bins: IndexMap<String, Value> = IndexMap::with_capacity(usize::from(r.n_ops));
        for (name, ptype, value) in self.bins(r) {
            let v = particle::decode(ptype, value).map_err(|e| (e, Some(text(name))))?;
            if !matches!(v, Value::Nil) {
                bins.insert(text(name), v);
            }
        }
        Ok(AsRecord::new(
            Some(key),
            bins,
            None,
            r.generation,
            r.expiration,
        ))
    }
}

fn user_key<'a>(data: &'a [u8], r: &WireRecord) -> Option<(u8, &'a [u8])> {
    r.key.as_ref().map(|(t, k)| (*t, &data[k.clone()]))
}

/// A record taken out of its chunk with a copy of its bytes, so that keeping it keeps nothing
/// of the other records.
pub struct OwnedRecord {
    bytes: Box<[u8]>,
    /// Its ranges are into `bytes`.
    record: WireRecord,
}

impl OwnedRecord {
    /// The record `m` of the reply `body` (a batch row: its key is the row's), with a copy of
    /// its bytes.
    pub fn from_message(body: &[u8], m: &Message, pid: u16, digest: [u8; 20]) -> Self {
        OwnedRecord {
            bytes: body[m.span.clone()].into(),
            record: WireRecord::of(m, pid, digest, 0),
        }
    }

    pub fn record(&self) -> &WireRecord {
        &self.record
    }

    pub fn namespace(&self) -> &[u8] {
        &self.bytes[self.record.namespace.clone()]
    }

    pub fn set_name(&self) -> &[u8] {
        &self.bytes[self.record.set_name.clone()]
    }

    /// The user key's particle type and bytes, when the server sent it.
    pub fn user_key(&self) -> Option<(u8, &[u8])> {
        user_key(&self.bytes, &self.record)
    }

    /// The record's bins: name, particle type, value bytes.
    pub fn bins(&self) -> Bins<'_> {
        Bins::new(&self.bytes[self.record.ops.clone()], self.record.n_ops)
    }
}

/// Seconds to live of a record with void time `expiration`, at `now` (Unix seconds); `None`
/// never expires, and a record due already reads as 1 (0 would mean "never").
pub fn ttl(expiration: u32, now: u64) -> Option<u32> {
    if expiration == 0 {
        return None;
    }
    let void = aerospike::CITRUSLEAF_EPOCH_UNIX_SECS + u64::from(expiration);
    let left = void.saturating_sub(now).max(1);
    Some(u32::try_from(left).unwrap_or(u32::MAX))
}

/// Unix seconds now.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
