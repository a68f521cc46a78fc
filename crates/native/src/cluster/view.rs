//! The client's one view of where partitions live, per namespace: the master and the replicas
//! of each partition, as the nodes answer `replicas`. Every runtime's pool and every scan reads
//! the same table; whichever call finds it missing, a second old or marked stale fetches the
//! next one (one fetch at a time per namespace), and every call sees it as soon as it lands.
//!
//! A table is marked stale when a node refuses a call because it does not hold the partition
//! (partition unavailable), or a call cannot reach the node the table names, so the next call
//! asks the nodes again instead of waiting for the table's age.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::cluster::partitions::{Map, Node};

/// How old a table may get before a call refreshes it (the crate's tend interval).
pub const TABLE_AGE: Duration = Duration::from_secs(1);
/// A fetch running this long is taken as abandoned (its runtime stopped): another may start.
const FETCH_ABANDONED: Duration = Duration::from_secs(2);

/// Where one namespace's partitions live.
pub struct Table {
    pub map: Map,
    at: Instant,
    stale: AtomicBool,
}

impl Table {
    pub fn new(map: Map) -> Table {
        Table {
            map,
            at: Instant::now(),
            stale: AtomicBool::new(false),
        }
    }

    /// Whether the next call should ask the nodes again.
    pub fn due(&self) -> bool {
        self.stale.load(Ordering::Relaxed) || self.at.elapsed() > TABLE_AGE
    }

    pub fn nodes(&self) -> &[Arc<Node>] {
        &self.map.nodes
    }

    /// Per node: how many partitions it masters, and how many replicas of others it holds.
    pub fn owners(&self) -> Vec<(String, usize, usize)> {
        let count =
            |copy: &[Option<usize>], node: usize| copy.iter().filter(|o| **o == Some(node)).count();
        self.map
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let replicas = self.map.replicas.iter().map(|c| count(c, i)).sum();
                (n.name().to_owned(), count(&self.map.master, i), replicas)
            })
            .collect()
    }
}

#[derive(Default)]
pub struct View {
    tables: RwLock<HashMap<String, Arc<Table>>>,
    /// Namespaces whose table is being fetched, since when.
    fetching: Mutex<HashMap<String, Instant>>,
    /// Woken when a table lands.
    inserted: Notify,
}

impl View {
    pub fn table(&self, ns: &str) -> Option<Arc<Table>> {
        self.tables.read().get(ns).cloned()
    }

    /// The namespaces that have a table.
    pub fn namespaces(&self) -> Vec<String> {
        self.tables.read().keys().cloned().collect()
    }

    /// Mark `ns`'s table stale: the next call fetches another.
    pub fn stale(&self, ns: &str) {
        if let Some(t) = self.tables.read().get(ns) {
            t.stale.store(true, Ordering::Relaxed);
        }
    }

    /// Claim the fetch of `ns`'s next table (false: one is under way).
    pub fn claim(&self, ns: &str) -> bool {
        let mut fetching = self.fetching.lock();
        let now = Instant::now();
        match fetching.get(ns) {
            Some(since) if now.duration_since(*since) < FETCH_ABANDONED => false,
            _ => {
                fetching.insert(ns.to_owned(), now);
                true
            }
        }
    }

    /// The node mastering partition `pid` of `ns`, as of the current table.
    pub fn master(&self, ns: &str, pid: u16) -> Option<Arc<Node>> {
        let tables = self.tables.read();
        let map = &tables.get(ns)?.map;
        let at = (*map.master.get(usize::from(pid))?)?;
        map.nodes.get(at).cloned()
    }

    /// Publish a fetched table and end the fetch; whether its owners differ from the last
    /// table's (false for the first).
    pub fn insert(&self, ns: &str, table: Arc<Table>) -> bool {
        let last = self.tables.write().insert(ns.to_owned(), table.clone());
        self.fetching.lock().remove(ns);
        self.inserted.notify_waiters();
        last.is_some_and(|l| !l.map.same_owners(&table.map))
    }

    /// Wait for `ns`'s table; `fetch` starts a fetch when none is under way.
    pub async fn first(&self, ns: &str, fetch: impl Fn()) -> Arc<Table> {
        loop {
            // Created before the look, so an insert after it still wakes this call.
            let inserted = self.inserted.notified();
            if let Some(t) = self.table(ns) {
                return t;
            }
            fetch();
            let _ = tokio::time::timeout(FETCH_ABANDONED, inserted).await;
        }
    }

    /// A table newer than `than` (a scan's next round after a failed one), waiting for the
    /// fetch it starts.
    pub async fn newer(&self, ns: &str, than: &Arc<Table>, fetch: impl Fn()) -> Arc<Table> {
        than.stale.store(true, Ordering::Relaxed);
        loop {
            let inserted = self.inserted.notified();
            match self.table(ns) {
                Some(t) if !Arc::ptr_eq(&t, than) => return t,
                _ => {}
            }
            fetch();
            let _ = tokio::time::timeout(FETCH_ABANDONED, inserted).await;
        }
    }
}
