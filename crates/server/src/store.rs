//! Sharded in-memory record store: namespaces of 4096 partitions, each a digest-ordered map.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use engine::Particle;

use crate::clock::CITRUSLEAF_EPOCH;
use crate::record_lock::RecordLocks;
use crate::sindex::{Entries, SIndex};

/// Partitions per namespace.
pub const N_PARTITIONS: usize = 4096;

pub type Digest = [u8; 20];

/// Partition of a digest: bytes 0..2 little-endian, low 12 bits.
pub fn partition_of(digest: &Digest) -> usize {
    usize::from(u16::from_le_bytes([digest[0], digest[1]])) & (N_PARTITIONS - 1)
}

/// A bin name stored inline (at most 15 bytes of UTF-8).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BinName {
    len: u8,
    bytes: [u8; 15],
}

impl BinName {
    /// Longest bin name the server accepts.
    pub const MAX: usize = 15;

    /// Whether a real node takes `name` as a bin name: at most 15 bytes, none of them NUL
    /// (else it answers BIN_NAME, 21).
    pub fn is_valid(name: &[u8]) -> bool {
        name.len() <= Self::MAX && !name.contains(&0)
    }

    /// None when not [`BinName::is_valid`] or not UTF-8.
    pub fn new(name: &[u8]) -> Option<BinName> {
        if !Self::is_valid(name) || std::str::from_utf8(name).is_err() {
            return None;
        }
        let mut bytes = [0u8; 15];
        bytes[..name.len()].copy_from_slice(name);
        Some(BinName {
            len: name.len() as u8,
            bytes,
        })
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl std::fmt::Debug for BinName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One bin.
#[derive(Clone, Debug)]
pub struct Bin {
    pub name: BinName,
    pub value: Particle,
}

/// One stored record.
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub bins: Vec<Bin>,
    /// Stored user key, when written with send-key.
    pub key: Option<Particle>,
    /// Index into the namespace's set table; 0 = no set.
    pub set_id: u16,
    pub generation: u16,
    /// Expiry in seconds since the citrusleaf epoch; 0 = never.
    pub void_time: u32,
    /// Last update, milliseconds since the Unix epoch.
    pub last_update_ms: u64,
    /// A transaction's lock and the committed record it hides, or a transaction monitor's
    /// deadline (strong-consistency namespaces only).
    pub txn: Option<Box<crate::txn::TxnMeta>>,
}

impl Record {
    pub fn bin(&self, name: &[u8]) -> Option<&Particle> {
        self.bins
            .iter()
            .find(|b| b.name.as_bytes() == name)
            .map(|b| &b.value)
    }

    /// Whether the record has expired at `now_cl` (citrusleaf seconds).
    pub fn expired(&self, now_cl: u32) -> bool {
        // As a real server: a record lives through the second of its void time.
        self.void_time != 0 && self.void_time < now_cl
    }

    /// Approximate stored size in bytes.
    pub fn size(&self) -> usize {
        self.bins
            .iter()
            .map(|b| usize::from(b.name.len) + b.value.data.len() + 4)
            .sum::<usize>()
            + self.key.as_ref().map_or(0, |k| k.data.len())
            + 40
    }
}

pub use crate::partition::{Partition, Records};

/// One namespace.
pub struct Namespace {
    pub name: String,
    /// Durable deletes are accepted (an Enterprise server).
    pub durable_deletes: bool,
    /// Strong consistency: transactions are accepted (an Enterprise server).
    pub strong_consistency: bool,
    /// Turns of record UDFs, which run without holding their partition.
    pub udf_turns: RecordLocks,
    partitions: Box<[RwLock<Partition>]>,
    sets: Mutex<Vec<String>>,
    records: AtomicU64,
    /// The indexes whose entries partitions may hold, one shared copy per definition.
    indexes: Mutex<Vec<Arc<SIndex>>>,
}

impl Namespace {
    pub fn new(name: &str) -> Namespace {
        Namespace {
            name: name.to_string(),
            durable_deletes: false,
            strong_consistency: false,
            udf_turns: RecordLocks::default(),
            partitions: (0..N_PARTITIONS).map(|_| RwLock::default()).collect(),
            sets: Mutex::new(Vec::new()),
            records: AtomicU64::new(0),
            indexes: Mutex::new(Vec::new()),
        }
    }

    pub fn read(&self, pid: usize) -> RwLockReadGuard<'_, Partition> {
        let lock = &self.partitions[pid & (N_PARTITIONS - 1)];
        lock.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn write(&self, pid: usize) -> RwLockWriteGuard<'_, Partition> {
        let lock = &self.partitions[pid & (N_PARTITIONS - 1)];
        lock.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Adjusts the record count after an insert (+1) or removal (-1).
    pub fn count_change(&self, delta: i64) {
        if delta >= 0 {
            self.records.fetch_add(delta as u64, Ordering::Relaxed);
        } else {
            self.records
                .fetch_sub(delta.unsigned_abs(), Ordering::Relaxed);
        }
    }

    pub fn record_count(&self) -> u64 {
        self.records.load(Ordering::Relaxed)
    }

    /// Id of set `name` (interning it); 0 for the empty name. None when the table is full.
    pub fn set_id(&self, name: &[u8]) -> Option<u16> {
        if name.is_empty() {
            return Some(0);
        }
        let name = std::str::from_utf8(name).ok()?;
        let mut sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = sets.iter().position(|s| s == name) {
            return Some(i as u16 + 1);
        }
        if sets.len() >= usize::from(u16::MAX - 1) {
            return None;
        }
        sets.push(name.to_string());
        Some(sets.len() as u16)
    }

    /// Id of an existing set (None when never written; Some(0) for the empty name).
    pub fn find_set(&self, name: &[u8]) -> Option<u16> {
        if name.is_empty() {
            return Some(0);
        }
        let sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        sets.iter()
            .position(|s| s.as_bytes() == name)
            .map(|i| i as u16 + 1)
    }

    /// Name of set `id` ("" for 0 or unknown).
    pub fn set_name(&self, id: u16) -> String {
        if id == 0 {
            return String::new();
        }
        let sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        sets.get(usize::from(id) - 1).cloned().unwrap_or_default()
    }

    /// All set names with their ids.
    pub fn sets(&self) -> Vec<(u16, String)> {
        let sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        sets.iter()
            .enumerate()
            .map(|(i, s)| (i as u16 + 1, s.clone()))
            .collect()
    }

    /// Removes records matching `pred` from every partition; returns how many.
    pub fn remove_where(&self, mut pred: impl FnMut(&Record) -> bool) -> u64 {
        let mut removed = 0u64;
        for pid in 0..N_PARTITIONS {
            removed += self.write(pid).remove_where(&mut pred) as u64;
        }
        self.count_change(-(removed as i64));
        removed
    }

    /// The namespace's copy of index `def` (found by definition, not name).
    pub fn index(&self, def: &SIndex) -> Arc<SIndex> {
        let mut all = self.indexes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = all.iter().find(|i| i.same_definition(def)) {
            return known.clone();
        }
        let known = Arc::new(def.clone());
        all.push(known.clone());
        known
    }

    /// Forgets the entries of the indexes no longer `defined`.
    pub fn forget_indexes(&self, defined: impl Fn(&SIndex) -> bool) {
        let gone: Vec<Arc<SIndex>> = {
            let mut all = self.indexes.lock().unwrap_or_else(|e| e.into_inner());
            let (kept, gone) = all.drain(..).partition(|i| defined(i));
            *all = kept;
            gone
        };
        if gone.is_empty() {
            return;
        }
        for pid in 0..N_PARTITIONS {
            self.write(pid)
                .drop_indexes(|i| !gone.iter().any(|g| Arc::ptr_eq(g, i)));
        }
    }

    /// Runs `f` on the records of partition `pid` and its entries of index `def`, building
    /// them first when no query has asked for them yet.
    pub fn with_index<R>(
        &self,
        pid: usize,
        def: &Arc<SIndex>,
        f: impl FnOnce(&Records, &Entries) -> R,
    ) -> R {
        let part = self.read(pid);
        if let Some(entries) = part.index(def) {
            return f(&part, entries);
        }
        drop(part);
        let mut part = self.write(pid);
        // Checked under the partition's lock: an index dropped after this check has its
        // entries here dropped by `forget_indexes` once the lock is released.
        if self.knows_index(def) {
            let (records, entries) = part.indexed(self, def);
            return f(records, entries);
        }
        let entries = part.entries(self, def.clone());
        f(&part, &entries)
    }

    fn knows_index(&self, def: &Arc<SIndex>) -> bool {
        let all = self.indexes.lock().unwrap_or_else(|e| e.into_inner());
        all.iter().any(|i| Arc::ptr_eq(i, def))
    }

    /// Calls `f` on every record (expired ones included), one partition lock at a time.
    pub fn for_each_record(&self, mut f: impl FnMut(&Record)) {
        for pid in 0..N_PARTITIONS {
            self.read(pid).values().for_each(&mut f);
        }
    }

    /// Removes expired records; returns how many. Partitions with nothing due are only read.
    pub fn reclaim_expired(&self, now_cl: u32) -> u64 {
        let mut removed = 0u64;
        for pid in 0..N_PARTITIONS {
            if self.read(pid).next_expiry().is_some_and(|t| t < now_cl) {
                removed += self.write(pid).remove_expired(now_cl) as u64;
            }
        }
        self.count_change(-(removed as i64));
        removed
    }
}

/// All namespaces of a server.
pub struct Store {
    pub namespaces: Vec<Namespace>,
}

impl Store {
    /// Namespaces `names`; those in `strong_consistency` are strong-consistency ones.
    pub fn new(names: &[String], durable_deletes: bool, strong_consistency: &[String]) -> Store {
        Store {
            namespaces: names
                .iter()
                .map(|n| Namespace {
                    durable_deletes,
                    strong_consistency: strong_consistency.contains(n),
                    ..Namespace::new(n)
                })
                .collect(),
        }
    }

    pub fn namespace(&self, name: &[u8]) -> Option<&Namespace> {
        self.namespaces.iter().find(|n| n.name.as_bytes() == name)
    }

    pub fn record_count(&self) -> u64 {
        self.namespaces.iter().map(Namespace::record_count).sum()
    }
}

/// Void time for a write: `ttl` as on the wire (0 = namespace default, u32::MAX = never,
/// u32::MAX-1 = keep `old`), `now_ms` Unix milliseconds.
pub fn void_time_for(ttl: u32, old: Option<u32>, now_ms: u64) -> u32 {
    match ttl {
        0 | u32::MAX => 0,
        0xFFFF_FFFE => old.unwrap_or(0),
        secs => {
            let expiry = now_ms / 1000 + u64::from(secs);
            expiry
                .saturating_sub(CITRUSLEAF_EPOCH)
                .min(u64::from(u32::MAX)) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_is_low_12_bits_le() {
        let mut d = [0u8; 20];
        d[0] = 0x34;
        d[1] = 0xF2;
        assert_eq!(partition_of(&d), 0x234);
    }

    #[test]
    fn bin_names() {
        assert!(BinName::new(b"0123456789abcde").is_some());
        assert!(BinName::new(b"0123456789abcdef").is_none());
        assert!(BinName::new(b"a\0b").is_none());
        assert!(BinName::is_valid(b"") && !BinName::is_valid(b"\0"));
        assert_eq!(
            BinName::new(b"age").map(|b| b.as_str().to_string()),
            Some("age".into())
        );
    }

    #[test]
    fn ttl_rules() {
        let now = (CITRUSLEAF_EPOCH + 100) * 1000;
        assert_eq!(void_time_for(0, Some(5), now), 0);
        assert_eq!(void_time_for(u32::MAX, Some(5), now), 0);
        assert_eq!(void_time_for(0xFFFF_FFFE, Some(5), now), 5);
        assert_eq!(void_time_for(10, None, now), 110);
    }

    #[test]
    fn set_interning() {
        let ns = Namespace::new("test");
        assert_eq!(ns.set_id(b""), Some(0));
        assert_eq!(ns.set_id(b"a"), Some(1));
        assert_eq!(ns.set_id(b"b"), Some(2));
        assert_eq!(ns.set_id(b"a"), Some(1));
        assert_eq!(ns.set_name(2), "b");
        assert_eq!(ns.find_set(b"c"), None);
    }
}
