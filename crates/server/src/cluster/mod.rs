//! Several embedded servers in one process forming a cluster: each node listens on its own
//! port and keeps its own copies of the partitions it owns; indexes, UDF modules and users are
//! common to all. Membership changes (kill, restart, isolation, adding and removing nodes)
//! recompute the partition owners and move the data, as a real cluster's rebalance does.

mod migrate;
mod route;
mod view;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};

pub(crate) use route::{each_member, gated, holds_here, keyed, master_here};
pub use view::View;

use crate::store::N_PARTITIONS;
use crate::{Server, ServerConfig, Shared};

/// Nodes, replication factor and the settings every node shares.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// Host, namespaces, TLS and users of every node (`port` is the first node's; 0 = free ports).
    pub server: ServerConfig,
    pub nodes: usize,
    pub replication_factor: usize,
    /// Racks the nodes are spread over in turn (node `i` on rack `i % racks + 1`); 0: none.
    pub racks: usize,
}

/// What a node is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeStatus {
    Up,
    /// Up, but answers nothing until resumed.
    Paused,
    /// Up, but cut off from the other nodes: a cluster of its own.
    Isolated,
    Down,
    Removed,
}

/// A node's link to its cluster.
pub(crate) struct Member {
    core: Weak<Core>,
    slot: usize,
}

impl Member {
    pub fn slot(&self) -> usize {
        self.slot
    }

    pub(crate) fn core(&self) -> Option<Arc<Core>> {
        self.core.upgrade()
    }
}

/// Membership flags and which partitions' data a node holds.
struct NodeState {
    up: bool,
    removed: bool,
    isolated: bool,
    /// Per partition: this node's store has a copy (possibly stale while down).
    holds: Vec<bool>,
}

pub struct Node {
    server: Server,
    state: Mutex<NodeState>,
}

impl Node {
    fn state(&self) -> MutexGuard<'_, NodeState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.server.shared
    }
}

/// State common to every node of a cluster.
pub(crate) struct Core {
    template: ServerConfig,
    replication_factor: usize,
    racks: usize,
    nodes: RwLock<Vec<Arc<Node>>>,
    /// Requests hold it shared while they route and replicate; rebalancing holds it alone.
    gate: RwLock<()>,
    /// Serialises membership changes.
    topology: Mutex<()>,
    epoch: AtomicU64,
    sindexes: Arc<crate::sindex::Registry>,
    udfs: Arc<engine::udf::Registry>,
}

impl Core {
    pub(crate) fn node(&self, slot: usize) -> Option<Arc<Node>> {
        self.nodes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(slot)
            .cloned()
    }

    fn all(&self) -> Vec<Arc<Node>> {
        self.nodes.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn gate_shared(&self) -> std::sync::RwLockReadGuard<'_, ()> {
        self.gate.read().unwrap_or_else(|e| e.into_inner())
    }
}

/// An in-process cluster of embedded servers.
pub struct Cluster {
    core: Arc<Core>,
}

impl Cluster {
    /// Starts `config.nodes` nodes and balances the partitions over them.
    pub fn start(config: ClusterConfig) -> std::io::Result<Cluster> {
        if config.nodes == 0 {
            return Err(invalid("a cluster needs at least one node"));
        }
        if config.replication_factor == 0 {
            return Err(invalid("replication_factor must be at least 1"));
        }
        let core = Arc::new(Core {
            template: config.server.clone(),
            replication_factor: config.replication_factor,
            racks: config.racks,
            nodes: RwLock::new(Vec::new()),
            gate: RwLock::new(()),
            topology: Mutex::new(()),
            epoch: AtomicU64::new(1),
            sindexes: Arc::default(),
            udfs: Arc::new(engine::udf::Registry::new()),
        });
        let cluster = Cluster { core };
        for i in 0..config.nodes {
            let port = match config.server.port {
                0 => 0,
                p => p
                    .checked_add(i as u16)
                    .ok_or_else(|| invalid("ports past 65535"))?,
            };
            cluster.spawn_node(port)?;
        }
        {
            let _topology = cluster.topology();
            migrate::rebalance(&cluster.core, None);
        }
        Ok(cluster)
    }

    fn topology(&self) -> MutexGuard<'_, ()> {
        self.core.topology.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts one more node listening on `port` (not yet a member until the next rebalance).
    fn spawn_node(&self, port: u16) -> std::io::Result<usize> {
        let mut config = self.core.template.clone();
        config.port = port;
        let mut nodes = self.core.nodes.write().unwrap_or_else(|e| e.into_inner());
        let slot = nodes.len();
        if self.core.racks > 0 {
            config.rack_id = u32::try_from(slot % self.core.racks + 1).unwrap_or(u32::MAX);
        }
        let shared =
            Shared::with_registries(&config, self.core.sindexes.clone(), self.core.udfs.clone())?;
        let _ = shared.member.set(Member {
            core: Arc::downgrade(&self.core),
            slot,
        });
        let server = Server::start_shared(&config, Arc::new(shared))?;
        nodes.push(Arc::new(Node {
            server,
            state: Mutex::new(NodeState {
                up: true,
                removed: false,
                isolated: false,
                holds: vec![false; N_PARTITIONS],
            }),
        }));
        Ok(slot)
    }

    fn node(&self, slot: usize) -> std::io::Result<Arc<Node>> {
        self.core
            .node(slot)
            .ok_or_else(|| invalid(&format!("no node {slot}")))
    }

    /// Node slots ever started (removed ones included).
    pub fn len(&self) -> usize {
        self.core.all().len()
    }

    /// Always false: a cluster starts with at least one node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The server of node `slot` (address, stats, faults).
    pub fn server(&self, slot: usize) -> Option<Arc<Node>> {
        self.core.node(slot)
    }

    /// Address of node `slot`.
    pub fn addr(&self, slot: usize) -> Option<SocketAddr> {
        self.core.node(slot).map(|n| n.server.addr())
    }

    /// Rack id of node `slot` (0: none).
    pub fn rack_id(&self, slot: usize) -> Option<u32> {
        self.core.node(slot).map(|n| n.shared().rack_id())
    }

    /// Name of node `slot` as the `node` info command gives it.
    pub fn node_name(&self, slot: usize) -> Option<String> {
        self.core.node(slot).map(|n| n.shared().node_name())
    }

    /// What node `slot` is doing.
    pub fn status(&self, slot: usize) -> Option<NodeStatus> {
        let node = self.core.node(slot)?;
        let paused = node.shared().faults.serving_paused();
        let s = node.state();
        Some(if s.removed {
            NodeStatus::Removed
        } else if !s.up {
            NodeStatus::Down
        } else if paused {
            NodeStatus::Paused
        } else if s.isolated {
            NodeStatus::Isolated
        } else {
            NodeStatus::Up
        })
    }

    /// `partition-generation` of node `slot`.
    pub fn generation(&self, slot: usize) -> Option<u64> {
        self.core.node(slot).map(|n| n.shared().view().generation)
    }

    /// Kills node `slot`: its listener and connections close at once and the others take
    /// over its partitions from the replicas. With `keep_data` its records survive for a
    /// restart (as on disk); without, they are gone.
    pub fn kill(&self, slot: usize, keep_data: bool) -> std::io::Result<()> {
        let node = self.node(slot)?;
        let _topology = self.topology();
        node.server.stop();
        {
            let mut s = node.state();
            if s.removed || !s.up {
                return Ok(());
            }
            s.up = false;
        }
        if !keep_data {
            let _gate = self.core.gate.write().unwrap_or_else(|e| e.into_inner());
            migrate::wipe(&node);
        }
        migrate::rebalance(&self.core, None);
        Ok(())
    }

    /// Starts a killed node again on its port; it rejoins and the partitions rebalance.
    pub fn restart(&self, slot: usize) -> std::io::Result<()> {
        let node = self.node(slot)?;
        let _topology = self.topology();
        {
            let mut s = node.state();
            if s.removed {
                return Err(invalid(&format!("node {slot} was removed")));
            }
            if s.up {
                return Ok(());
            }
            s.up = true;
        }
        migrate::rebalance(&self.core, None);
        if let Err(e) = node.server.restart() {
            node.state().up = false;
            migrate::rebalance(&self.core, None);
            return Err(e);
        }
        Ok(())
    }

    /// Pauses node `slot` (it answers nothing, as a stopped process; it stays a member) or
    /// resumes it.
    pub fn pause(&self, slot: usize, paused: bool) -> std::io::Result<()> {
        self.node(slot)?.shared().faults.pause_serving(paused);
        Ok(())
    }

    /// Cuts node `slot` off from the others (it forms a cluster of its own and so do they,
    /// each side taking every partition) or heals the split, merging both sides' data.
    pub fn isolate(&self, slot: usize, isolated: bool) -> std::io::Result<()> {
        let node = self.node(slot)?;
        let _topology = self.topology();
        node.state().isolated = isolated;
        migrate::rebalance(&self.core, None);
        Ok(())
    }

    /// Starts a new node on a free port; it joins and takes its share of the partitions.
    pub fn add_node(&self) -> std::io::Result<usize> {
        let _topology = self.topology();
        let slot = self.spawn_node(0)?;
        migrate::rebalance(&self.core, None);
        Ok(slot)
    }

    /// Removes node `slot` gracefully: its partitions move to the others, then it stops.
    pub fn remove_node(&self, slot: usize) -> std::io::Result<()> {
        let node = self.node(slot)?;
        let _topology = self.topology();
        node.state().removed = true;
        node.server.stop();
        migrate::rebalance(&self.core, Some(slot));
        let _gate = self.core.gate.write().unwrap_or_else(|e| e.into_inner());
        migrate::wipe(&node);
        Ok(())
    }

    /// In a child process after `fork()`: every node's threads exist only in the parent (see
    /// [`Server::forget_after_fork`]).
    pub fn forget_after_fork(&self) {
        for node in self.core.all() {
            node.server.forget_after_fork();
        }
    }

    /// Stops every node.
    pub fn stop(&self) {
        for node in self.core.all() {
            node.server.stop();
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::ops::Deref for Node {
    type Target = Server;

    fn deref(&self) -> &Server {
        &self.server
    }
}

fn invalid(msg: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, msg.to_string())
}

/// Epoch counter shared by the views a rebalance makes.
fn next_epoch(core: &Core) -> u64 {
    core.epoch.fetch_add(1, Ordering::SeqCst) + 1
}
