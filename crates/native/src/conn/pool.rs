//! The connections the wire path keeps on one runtime: per node, idle connections ready for
//! the next request; and per namespace, which node masters each partition, asked of the nodes
//! (`partitions::fetch`) on first use and again in the background once the table is a second old.
//!
//! A Tokio socket belongs to the runtime it was opened on, so each runtime a client calls on
//! (worker, caller-driven, each event loop's) has a pool of its own. Every pool of a client
//! draws on one budget per node ([`Links`]): a connection holds a place from its opening to
//! its closing, idle or not, so all runtimes and paths together keep at most the budget open.
//! A pool that finds the budget taken closes an idle connection of another runtime's pool to
//! make room, and waits only when every connection is in use.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use aerospike::policy::ClientPolicy;
use parking_lot::{Mutex, RwLock};
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use crate::cluster::info;
use crate::cluster::partitions::{self, Node, PARTITIONS};
use crate::cluster::view::Table;
use crate::conn::breaker::Tripped;
pub use crate::conn::connection::Conn;
use crate::conn::connection::{OpenError, Place};
use crate::conn::links::{Links, NodeBudget};

/// How long a table fetch waits for a node's answer.
const ANSWER_WITHIN: Duration = Duration::from_millis(500);
/// Read buffer of a connection: a reply up to this size comes in one `recv`.
const READ_BUFFER: usize = 16 * 1024;
/// A connection idle this long is checked for a close by the server before it is used.
const CHECK_AFTER: Duration = Duration::from_millis(10);
/// A connection whose buffer grew past this for a large record gives the memory back.
const KEEP_BUFFER: usize = 256 * 1024;

/// Set to send every single-record call through the crate instead (for comparisons).
const CRATE_RECORDS_ENV: &str = "AEROSPIKE_FLUENT_CRATE_RECORDS";

/// A table of the client's view, with this pool's connections of each of its nodes.
struct Local {
    table: Arc<Table>,
    conns: Vec<Arc<NodeConns>>,
}

/// One node's connections on this runtime.
pub struct NodeConns {
    name: String,
    address: String,
    tls_name: Option<String>,
    pub(super) idle: Mutex<Vec<Conn>>,
    budget: Arc<NodeBudget>,
}

pub struct Pool {
    /// False when every call goes to the crate (`AEROSPIKE_FLUENT_CRATE_RECORDS`).
    enabled: bool,
    links: Arc<Links>,
    idle_timeout: Option<Duration>,
    nodes: Mutex<HashMap<String, Arc<NodeConns>>>,
    /// The view's tables as this pool last saw them, with its connections of their nodes.
    local: RwLock<HashMap<String, Arc<Local>>>,
    closed: AtomicBool,
}

/// A connection taken from a node's pool: back to the pool with [`Lease::release`], closed
/// when dropped.
pub struct Lease {
    conn: Option<Conn>,
    node: Arc<NodeConns>,
}

/// Why no connection was leased.
pub enum NoLease {
    /// All the node's connections stayed busy until the deadline (the budget's size).
    Busy(usize),
    /// The node could not be reached, or refused the login.
    Unreachable(OpenError),
    /// The node's circuit breaker is open: nothing is sent to it until its window turns.
    Tripped(Tripped),
}

impl NodeConns {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn address(&self) -> &str {
        &self.address
    }
}

impl Pool {
    /// The pool of one runtime, drawing on the client's `links`.
    pub fn new(policy: &ClientPolicy, links: Arc<Links>) -> Arc<Pool> {
        let ms = |v: u32| (v > 0).then(|| Duration::from_millis(u64::from(v)));
        Arc::new(Pool {
            enabled: links.usable() && std::env::var_os(CRATE_RECORDS_ENV).is_none(),
            links,
            idle_timeout: ms(policy.idle_timeout),
            nodes: Mutex::new(HashMap::new()),
            local: RwLock::new(HashMap::new()),
            closed: AtomicBool::new(false),
        })
    }

    /// What every runtime's pool of the client shares.
    pub fn links(&self) -> &Arc<Links> {
        &self.links
    }

    pub fn enabled(&self) -> bool {
        self.enabled && !self.closed.load(Ordering::Relaxed)
    }

    /// Close the idle connections; calls after this go to the crate.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.local.write().clear();
        for node in self.nodes.lock().values() {
            node.idle.lock().clear();
        }
    }

    /// The node holding copy `sequence` of partition `pid` of `namespace`, counting the
    /// master as copy 0 and wrapping round the copies the table knows (`None`: none known;
    /// the crate's path then serves the call).
    pub async fn node_for(
        self: &Arc<Self>,
        client: &aerospike::Client,
        namespace: &str,
        pid: u16,
        sequence: usize,
    ) -> Option<Arc<NodeConns>> {
        let table = self.table(client, namespace).await;
        let at = table.map.copy(usize::from(pid) % PARTITIONS, sequence)?;
        let local = self.local.read().get(namespace).cloned();
        let local = match local {
            Some(l) if Arc::ptr_eq(&l.table, &table) => l,
            _ => {
                let l = Arc::new(Local {
                    conns: self.node_conns(table.nodes()),
                    table,
                });
                self.local.write().insert(namespace.to_owned(), l.clone());
                l
            }
        };
        local.conns.get(at).cloned()
    }

    /// The client's table of `namespace`: the one it has (fetching the next in the background
    /// when it is due), or the first, waited for.
    pub async fn table(self: &Arc<Self>, client: &aerospike::Client, ns: &str) -> Arc<Table> {
        let view = &self.links.view;
        match view.table(ns) {
            Some(t) => {
                if t.due() {
                    self.fetch_in_background(client, ns);
                }
                t
            }
            None => {
                view.first(ns, || self.fetch_in_background(client, ns))
                    .await
            }
        }
    }

    /// A table of `namespace` newer than `than`, fetched now (a scan's next round).
    pub async fn newer_table(
        self: &Arc<Self>,
        client: &aerospike::Client,
        ns: &str,
        than: &Arc<Table>,
    ) -> Arc<Table> {
        let fetch = || self.fetch_in_background(client, ns);
        self.links.view.newer(ns, than, fetch).await
    }

    /// Whether every node answered and none serves `namespace` (as of the current table).
    pub fn lacks_namespace(&self, namespace: &str) -> bool {
        self.links
            .view
            .table(namespace)
            .is_some_and(|t| t.map.lacks_namespace())
    }

    /// Close idle connections past `idle` in every runtime's pool, keeping `min` per node.
    pub fn reap(&self, idle: Duration, min: usize) {
        self.links.reap(idle, min);
    }

    /// Open connections to each of the cluster's nodes until the wire path holds `min` there
    /// (the worker runtime's pool keeps them idle for the next calls).
    pub async fn keep_min(self: &Arc<Self>, client: &aerospike::Client, min: usize) {
        let until = Instant::now() + ANSWER_WITHIN;
        for node in client.nodes() {
            let conns = self.conns_of(&Node::of(&node));
            if self.links.rate.is_open(&conns.budget.traffic) {
                continue;
            }
            let open = self.links.open_to(&conns.name);
            let opening = (open..min).map(|_| async {
                let permit = conns.budget.permits.clone().try_acquire_owned().ok()?;
                let lease = self.open(&conns, permit, Some(until)).await.ok()?;
                lease.release(self);
                Some(())
            });
            futures::future::join_all(opening).await;
        }
    }

    /// The client's current table of `namespace`, per node: partitions mastered, replicas held.
    pub async fn owners(
        self: &Arc<Self>,
        client: &aerospike::Client,
        namespace: &str,
    ) -> Vec<(String, usize, usize)> {
        self.table(client, namespace).await.owners()
    }

    /// A node joined or left: fetch every namespace's table now, not at its next call, so the
    /// partition map (and its metrics) follow the cluster without traffic.
    pub fn refresh_tables(self: &Arc<Self>, client: &aerospike::Client) {
        for ns in self.links.view.namespaces() {
            self.stale(&ns);
            self.fetch_in_background(client, &ns);
        }
    }

    /// The next table may be wrong about `namespace`'s partitions: ask the nodes again.
    pub fn stale(&self, namespace: &str) {
        self.links.view.stale(namespace);
    }

    /// Fetch `namespace`'s table in a task of its own, unless one is under way. The fetch
    /// runs on its own: a caller giving up (its deadline) stops only its own wait.
    fn fetch_in_background(self: &Arc<Self>, client: &aerospike::Client, ns: &str) {
        if self.closed.load(Ordering::Acquire) || !self.links.view.claim(ns) {
            return;
        }
        let (pool, client, ns) = (self.clone(), client.clone(), ns.to_owned());
        tokio::spawn(async move {
            let table = pool.fetch(&client, &ns).await;
            let owners = table.owners();
            if pool.links.view.insert(&ns, table) {
                let events = &pool.links.metrics.events;
                events.partition_map_changes.fetch_add(1, Ordering::Relaxed);
                log::info!(
                    target: crate::metrics::logs::CLUSTER,
                    "partition map of namespace {ns} changed: (node, masters, replicas) {owners:?}"
                );
            }
        });
    }

    async fn fetch(&self, client: &aerospike::Client, ns: &str) -> Arc<Table> {
        let nodes: Vec<Arc<Node>> = client.nodes().iter().map(|n| Node::of(n)).collect();
        let conns = self.node_conns(&nodes);
        // A node that does not answer in time masters nothing until the next fetch (its
        // partitions go to the crate's path meanwhile), so one slow node stalls no table.
        let until = Instant::now() + ANSWER_WITHIN;
        let answers =
            futures::future::join_all(conns.iter().map(|n| self.replicas(n, until))).await;
        Arc::new(Table::new(partitions::from_answers(nodes, answers, ns)))
    }

    /// A node's `replicas` info answer, asked over a connection of this pool.
    async fn replicas(&self, node: &Arc<NodeConns>, until: Instant) -> Option<String> {
        let mut lease = self.lease_any(node, Some(until)).await.ok()?;
        let conn = lease.conn();
        let answer = tokio::time::timeout_at(until, info::ask(conn, "replicas"))
            .await
            .ok()
            .flatten()?;
        lease.release(self);
        Some(answer)
    }

    /// This pool's connections of each of `nodes`.
    fn node_conns(&self, nodes: &[Arc<Node>]) -> Vec<Arc<NodeConns>> {
        let mut known = self.nodes.lock();
        // A node that left (or moved) takes its idle connections with it.
        known.retain(|name, c| {
            nodes
                .iter()
                .any(|n| n.name == *name && n.address == c.address)
        });
        nodes.iter().map(|n| self.conns_in(&mut known, n)).collect()
    }

    /// This pool's connections of `node` (a scan's, say, which routes on its own).
    pub fn conns_of(&self, node: &Node) -> Arc<NodeConns> {
        let mut known = self.nodes.lock();
        match known.get(&node.name) {
            Some(c) if c.address == node.address => c.clone(),
            _ => {
                known.remove(&node.name);
                self.conns_in(&mut known, node)
            }
        }
    }

    fn conns_in(&self, known: &mut HashMap<String, Arc<NodeConns>>, n: &Node) -> Arc<NodeConns> {
        known
            .entry(n.name.clone())
            .or_insert_with(|| {
                let budget = self.links.budget(&n.name);
                let conns = Arc::new(NodeConns {
                    name: n.name.clone(),
                    address: n.address.clone(),
                    tls_name: n.tls_name.clone(),
                    idle: Mutex::new(Vec::new()),
                    budget: budget.clone(),
                });
                budget.pools.lock().push(Arc::downgrade(&conns));
                conns
            })
            .clone()
    }

    /// A connection for a call to `node`, unless its circuit breaker is open (see
    /// [`Pool::lease_any`]).
    pub async fn lease(
        &self,
        node: &Arc<NodeConns>,
        until: Option<Instant>,
    ) -> Result<Lease, NoLease> {
        self.links
            .rate
            .admit(&node.budget.traffic, &node.name, &node.address)
            .map_err(NoLease::Tripped)?;
        self.lease_any(node, until).await
    }

    /// Count an error of `node` for its circuit breaker (a lost connection, a timeout, or the
    /// server's timeout, key-busy or device-overload refusal).
    pub fn failed(&self, node: &NodeConns) {
        self.links.rate.count(&node.budget.traffic);
    }

    /// An idle connection to `node`, or a new one; waits until `until` while all the node's
    /// connections are in use.
    async fn lease_any(
        &self,
        node: &Arc<NodeConns>,
        until: Option<Instant>,
    ) -> Result<Lease, NoLease> {
        let budget = &node.budget;
        if let Some(lease) = self.idle_lease(node) {
            return Ok(lease);
        }
        if let Some(permit) = budget.take_now(node) {
            return self.open(node, permit, until).await;
        }
        let busy = || NoLease::Busy(self.links.limit);
        budget.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = scopeguard(|| budget.waiting.fetch_sub(1, Ordering::SeqCst));
        loop {
            let released = budget.released.notified();
            tokio::pin!(released);
            released.as_mut().enable();
            if let Some(lease) = self.idle_lease(node) {
                return Ok(lease);
            }
            if let Some(permit) = budget.take_now(node) {
                return self.open(node, permit, until).await;
            }
            let wait = async {
                tokio::select! {
                    p = budget.permits.clone().acquire_owned() => p.ok(),
                    () = released => None,
                }
            };
            let permit = match until {
                Some(at) => tokio::time::timeout_at(at, wait)
                    .await
                    .map_err(|_| busy())?,
                None => wait.await,
            };
            if let Some(permit) = permit {
                return self.open(node, permit, until).await;
            }
        }
    }

    /// One of this pool's idle connections to `node` that is still open.
    fn idle_lease(&self, node: &Arc<NodeConns>) -> Option<Lease> {
        let now = Instant::now();
        loop {
            let conn = node.idle.lock().pop()?;
            let idle = now.duration_since(conn.used);
            if self.idle_timeout.is_some_and(|t| idle >= t) {
                continue;
            }
            if idle < CHECK_AFTER || conn.stream.alive() {
                return Some(Lease {
                    conn: Some(conn),
                    node: node.clone(),
                });
            }
        }
    }

    /// Open a connection to `node` in the place `permit` holds.
    async fn open(
        &self,
        node: &Arc<NodeConns>,
        permit: OwnedSemaphorePermit,
        until: Option<Instant>,
    ) -> Result<Lease, NoLease> {
        // boxed: connecting (TLS, login) is kilobytes of state every call's future would hold
        let open = Box::pin(
            self.links
                .dialer
                .open(&node.address, node.tls_name.as_deref()),
        );
        let traffic = &node.budget.traffic;
        let stream = match until {
            Some(at) => tokio::time::timeout_at(at, open).await.map_err(|_| {
                NoLease::Unreachable(OpenError::Unreachable(std::io::ErrorKind::TimedOut.into()))
            }),
            None => Ok(open.await),
        }
        .and_then(|r| r.map_err(NoLease::Unreachable))
        .inspect_err(|_| {
            traffic.open_failures.fetch_add(1, Ordering::Relaxed);
            self.links.rate.count(traffic);
        })?;
        Ok(Lease {
            conn: Some(Conn {
                stream,
                out: Vec::with_capacity(512),
                buf: Vec::with_capacity(READ_BUFFER),
                used: Instant::now(),
                place: Place::new(permit, traffic.clone()),
            }),
            node: node.clone(),
        })
    }
}

/// Runs `f` when dropped.
fn scopeguard<F: FnOnce() -> R, R>(f: F) -> impl Drop {
    struct Guard<F: FnOnce() -> R, R>(Option<F>);
    impl<F: FnOnce() -> R, R> Drop for Guard<F, R> {
        fn drop(&mut self) {
            if let Some(f) = self.0.take() {
                f();
            }
        }
    }
    Guard(Some(f))
}

impl Lease {
    pub fn conn(&mut self) -> &mut Conn {
        self.conn
            .as_mut()
            .expect("a lease holds its connection until released")
    }

    /// Give the connection back for the next call.
    pub fn release(mut self, pool: &Pool) {
        if let Some(mut conn) = self.conn.take() {
            if conn.buf.capacity() > KEEP_BUFFER {
                conn.buf = Vec::with_capacity(READ_BUFFER);
            }
            if conn.out.capacity() > KEEP_BUFFER {
                conn.out = Vec::new();
            }
            conn.used = Instant::now();
            let mut idle = self.node.idle.lock();
            // Checked under the lock `close` clears the list under: no socket outlives it.
            if !pool.closed.load(Ordering::Acquire) {
                idle.push(conn);
            }
            drop(idle);
            let budget = &self.node.budget;
            if budget.waiting.load(Ordering::SeqCst) > 0 {
                budget.released.notify_waiters();
            }
        }
    }
}
