//! What a single-record request asks for, read from a message or a batch row.

use std::time::Instant;

use crate::wire::{Ops, INFO2_DELETE, INFO2_WRITE};

/// What a single-record request asks for (from a message or a batch row).
#[derive(Clone, Copy)]
pub struct RecReq<'a> {
    pub info1: u8,
    pub info2: u8,
    pub info3: u8,
    pub generation: u32,
    pub ttl: u32,
    pub set: &'a [u8],
    /// KEY field: particle type byte then the value.
    pub key: Option<&'a [u8]>,
    pub filter: Option<&'a [u8]>,
    pub ops: Ops<'a>,
    /// When the transaction must end (a UDF still running then fails).
    pub deadline: Instant,
    /// Multi-record transaction fields and flags.
    pub txn: crate::txn::TxnFields,
}

impl RecReq<'_> {
    pub fn is_write(&self) -> bool {
        self.info2 & (INFO2_WRITE | INFO2_DELETE) != 0
    }

    /// A read that may touch its record: its TTL field holds a read-touch percentage (0 takes
    /// the namespace's default, which is off; all ones never touches).
    pub fn may_touch(&self) -> bool {
        !self.is_write() && crate::read_touch::asked(self.ttl)
    }
}
