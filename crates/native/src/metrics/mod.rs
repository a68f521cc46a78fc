//! What a client has done since it connected: per namespace, node and kind of command, how many
//! calls, how they failed, how long they took; per node, its connections and bytes; and the
//! cluster's events. Every call records here once, whichever path served it (`Inner::until_closed`),
//! with a few atomic adds and no lock held for writing after a cell's first use.

mod histogram;
pub mod logs;
mod snapshot;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Mutex, RwLock};

pub use histogram::Histogram;

use crate::errors::Failure;

/// The kinds of command a call is counted as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Get,
    Exists,
    Put,
    Delete,
    Touch,
    Operate,
    Udf,
    BatchRead,
    BatchWrite,
    Scan,
    Query,
    Aggregate,
    Info,
    Admin,
    Commit,
    Abort,
}

impl Kind {
    const ALL: [Kind; 16] = [
        Kind::Get,
        Kind::Exists,
        Kind::Put,
        Kind::Delete,
        Kind::Touch,
        Kind::Operate,
        Kind::Udf,
        Kind::BatchRead,
        Kind::BatchWrite,
        Kind::Scan,
        Kind::Query,
        Kind::Aggregate,
        Kind::Info,
        Kind::Admin,
        Kind::Commit,
        Kind::Abort,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Get => "get",
            Kind::Exists => "exists",
            Kind::Put => "put",
            Kind::Delete => "delete",
            Kind::Touch => "touch",
            Kind::Operate => "operate",
            Kind::Udf => "udf",
            Kind::BatchRead => "batch_read",
            Kind::BatchWrite => "batch_write",
            Kind::Scan => "scan",
            Kind::Query => "query",
            Kind::Aggregate => "aggregate",
            Kind::Info => "info",
            Kind::Admin => "admin",
            Kind::Commit => "commit",
            Kind::Abort => "abort",
        }
    }
}

/// A call to count: its kind, the namespace it is about, and the partition when it is about
/// one record (its node is the one the client's view says masters it).
#[derive(Clone)]
pub struct Meter {
    pub kind: Kind,
    pub namespace: String,
    pub partition: Option<u16>,
    started: Instant,
}

impl Meter {
    pub fn new(kind: Kind, namespace: impl Into<String>) -> Meter {
        Meter {
            kind,
            namespace: namespace.into(),
            partition: None,
            started: Instant::now(),
        }
    }

    /// A call about the record of `key`.
    pub fn of_key(kind: Kind, key: &aerospike::Key) -> Meter {
        Meter {
            partition: Some(crate::convert::message::partition_of(&key.digest())),
            ..Meter::new(kind, key.namespace())
        }
    }
}

/// What a call is for the client's close and metrics: whether it may change data (cut short
/// by a close, it is in doubt), and how it is counted (`None`: not a command of its own).
pub struct Call {
    pub writes: bool,
    pub meter: Option<Meter>,
}

impl From<bool> for Call {
    fn from(writes: bool) -> Call {
        Call {
            writes,
            meter: None,
        }
    }
}

impl Call {
    pub fn metered(writes: bool, meter: Meter) -> Call {
        Call {
            writes,
            meter: Some(meter),
        }
    }
}

tokio::task_local! {
    /// The attempts a metered call made after its first, counted while it runs.
    static RETRIES: std::cell::Cell<u64>;
}

/// Count one more attempt of the running call (nothing outside [`counting_retries`]).
pub fn retried() {
    let _ = RETRIES.try_with(|n| n.set(n.get() + 1));
}

/// Run `call`, returning its output and the retries it counted with [`retried`].
pub async fn counting_retries<F: std::future::Future>(call: F) -> (F::Output, u64) {
    RETRIES
        .scope(std::cell::Cell::new(0), async move {
            let out = call.await;
            (out, RETRIES.with(std::cell::Cell::get))
        })
        .await
}

/// One kind of command on one node of one namespace.
#[derive(Default)]
pub struct Cell {
    count: AtomicU64,
    retries: AtomicU64,
    errors: AtomicU64,
    timeouts: AtomicU64,
    in_doubt: AtomicU64,
    codes: Mutex<BTreeMap<i32, u64>>,
    latency: Histogram,
}

type Cells = [Cell; Kind::ALL.len()];

/// Cluster events, counted by the client's upkeep (`client::maintain`) and its view.
#[derive(Default)]
pub struct Events {
    pub tends: AtomicU64,
    pub nodes_joined: AtomicU64,
    pub nodes_left: AtomicU64,
    pub partition_map_changes: AtomicU64,
}

/// Per node, bytes and connection counts of the SDK's own connections (`wire`).
#[derive(Default)]
pub struct NodeTraffic {
    pub bytes_sent: AtomicU64,
    pub bytes_received: AtomicU64,
    pub opened: AtomicU64,
    pub closed: AtomicU64,
    pub open_failures: AtomicU64,
    /// Errors in the circuit breaker's current window (`conn::breaker`).
    pub error_rate: AtomicU64,
    /// Calls the breaker refused.
    pub breaker_refusals: AtomicU64,
}

impl NodeTraffic {
    pub fn sent(&self, n: usize) {
        self.bytes_sent.fetch_add(n as u64, Ordering::Relaxed);
    }

    pub fn received(&self, n: usize) {
        self.bytes_received.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// A client's metrics (`enabled` false: calls record nothing).
pub struct Metrics {
    enabled: bool,
    /// namespace -> node name ("" for a call spanning nodes) -> one cell per kind.
    calls: RwLock<HashMap<String, HashMap<String, Arc<Cells>>>>,
    pub events: Events,
    since: Instant,
}

impl Metrics {
    pub fn new(enabled: bool) -> Arc<Metrics> {
        Arc::new(Metrics {
            enabled,
            calls: RwLock::new(HashMap::new()),
            events: Events::default(),
            since: Instant::now(),
        })
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    fn cells(&self, namespace: &str, node: &str) -> Arc<Cells> {
        if let Some(c) = self.calls.read().get(namespace).and_then(|n| n.get(node)) {
            return c.clone();
        }
        let mut calls = self.calls.write();
        calls
            .entry(namespace.to_owned())
            .or_default()
            .entry(node.to_owned())
            .or_insert_with(|| Arc::new(std::array::from_fn(|_| Cell::default())))
            .clone()
    }

    /// Count a finished call (`node`: the node it was addressed to, when one) that made
    /// `retries` attempts after its first on the SDK's path.
    pub fn record(
        &self,
        meter: &Meter,
        node: &str,
        writes: bool,
        failure: Option<&Failure>,
        retries: u64,
    ) {
        let elapsed = meter.started.elapsed();
        let cells = self.cells(&meter.namespace, node);
        let at = Kind::ALL.iter().position(|k| *k == meter.kind).unwrap_or(0);
        let cell = &cells[at];
        cell.count.fetch_add(1, Ordering::Relaxed);
        let retries = retries + failure.map_or(0, Failure::crate_retries);
        if retries > 0 {
            cell.retries.fetch_add(retries, Ordering::Relaxed);
        }
        cell.latency
            .record(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
        if let Some(f) = failure {
            cell.errors.fetch_add(1, Ordering::Relaxed);
            let code = f.code();
            if code == TIMEOUT {
                cell.timeouts.fetch_add(1, Ordering::Relaxed);
            }
            let in_doubt = writes && f.in_doubt();
            if in_doubt {
                cell.in_doubt.fetch_add(1, Ordering::Relaxed);
            }
            if !f.answered() {
                log::debug!(
                    target: crate::metrics::logs::CALLS,
                    "{} in namespace {:?} (node {node:?}) gave up without an answer after \
                     {elapsed:?}: result code {code}, in doubt: {in_doubt}",
                    meter.kind.name(),
                    meter.namespace,
                );
            }
            *cell.codes.lock().entry(code).or_default() += 1;
        }
    }
}

/// The protocol's result code for a timeout.
const TIMEOUT: i32 = 9;

pub use snapshot::{Load, NodeRow, Snapshot};
