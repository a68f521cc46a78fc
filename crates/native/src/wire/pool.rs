//! The connections the single-record wire path keeps on one runtime: per node, idle
//! connections ready for the next request, at most `max_conns_per_node` open; and per
//! namespace, which node masters each partition, asked of the nodes (`route::fetch`) on first
//! use and again in the background once the table is a second old.
//!
//! A Tokio socket belongs to the runtime it was opened on, so each runtime a client calls on
//! (worker, caller-driven, each event loop's) has a pool of its own, next to its crate client.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use aerospike::policy::{AuthMode, ClientPolicy};
use parking_lot::{Mutex, RwLock};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::info;
use super::route::{self, PARTITIONS};

/// How old a partition table may get before a call refreshes it (the crate's tend interval).
const TABLE_AGE: Duration = Duration::from_secs(1);
/// How long a table fetch waits for a node's answer.
const ANSWER_WITHIN: Duration = Duration::from_millis(500);
/// Read buffer of a connection: a reply up to this size comes in one `recv`.
const READ_BUFFER: usize = 16 * 1024;
/// A connection idle this long is checked for a close by the server before it is used.
const CHECK_AFTER: Duration = Duration::from_millis(10);
/// A connection whose buffer grew past this for a large record gives the memory back.
const KEEP_BUFFER: usize = 256 * 1024;

/// Largest reply read (a record is at most 8 MiB on a server).
const MAX_REPLY: usize = 64 << 20;

/// Set to send every single-record call through the crate instead (for comparisons).
const CRATE_RECORDS_ENV: &str = "AEROSPIKE_FLUENT_CRATE_RECORDS";

/// An open connection to a node, with the buffers of its requests and replies.
pub struct Conn {
    pub stream: TcpStream,
    pub out: Vec<u8>,
    pub buf: Vec<u8>,
    used: Instant,
}

impl Conn {
    /// Send `self.out` and read one reply of proto type `kind` into `self.buf`; the body's
    /// length (`None`: the connection failed, or the reply is not one).
    pub async fn exchange(&mut self, kind: u8) -> Option<usize> {
        self.stream.write_all(&self.out).await.ok()?;
        self.buf.clear();
        self.read_frame(kind).await
    }

    /// Read until `self.buf` starts with a whole reply of proto type `kind` (bytes after it
    /// may follow); its body's length (`None`: the connection failed, or the reply is not one).
    pub async fn read_frame(&mut self, kind: u8) -> Option<usize> {
        loop {
            let want = match self.buf.get(..8) {
                Some(h) => {
                    let proto = u64::from_be_bytes(h.try_into().ok()?);
                    let size = usize::try_from(proto & 0xFFFF_FFFF_FFFF).ok()?;
                    if h[1] != kind || size > MAX_REPLY {
                        return None;
                    }
                    if self.buf.len() >= 8 + size {
                        return Some(size);
                    }
                    8 + size - self.buf.len()
                }
                None => 0,
            };
            self.buf.reserve(want);
            match self.stream.read_buf(&mut self.buf).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }
}

/// One node's connections on this runtime: a permit per connection in use.
pub struct NodeConns {
    name: String,
    address: String,
    idle: Mutex<Vec<Conn>>,
    permits: Arc<Semaphore>,
}

/// Which node masters each partition of one namespace.
struct Table {
    nodes: Vec<Arc<NodeConns>>,
    master: Vec<Option<u16>>,
    at: Instant,
}

pub struct Pool {
    /// False on clusters this path does not serve (login, TLS): every call goes to the crate.
    enabled: bool,
    per_node: usize,
    idle_timeout: Option<Duration>,
    nodes: Mutex<HashMap<String, Arc<NodeConns>>>,
    tables: RwLock<HashMap<String, Arc<Table>>>,
    /// Namespaces whose table is being fetched.
    fetching: Mutex<HashSet<String>>,
    /// Woken when a fetch ends.
    inserted: Notify,
    closed: AtomicBool,
}

/// A connection taken from a node's pool: back to the pool with [`Lease::release`], closed
/// when dropped.
pub struct Lease {
    conn: Option<Conn>,
    node: Arc<NodeConns>,
    _permit: OwnedSemaphorePermit,
}

/// Why no connection was leased.
pub enum NoLease {
    /// All `max_conns_per_node` connections stayed busy until the deadline.
    Busy(usize),
    /// The node could not be reached.
    Unreachable,
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
    /// The pool of a runtime whose crate client was connected with `policy`.
    pub fn new(policy: &ClientPolicy) -> Arc<Pool> {
        let ms = |v: u32| (v > 0).then(|| Duration::from_millis(u64::from(v)));
        Arc::new(Pool {
            enabled: matches!(policy.auth_mode, AuthMode::None)
                && policy.tls_policy.is_none()
                && std::env::var_os(CRATE_RECORDS_ENV).is_none(),
            per_node: policy.max_conns_per_node.max(1),
            idle_timeout: ms(policy.idle_timeout),
            nodes: Mutex::new(HashMap::new()),
            tables: RwLock::new(HashMap::new()),
            fetching: Mutex::new(HashSet::new()),
            inserted: Notify::new(),
            closed: AtomicBool::new(false),
        })
    }

    pub fn enabled(&self) -> bool {
        self.enabled && !self.closed.load(Ordering::Relaxed)
    }

    /// Close the idle connections; calls after this go to the crate.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.tables.write().clear();
        for node in self.nodes.lock().values() {
            node.idle.lock().clear();
        }
    }

    /// The node mastering partition `pid` of `namespace` (`None`: none known; the crate's
    /// path then serves the call).
    pub async fn node_for(
        self: &Arc<Self>,
        client: &aerospike::Client,
        namespace: &str,
        pid: u16,
    ) -> Option<Arc<NodeConns>> {
        let known = self.tables.read().get(namespace).cloned();
        let table = match known {
            Some(t) => {
                if t.at.elapsed() > TABLE_AGE {
                    self.fetch_in_background(client, namespace);
                }
                t
            }
            None => self.first_table(client, namespace).await,
        };
        let at = table.master.get(usize::from(pid) % PARTITIONS).copied()??;
        table.nodes.get(usize::from(at)).cloned()
    }

    /// Wait for `namespace`'s first table. The fetch runs on its own: a caller giving up (its
    /// deadline) stops only its own wait.
    async fn first_table(self: &Arc<Self>, client: &aerospike::Client, ns: &str) -> Arc<Table> {
        loop {
            // Created before the look, so an insert after it still wakes this call.
            let inserted = self.inserted.notified();
            if let Some(t) = self.tables.read().get(ns).cloned() {
                return t;
            }
            self.fetch_in_background(client, ns);
            inserted.await;
        }
    }

    /// Fetch `namespace`'s table in a task of its own, unless one is under way.
    fn fetch_in_background(self: &Arc<Self>, client: &aerospike::Client, ns: &str) {
        if self.closed.load(Ordering::Acquire) || !self.fetching.lock().insert(ns.to_owned()) {
            return;
        }
        let (pool, client, ns) = (self.clone(), client.clone(), ns.to_owned());
        tokio::spawn(async move {
            pool.fetch(&client, &ns).await;
            pool.fetching.lock().remove(&ns);
            pool.inserted.notify_waiters();
        });
    }

    async fn fetch(&self, client: &aerospike::Client, ns: &str) -> Arc<Table> {
        let crate_nodes = client.nodes();
        let conns = self.node_conns(&crate_nodes);
        // A node that does not answer in time masters nothing until the next fetch (its
        // partitions go to the crate's path meanwhile), so one slow node stalls no table.
        let until = Instant::now() + ANSWER_WITHIN;
        let answers =
            futures::future::join_all(conns.iter().map(|n| self.replicas(n, until))).await;
        let map = route::from_answers(crate_nodes, answers, ns);
        let master = map
            .master
            .iter()
            .map(|m| m.and_then(|i| u16::try_from(i).ok()))
            .collect();
        let table = Arc::new(Table {
            nodes: conns,
            master,
            at: Instant::now(),
        });
        if !self.closed.load(Ordering::Acquire) {
            self.tables.write().insert(ns.to_owned(), table.clone());
        }
        table
    }

    /// A node's `replicas` info answer, asked over a connection of this pool.
    async fn replicas(&self, node: &Arc<NodeConns>, until: Instant) -> Option<String> {
        let mut lease = self.lease(node, Some(until)).await.ok()?;
        let conn = lease.conn();
        let answer = tokio::time::timeout_at(until, info::ask(conn, "replicas"))
            .await
            .ok()
            .flatten()?;
        lease.release(self);
        Some(answer)
    }

    /// This pool's connections of each of `nodes`.
    fn node_conns(&self, nodes: &[Arc<aerospike::Node>]) -> Vec<Arc<NodeConns>> {
        let mut known = self.nodes.lock();
        // A node that left (or moved) takes its idle connections with it.
        known.retain(|name, c| {
            nodes
                .iter()
                .any(|n| n.name() == name && n.address() == c.address)
        });
        nodes
            .iter()
            .map(|n| {
                known
                    .entry(n.name().to_owned())
                    .or_insert_with(|| {
                        Arc::new(NodeConns {
                            name: n.name().to_owned(),
                            address: n.address().to_owned(),
                            idle: Mutex::new(Vec::new()),
                            permits: Arc::new(Semaphore::new(self.per_node)),
                        })
                    })
                    .clone()
            })
            .collect()
    }

    /// An idle connection to `node`, or a new one; waits until `until` while all
    /// `max_conns_per_node` are in use.
    pub async fn lease(
        &self,
        node: &Arc<NodeConns>,
        until: Option<Instant>,
    ) -> Result<Lease, NoLease> {
        let permit = node.permits.clone().try_acquire_owned();
        let permit = match (permit, until) {
            (Ok(p), _) => p,
            (Err(_), Some(at)) => tokio::time::timeout_at(at, node.permits.clone().acquire_owned())
                .await
                .map_err(|_| NoLease::Busy(self.per_node))?
                .map_err(|_| NoLease::Unreachable)?,
            (Err(_), None) => node
                .permits
                .clone()
                .acquire_owned()
                .await
                .map_err(|_| NoLease::Unreachable)?,
        };
        let now = Instant::now();
        loop {
            let Some(conn) = node.idle.lock().pop() else {
                break;
            };
            let idle = now.duration_since(conn.used);
            if self.idle_timeout.is_some_and(|t| idle >= t) {
                continue;
            }
            if idle < CHECK_AFTER || alive(&conn.stream) {
                return Ok(Lease {
                    conn: Some(conn),
                    node: node.clone(),
                    _permit: permit,
                });
            }
        }
        let connect = TcpStream::connect(node.address.as_str());
        let stream = match until {
            Some(at) => tokio::time::timeout_at(at, connect).await.ok(),
            None => Some(connect.await),
        };
        let stream = stream.and_then(Result::ok).ok_or(NoLease::Unreachable)?;
        let _ = stream.set_nodelay(true);
        Ok(Lease {
            conn: Some(Conn {
                stream,
                out: Vec::with_capacity(512),
                buf: Vec::with_capacity(READ_BUFFER),
                used: now,
            }),
            node: node.clone(),
            _permit: permit,
        })
    }
}

/// Whether an idle connection is still open: nothing to read and no end of stream (a server
/// that restarted or reaped it closed it while it sat in the pool).
fn alive(stream: &TcpStream) -> bool {
    let mut probe = [std::mem::MaybeUninit::<u8>::uninit(); 1];
    matches!(
        socket2::SockRef::from(stream).peek(&mut probe),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
    )
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
        }
    }
}
