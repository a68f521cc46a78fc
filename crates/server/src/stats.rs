//! Per-kind request counters and connection gauges.

use std::sync::atomic::{AtomicU64, Ordering};

/// Kinds of request counted separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Info = 0,
    Read,
    Write,
    Operate,
    Batch,
    Scan,
    Query,
    Udf,
    Delete,
}

/// Names of [`Kind`] in discriminant order.
const KIND_NAMES: [&str; 9] = [
    "info", "read", "write", "operate", "batch", "scan", "query", "udf", "delete",
];

/// Counters shared by every connection of one server.
#[derive(Debug, Default)]
pub struct Stats {
    requests: [AtomicU64; 9],
    pub connections_open: AtomicU64,
    pub connections_total: AtomicU64,
    /// Records scans and queries examined: every record of a scan, only the index's matching
    /// entries of an index query.
    pub records_read: AtomicU64,
}

impl Stats {
    /// Counts one request of `kind`.
    pub fn count(&self, kind: Kind) {
        self.requests[kind as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Zeroes the request counters and the connection total (open connections stay counted).
    pub fn reset(&self) {
        for c in &self.requests {
            c.store(0, Ordering::Relaxed);
        }
        self.connections_total.store(0, Ordering::Relaxed);
        self.records_read.store(0, Ordering::Relaxed);
    }

    /// Snapshot as (name, value) pairs; `records` is supplied by the caller.
    pub fn snapshot(&self, records: u64) -> Vec<(&'static str, u64)> {
        let mut out: Vec<(&'static str, u64)> = KIND_NAMES
            .iter()
            .zip(&self.requests)
            .map(|(n, c)| (*n, c.load(Ordering::Relaxed)))
            .collect();
        out.push((
            "connections_open",
            self.connections_open.load(Ordering::Relaxed),
        ));
        out.push((
            "connections_total",
            self.connections_total.load(Ordering::Relaxed),
        ));
        out.push((
            "query_records_read",
            self.records_read.load(Ordering::Relaxed),
        ));
        out.push(("records", records));
        out
    }
}
