//! In-memory server speaking the Aerospike wire protocol: one node, or a cluster of nodes in one
//! process ([`Cluster`]), with in-memory namespaces.
//!
//! Public surface used by the `native` crate (and so by Python):
//! [`ServerConfig`], [`Server::start`], [`Server::addr`], [`Server::stop`], [`Server::restart`],
//! [`Server::faults`], [`Server::stats`], and [`Cluster`].

mod aggregate;
mod auth;
mod background;
mod batch;
mod bins;
mod budget;
mod clock;
mod cluster;
mod conn;
mod dispatch;
mod engine_ops;
mod faults;
#[cfg(test)]
mod fuzz;
mod info;
mod jobs;
mod log;
mod offload;
mod partition;
mod query;
mod query_kind;
mod read_touch;
mod record;
mod record_lock;
mod request;
mod security;
mod sindex;
mod stats;
mod store;
mod tls;
mod ttl;
mod txn;
mod udf;
pub mod wire;

pub use info::cluster_name_is_valid;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::thread::JoinHandle;

pub use cluster::{Cluster, ClusterConfig, Node as ClusterNode, NodeStatus};
pub use faults::Faults;
use stats::Stats;
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::oneshot;

/// Where to listen, which namespaces to serve, and optional TLS and users.
#[derive(Clone)]
pub struct ServerConfig {
    pub host: String,
    /// 0 = any free port.
    pub port: u16,
    pub namespaces: Vec<String>,
    /// PEM certificate chain and private key: when both are set, every connection is TLS.
    pub tls_cert_file: Option<String>,
    pub tls_key_file: Option<String>,
    /// Internal users as `(name, password)`: when not empty, data commands need a login.
    pub users: Vec<(String, String)>,
    /// Which edition's rules to follow (Community refuses Enterprise-only requests).
    pub edition: Edition,
    /// The node's `rack-id` for every namespace (0: none; other ids are Enterprise-only).
    pub rack_id: u32,
    /// Namespaces in strong-consistency mode (Enterprise-only): they take transactions.
    pub strong_consistency: Vec<String>,
    /// The node's `cluster-name` (1 to 63 bytes); None answers `null`, as a node without one.
    pub cluster_name: Option<String>,
}

/// The server edition whose behaviour the embedded server follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Edition {
    /// Refuses durable deletes and compressed requests with ENTERPRISE_ONLY (25), never
    /// compresses replies: as Aerospike Community Edition.
    #[default]
    Community,
    /// Accepts durable deletes (as plain deletes: there are no tombstones in memory) and
    /// compression.
    Enterprise,
}

impl std::fmt::Debug for ServerConfig {
    /// Never shows passwords.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.users.iter().map(|(u, _)| u.as_str()).collect();
        f.debug_struct("ServerConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("namespaces", &self.namespaces)
            .field("tls_cert_file", &self.tls_cert_file)
            .field("tls_key_file", &self.tls_key_file)
            .field("users", &names)
            .field("edition", &self.edition)
            .field("rack_id", &self.rack_id)
            .field("strong_consistency", &self.strong_consistency)
            .finish()
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            host: "127.0.0.1".into(),
            port: 0,
            namespaces: vec!["test".into(), "bar".into()],
            tls_cert_file: None,
            tls_key_file: None,
            users: Vec::new(),
            edition: Edition::Community,
            rack_id: 0,
            strong_consistency: Vec::new(),
            cluster_name: None,
        }
    }
}

/// Stack of every server thread: values nested up to `engine::pack::MAX_NESTING` levels are
/// decoded and evaluated recursively, with room to spare in a development build (only the
/// pages touched are ever committed).
const THREAD_STACK: usize = 16 * 1024 * 1024;

/// How long `restart` waits for its address, and how often it tries.
const REBIND_WAIT: std::time::Duration = std::time::Duration::from_secs(1);
const REBIND_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// State shared by the listener and every connection; survives restarts.
pub(crate) struct Shared {
    pub stats: Stats,
    pub faults: Faults,
    pub store: store::Store,
    /// Indexes and UDF modules: one registry for every node of a cluster.
    pub sindexes: Arc<sindex::Registry>,
    pub udfs: Arc<engine::udf::Registry>,
    /// Members and partition owners as this node sees them.
    view: RwLock<Arc<cluster::View>>,
    /// Set when the node belongs to a [`Cluster`].
    member: OnceLock<cluster::Member>,
    pub started: std::time::Instant,
    /// TLS acceptor when TLS is on.
    pub tls: Option<tokio_rustls::TlsAcceptor>,
    /// Internal users when security is on.
    pub users: Option<auth::Users>,
    pub edition: Edition,
    rack_id: u32,
    /// `cluster-name` as configured at start (`set-config` may change it later).
    pub cluster_name: Option<String>,
    /// Request and reply buffer bytes held by all connections beyond their base buffers.
    pub buffered: AtomicUsize,
    host: String,
    port: AtomicU16,
    /// Finished background jobs, for `query-show`.
    pub jobs: jobs::Jobs,
}

impl Shared {
    fn new(config: &ServerConfig) -> std::io::Result<Shared> {
        Shared::with_registries(
            config,
            Arc::default(),
            Arc::new(engine::udf::Registry::new()),
        )
    }

    /// A node sharing indexes and UDF modules with others (a cluster's).
    fn with_registries(
        config: &ServerConfig,
        sindexes: Arc<sindex::Registry>,
        udfs: Arc<engine::udf::Registry>,
    ) -> std::io::Result<Shared> {
        let invalid = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, m);
        let tls = match (&config.tls_cert_file, &config.tls_key_file) {
            (Some(cert), Some(key)) => Some(tls::acceptor(cert, key)?),
            (None, None) => None,
            _ => {
                return Err(invalid(
                    "TLS needs both a certificate and a key file".into(),
                ))
            }
        };
        if let Some(name) = &config.cluster_name {
            if !info::cluster_name_is_valid(name) {
                return Err(invalid(format!(
                    "cluster name {name:?} must be 1 to 63 bytes, without ';' or whitespace"
                )));
            }
        }
        if config.rack_id != 0 && config.edition == Edition::Community {
            return Err(invalid(
                "'rack-id' is enterprise-only: start it with the enterprise edition".into(),
            ));
        }
        if !config.strong_consistency.is_empty() && config.edition == Edition::Community {
            return Err(invalid(
                "'strong-consistency' is enterprise-only: start it with the enterprise edition"
                    .into(),
            ));
        }
        if let Some(ns) = config
            .strong_consistency
            .iter()
            .find(|n| !config.namespaces.contains(n))
        {
            return Err(invalid(format!(
                "strong consistency for {ns:?}, which is not one of the namespaces {:?}",
                config.namespaces
            )));
        }
        let users = if config.users.is_empty() {
            None
        } else {
            Some(auth::Users::new(&config.users).map_err(invalid)?)
        };
        Ok(Shared {
            stats: Stats::default(),
            faults: Faults::default(),
            store: store::Store::new(
                &config.namespaces,
                config.edition == Edition::Enterprise,
                &config.strong_consistency,
            ),
            edition: config.edition,
            rack_id: config.rack_id,
            cluster_name: config.cluster_name.clone(),
            sindexes,
            udfs,
            view: RwLock::new(Arc::new(cluster::View::solo(0, 1))),
            member: OnceLock::new(),
            started: std::time::Instant::now(),
            tls,
            users,
            buffered: AtomicUsize::new(0),
            host: config.host.clone(),
            port: AtomicU16::new(config.port),
            jobs: jobs::Jobs::default(),
        })
    }

    /// Whether connections use TLS.
    pub fn tls_on(&self) -> bool {
        self.tls.is_some()
    }

    /// The port actually listened on.
    pub fn port(&self) -> u16 {
        self.port.load(Ordering::Relaxed)
    }

    /// The host the server was configured with.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The node name: 16 hex digits derived from the port.
    pub fn node_name(&self) -> String {
        format!("BB9{:013X}", self.port())
    }

    /// The node's rack id (0: none).
    pub fn rack_id(&self) -> u32 {
        self.rack_id
    }

    /// The node id the name spells.
    pub fn node_id(&self) -> u64 {
        u64::from_str_radix(&self.node_name(), 16).unwrap_or(0)
    }

    /// The current view of the cluster.
    pub fn view(&self) -> Arc<cluster::View> {
        self.view.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set_view(&self, view: Arc<cluster::View>) {
        *self.view.write().unwrap_or_else(|e| e.into_inner()) = view;
    }

    /// The cluster link when the node belongs to a cluster.
    pub(crate) fn member(&self) -> Option<&cluster::Member> {
        self.member.get()
    }
}

/// A running listener: its thread and the switch that stops it.
struct Running {
    stop_tx: oneshot::Sender<()>,
    thread: JoinHandle<()>,
}

/// An embedded server on its own thread and Tokio runtime.
pub struct Server {
    shared: Arc<Shared>,
    addr: SocketAddr,
    running: Mutex<Option<Running>>,
}

impl Server {
    /// Binds and starts serving; returns once the socket listens.
    pub fn start(config: ServerConfig) -> std::io::Result<Server> {
        Server::start_shared(&config, Arc::new(Shared::new(&config)?))
    }

    fn start_shared(config: &ServerConfig, shared: Arc<Shared>) -> std::io::Result<Server> {
        let wanted: SocketAddr = resolve(&config.host, config.port)?;
        let (addr, running) = spawn_listener(shared.clone(), wanted)?;
        shared.port.store(addr.port(), Ordering::Relaxed);
        Ok(Server {
            shared,
            addr,
            running: Mutex::new(Some(running)),
        })
    }

    /// The address the server listens on (the real port when started with port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether the listener is up.
    pub fn is_running(&self) -> bool {
        self.running.lock().map(|r| r.is_some()).unwrap_or(false)
    }

    /// Stops listening and closes every open connection; idempotent. Data is kept.
    pub fn stop(&self) {
        let taken = match self.running.lock() {
            Ok(mut guard) => guard.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(r) = taken {
            let _ = r.stop_tx.send(());
            let _ = r.thread.join();
        }
    }

    /// Stops, then listens again on the same address with the same data (waiting a moment for
    /// the address when something else still holds it).
    pub fn restart(&self) -> std::io::Result<()> {
        self.stop();
        let mut waited = std::time::Duration::ZERO;
        let running = loop {
            match spawn_listener(self.shared.clone(), self.addr) {
                Err(e) if e.kind() == std::io::ErrorKind::AddrInUse && waited < REBIND_WAIT => {
                    std::thread::sleep(REBIND_PAUSE);
                    waited += REBIND_PAUSE;
                }
                bound => break bound?.1,
            }
        };
        match self.running.lock() {
            Ok(mut guard) => *guard = Some(running),
            Err(poisoned) => *poisoned.into_inner() = Some(running),
        }
        Ok(())
    }

    /// In a child process after `fork()`: the listener thread exists only in the parent, so
    /// this copy is forgotten (never joined) and reports itself stopped. Closing the inherited
    /// sockets is up to the caller (the Python layer does it at fork).
    pub fn forget_after_fork(&self) {
        let running = match self.running.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
        if let Some(mut running) = running {
            std::mem::forget(running.take());
        }
    }

    /// Request counters by kind, connection gauges and the record count.
    pub fn stats(&self) -> Vec<(&'static str, u64)> {
        self.shared.stats.snapshot(self.shared.store.record_count())
    }

    /// Zeroes the request counters.
    pub fn reset_stats(&self) {
        self.shared.stats.reset();
    }

    /// Fault injection switches.
    pub fn faults(&self) -> &Faults {
        &self.shared.faults
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn resolve(host: &str, port: u16) -> std::io::Result<SocketAddr> {
    use std::net::ToSocketAddrs;
    (host, port).to_socket_addrs()?.next().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "host resolves to nothing")
    })
}

/// Worker threads of the server runtime (`AEROSPIKE_EMBEDDED_WORKERS`, default 1).
fn worker_threads() -> usize {
    std::env::var("AEROSPIKE_EMBEDDED_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| *n > 0)
        .unwrap_or(1)
}

/// One worker: everything runs on the server thread (fewest wake-ups per request);
/// more: a multi-thread runtime with that many workers.
fn build_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    let workers = worker_threads();
    let mut builder = if workers == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(workers);
        b
    };
    builder
        .thread_name("aerospike-embedded-worker")
        .thread_stack_size(THREAD_STACK)
        .enable_all()
        .build()
}

/// Starts the server thread with its own runtime and waits until it listens.
fn spawn_listener(shared: Arc<Shared>, addr: SocketAddr) -> std::io::Result<(SocketAddr, Running)> {
    let (ready_tx, ready_rx) = mpsc::channel::<std::io::Result<SocketAddr>>();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("aerospike-embedded".into())
        .stack_size(THREAD_STACK)
        .spawn(move || {
            let rt = match build_runtime() {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            rt.block_on(async move {
                let listener = match bind(addr) {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(listener.local_addr());
                tokio::spawn(reclaim_loop(shared.clone()));
                conn::accept_loop(listener, shared, stop_rx).await;
            });
            // Dropping the runtime cancels every connection task, closing their sockets.
            rt.shutdown_timeout(std::time::Duration::from_secs(2));
        })?;
    match ready_rx.recv() {
        Ok(Ok(bound)) => Ok((bound, Running { stop_tx, thread })),
        Ok(Err(e)) => {
            let _ = thread.join();
            Err(e)
        }
        Err(_) => {
            let _ = thread.join();
            Err(std::io::Error::other("server thread died while starting"))
        }
    }
}

fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(1024)
}

/// Removes expired records in the background (they are already invisible to every request).
async fn reclaim_loop(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    loop {
        tick.tick().await;
        let now = clock::cl_secs(clock::now_ms());
        for ns in &shared.store.namespaces {
            ns.reclaim_expired(now);
            if ns.strong_consistency {
                txn::sweep(&shared, ns);
            }
        }
    }
}
