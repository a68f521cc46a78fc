//! A chunk of records as the server sent them: each record's message bytes copied once into
//! a buffer of its own, with where its key and bins are. Values are decoded only by whoever
//! takes the chunk (into Arrow columns), or by the record itself (a Python `Record` keeps its
//! bytes and builds its bins on first use).

use std::ops::Range;

use aerospike::{IndexMap, Key, Record as AsRecord, Value};

use super::message::{Bins, Message};
use super::particle::{self, Bad};

/// One record of a [`WireChunk`]: its message bytes, and ranges into them.
pub struct WireRecord {
    bytes: Box<[u8]>,
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
}

/// Records of a scan or query, in the order the server sent them.
#[derive(Default)]
pub struct WireChunk {
    records: Vec<WireRecord>,
}

fn rebase(r: &Range<usize>, from: usize) -> Range<usize> {
    r.start - from..r.end - from
}

impl WireRecord {
    pub fn namespace(&self) -> &[u8] {
        &self.bytes[self.namespace.clone()]
    }

    pub fn set_name(&self) -> &[u8] {
        &self.bytes[self.set_name.clone()]
    }

    /// The user key's particle type and bytes, when the server sent it.
    pub fn user_key(&self) -> Option<(u8, &[u8])> {
        self.key.as_ref().map(|(t, k)| (*t, &self.bytes[k.clone()]))
    }

    /// The record's bins: name, particle type, value bytes.
    pub fn bins(&self) -> Bins<'_> {
        Bins::new(&self.bytes[self.ops.clone()], self.n_ops)
    }
}

impl WireChunk {
    pub fn with_capacity(records: usize) -> Self {
        WireChunk {
            records: Vec::with_capacity(records),
        }
    }

    /// Add the record `m` of the reply `body`, in partition `pid` with `digest`.
    pub fn push(&mut self, body: &[u8], m: &Message, pid: u16, digest: [u8; 20]) {
        let from = m.span.start;
        self.records.push(WireRecord {
            bytes: body[m.span.clone()].into(),
            pid,
            digest,
            bval: m.bval,
            generation: m.generation,
            expiration: m.expiration,
            namespace: rebase(&m.namespace, from),
            set_name: rebase(&m.set_name, from),
            key: m.key.as_ref().map(|(t, r)| (*t, rebase(r, from))),
            ops: rebase(&m.ops, from),
            n_ops: m.n_ops,
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

    /// The records, each with its own bytes.
    pub fn into_records(self) -> Vec<WireRecord> {
        self.records
    }

    /// Keep the first `n` records.
    pub fn truncate(&mut self, n: usize) {
        self.records.truncate(n);
    }

    /// The record as a crate record (for the conversions written for those).
    pub fn to_record(&self, r: &WireRecord) -> Result<AsRecord, (Bad, Option<String>)> {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let user_key = match r.user_key() {
            Some((t, b)) => Some(particle::decode(t, b).map_err(|e| (e, None))?),
            None => None,
        };
        let key = Key::with_digest(text(r.namespace()), text(r.set_name()), user_key, r.digest);
        let mut bins: IndexMap<String, Value> = IndexMap::with_capacity(usize::from(r.n_ops));
        for (name, ptype, value) in r.bins() {
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
