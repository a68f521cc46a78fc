//! Per-record turns for transactions that run long on one record (record UDFs), so two of
//! them on the same key run one after the other while the partition stays free for others.
//! Waiting blocks the thread: only offloaded (blocking-thread) work may take a turn.

use std::collections::HashSet;
use std::sync::{Condvar, Mutex};

use crate::store::Digest;

/// The digests whose turn is taken.
#[derive(Default)]
pub struct RecordLocks {
    busy: Mutex<HashSet<Digest>>,
    freed: Condvar,
}

/// A record's turn, given back when dropped.
pub struct RecordTurn<'a> {
    locks: &'a RecordLocks,
    digest: Digest,
}

impl RecordLocks {
    /// Waits until no other turn holds `digest`, then takes it.
    pub fn take(&self, digest: &Digest) -> RecordTurn<'_> {
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        while !busy.insert(*digest) {
            busy = self.freed.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
        RecordTurn {
            locks: self,
            digest: *digest,
        }
    }
}

impl Drop for RecordTurn<'_> {
    fn drop(&mut self) {
        let mut busy = self.locks.busy.lock().unwrap_or_else(|e| e.into_inner());
        busy.remove(&self.digest);
        drop(busy);
        self.locks.freed.notify_all();
    }
}
