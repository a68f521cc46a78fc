//! One budget of connections per node for every runtime's pool of a client ([`Links`]): a
//! connection holds a place from its opening to its closing, idle or not; how connections are
//! opened (TLS, login); and the counts the metrics read.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use aerospike::policy::ClientPolicy;
use parking_lot::Mutex;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::cluster::view::View;
use crate::conn::breaker::ErrorRate;
use crate::conn::connection::Dialer;
use crate::conn::pool::NodeConns;
use crate::metrics::{Metrics, NodeTraffic};

/// What every runtime's pool of one client shares: how connections are opened (TLS, login)
/// and each node's budget of open connections.
pub struct Links {
    pub dialer: Arc<Dialer>,
    /// Where partitions live, for every runtime and path.
    pub view: View,
    /// The client's `max_conns_per_node`, which errors name.
    pub(super) limit: usize,
    /// The wire path's share of it.
    share: usize,
    state: Mutex<Shared>,
    /// The client's metrics, which every path records into.
    pub metrics: Arc<Metrics>,
    /// The circuit breaker's settings.
    pub rate: ErrorRate,
}

struct Shared {
    nodes: HashMap<String, Arc<NodeBudget>>,
}

/// One node's budget: a permit per open connection, and the idle lists of every runtime's
/// pool, where room is found when the budget is taken.
pub(super) struct NodeBudget {
    pub(super) permits: Arc<Semaphore>,
    pub(super) pools: Mutex<Vec<Weak<NodeConns>>>,
    /// Leases waiting for a connection, woken when one is released to an idle list.
    pub(super) waiting: AtomicUsize,
    pub(super) released: Notify,
    pub(super) traffic: Arc<NodeTraffic>,
}

impl Links {
    /// The links of a client allowed `limit` connections to each node, `share` of them for
    /// the wire path.
    pub fn new(
        policy: &ClientPolicy,
        limit: usize,
        share: usize,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<Links>, String> {
        Ok(Arc::new(Links {
            metrics,
            rate: ErrorRate::of(policy),
            dialer: Dialer::new(policy)?,
            view: View::default(),
            limit,
            share,
            state: Mutex::new(Shared {
                nodes: HashMap::new(),
            }),
        }))
    }

    /// Whether the wire path has any connection to use.
    pub fn usable(&self) -> bool {
        self.share > 0
    }

    pub(super) fn budget(&self, node: &str) -> Arc<NodeBudget> {
        let places = self.share;
        self.state
            .lock()
            .nodes
            .entry(node.to_owned())
            .or_insert_with(|| {
                Arc::new(NodeBudget {
                    permits: Arc::new(Semaphore::new(places)),
                    pools: Mutex::new(Vec::new()),
                    waiting: AtomicUsize::new(0),
                    released: Notify::new(),
                    traffic: Arc::default(),
                })
            })
            .clone()
    }

    /// Close connections idle for `idle` or longer, in every runtime's pool, as long as the
    /// node keeps `min` open.
    pub fn reap(&self, idle: Duration, min: usize) {
        let budgets: Vec<Arc<NodeBudget>> = self.state.lock().nodes.values().cloned().collect();
        let now = Instant::now();
        for budget in budgets {
            let open = self
                .share
                .saturating_sub(budget.permits.available_permits());
            let mut excess = open.saturating_sub(min);
            let pools: Vec<Arc<NodeConns>> = budget
                .pools
                .lock()
                .iter()
                .filter_map(Weak::upgrade)
                .collect();
            for pool in pools {
                pool.idle.lock().retain(|c| {
                    let expired = excess > 0 && now.duration_since(c.used) >= idle;
                    if expired {
                        excess -= 1;
                    }
                    !expired
                });
            }
        }
    }

    /// Turn every node's breaker window: its errors count from zero again.
    pub fn turn_error_windows(&self) {
        for budget in self.state.lock().nodes.values() {
            budget.traffic.error_rate.store(0, Ordering::Relaxed);
        }
    }

    /// Count a call the crate's circuit breaker refused, to `node`.
    pub fn refused_by_crate(&self, node: &str) {
        let budget = self.budget(node);
        budget
            .traffic
            .breaker_refusals
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Connections the wire path holds open to `node`, every runtime together.
    pub(super) fn open_to(&self, node: &str) -> usize {
        let places = self.share;
        self.state
            .lock()
            .nodes
            .get(node)
            .map_or(0, |b| places.saturating_sub(b.permits.available_permits()))
    }

    /// Connections the wire path holds open to each node, every runtime together.
    pub fn open_per_node(&self) -> Vec<(String, usize)> {
        let places = self.share;
        self.state
            .lock()
            .nodes
            .iter()
            .map(|(n, b)| {
                (
                    n.clone(),
                    places - b.permits.available_permits().min(places),
                )
            })
            .collect()
    }
}

impl Links {
    /// Per node: connections open, idle, calls waiting for one, and the traffic counts.
    pub fn node_rows(&self) -> Vec<NodeCounts> {
        let places = self.share;
        self.state
            .lock()
            .nodes
            .iter()
            .map(|(name, b)| {
                let idle = b
                    .pools
                    .lock()
                    .iter()
                    .filter_map(Weak::upgrade)
                    .map(|p| p.idle.lock().len())
                    .sum();
                NodeCounts {
                    name: name.clone(),
                    open: places - b.permits.available_permits().min(places),
                    idle,
                    waiting: b.waiting.load(Ordering::Relaxed),
                    traffic: b.traffic.clone(),
                }
            })
            .collect()
    }
}

/// One node's connections at one moment (see [`Links::node_rows`]).
pub struct NodeCounts {
    pub name: String,
    pub open: usize,
    pub idle: usize,
    pub waiting: usize,
    pub traffic: Arc<NodeTraffic>,
}

impl NodeBudget {
    /// A place for a new connection: free now, or made by closing an idle connection of a
    /// pool other than `me`.
    pub(super) fn take_now(&self, me: &NodeConns) -> Option<OwnedSemaphorePermit> {
        if let Ok(p) = self.permits.clone().try_acquire_owned() {
            return Some(p);
        }
        let pools: Vec<Arc<NodeConns>> = {
            let mut pools = self.pools.lock();
            pools.retain(|w| w.strong_count() > 0);
            pools.iter().filter_map(Weak::upgrade).collect()
        };
        for other in pools.iter().filter(|o| !std::ptr::eq(o.as_ref(), me)) {
            let closed = other.idle.lock().pop();
            if closed.is_some() {
                drop(closed);
                if let Ok(p) = self.permits.clone().try_acquire_owned() {
                    return Some(p);
                }
            }
        }
        None
    }
}
