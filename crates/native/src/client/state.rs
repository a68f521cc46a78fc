//! What a connected client shares between its handle, its views and its calls in flight
//! ([`Inner`]): the crate client and its tend, the wire pools, policies and the closing flag.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Weak};

use aerospike::policy::{AdminPolicy, ClientPolicy};
use tokio::runtime::Handle;
use tokio::sync::watch;

use crate::conn::breaker::{ErrorRate, Tripped, MAX_ERROR_RATE};
use crate::exec::admission::{Admission, Ticket};
use crate::exec::completion::{Failure, OpResult, Ready};
use crate::exec::in_flight::Flights;
use crate::exec::loop_runtime::LoopRuntime;
use crate::exec::spin::Spin;
use crate::metrics::{Call, Metrics};
use crate::policy::Defaults;

/// Shared state of a connected client.
pub struct Inner {
    /// The crate client on the worker runtime (an Arc inside).
    pub client: aerospike::Client,
    pub(crate) handle: Handle,
    /// The single-record wire path's connections on the worker runtime.
    pub(crate) worker_wire: Arc<crate::conn::Pool>,
    /// The caller-driven runtime and what calls on it use, both set on first use.
    pub(crate) caller: std::sync::OnceLock<Arc<tokio::runtime::Runtime>>,
    pub(crate) direct: std::sync::OnceLock<crate::client::routes::RuntimeClient>,
    /// Identifies this client's connections on event loops' runtimes (see `exec/loop_runtime.rs`).
    pub(crate) id: u64,
    /// The loop runtimes this client has connections on.
    pub(crate) on_loops: parking_lot::Mutex<Vec<Weak<LoopRuntime<Ready>>>>,
    pub(crate) policy: ClientPolicy,
    pub(crate) defaults: Defaults,
    /// Admin (info/index/UDF) policy.
    pub admin: AdminPolicy,
    pub(crate) closed: AtomicBool,
    /// Flipped to true by `close()`: every operation in flight races it.
    pub(crate) closing: watch::Sender<bool>,
    pub(crate) generation: u64,
    /// Busy-polling of blocking single-record calls.
    pub(crate) spin: Spin,
    /// How the wire path connects, and its budget of connections per node.
    pub(crate) links: Arc<crate::conn::Links>,
    /// What the client has done since it connected.
    pub(crate) metrics: Arc<Metrics>,
    /// Calls in flight, which a draining close waits for.
    pub(crate) flights: Arc<Flights>,
    /// The limit on calls in flight (`max_in_flight`), when there is one.
    pub(crate) admission: Option<Arc<Admission>>,
}

pub static NEXT_CLIENT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Inner {
    /// A new call's claim on a slot of `max_in_flight`.
    pub(crate) fn ticket(&self) -> Ticket {
        self.admission
            .as_ref()
            .map_or(Ticket::Unlimited, Admission::ticket)
    }

    /// [`Self::until_admitted`] with a ticket taken now.
    pub fn until_closed<F, T>(
        &self,
        call: Call,
        fut: F,
    ) -> impl std::future::Future<Output = OpResult<T>>
    where
        F: std::future::Future<Output = OpResult<T>>,
    {
        self.until_admitted(call, self.ticket(), fut)
    }

    /// Run `fut` once `ticket` holds a slot (see `exec/admission.rs`), or fail with
    /// `ClientClosedError` as soon as the client is closed; a call that writes and was cut
    /// short, or failed once the close began, is in doubt as far as its own failure says. A
    /// metered call is counted in the client's metrics when it ends.
    pub fn until_admitted<F, T>(
        &self,
        call: Call,
        ticket: Ticket,
        fut: F,
    ) -> impl std::future::Future<Output = OpResult<T>>
    where
        F: std::future::Future<Output = OpResult<T>>,
    {
        let Call { writes, meter } = call;
        let closing = self.closing.subscribe();
        let pool_size = self.policy.max_conns_per_node;
        let cluster = self.client.clone();
        let rate = self.links.rate;
        let flight = self.flights.start();
        let draining = self.flights.draining();
        let metered = meter
            .filter(|_| self.metrics.enabled())
            .map(|m| (m, self.links.clone()));
        async move {
            let _flight = flight;
            if *closing.borrow() || draining {
                return Err(Failure::Closed("the client is closed", false));
            }
            let flag = closing.clone();
            let admitted = async move {
                let _slot = ticket.admitted().await?;
                fut.await
            };
            let (r, retries) = tokio::select! {
                biased;
                (r, retries) = crate::metrics::counting_retries(admitted) => (match r {
                    // e.g. "partition map empty": the failure is the close's doing
                    Err(f) if *flag.borrow() && !f.answered() => Err(Failure::Closed(
                        "the client was closed while the operation was in flight",
                        writes && f.in_doubt(),
                    )),
                    r => r.map_err(|f| f.pool_checked(pool_size, &cluster.nodes())),
                }, retries),
                () = closed_signal(closing) => (Err(Failure::Closed(
                    "the client was closed while the operation was in flight",
                    writes,
                )), 0),
            };
            let (r, refused_by) = match r {
                Err(f) => {
                    let (f, node) = crate_refusal(f, &cluster, rate);
                    (Err(f), node)
                }
                ok => (ok, None),
            };
            if let Some((meter, links)) = metered {
                if let Some(node) = refused_by {
                    links.refused_by_crate(&node);
                }
                let node = meter
                    .partition
                    .and_then(|pid| links.view.master(&meter.namespace, pid));
                let node = node.as_ref().map_or("", |n| n.name());
                links
                    .metrics
                    .record(&meter, node, writes, r.as_ref().err(), retries);
            }
            r
        }
    }
}

/// A refusal by the crate's circuit breaker in the wire path's words (the node's name and
/// address, its errors in the window, the window and the rate), and the node's name.
fn crate_refusal(
    f: Failure,
    cluster: &aerospike::Client,
    rate: ErrorRate,
) -> (Failure, Option<String>) {
    let Some(address) = f.refused_by_crate_breaker().map(str::to_owned) else {
        return (f, None);
    };
    let Some(node) = cluster.nodes().into_iter().find(|n| n.address() == address) else {
        return (f, None);
    };
    // The window may have turned since: it held more than the rate when the call was refused.
    let errors = node.error_rate_count().max(rate.max.saturating_add(1));
    let tripped = Tripped {
        node: node.name().to_owned(),
        address,
        errors: errors as u64,
        rate,
    };
    let in_doubt = f.in_doubt();
    let named = match f {
        Failure::Native(_, Some(key)) => Failure::Keyed {
            code: MAX_ERROR_RATE,
            message: tripped.message(),
            in_doubt,
            key,
        },
        _ => Failure::Coded(MAX_ERROR_RATE, tripped.message()),
    };
    (named, Some(tripped.node))
}

/// Resolves once `close()` flips the flag (never if the sender is gone).
async fn closed_signal(mut closing: watch::Receiver<bool>) {
    let closed = closing.wait_for(|c| *c).await.is_ok();
    if !closed {
        std::future::pending::<()>().await;
    }
}

/// Until the client closes, once per tend interval: note the nodes that joined or left (in the
/// metrics and the `aerospike_fluent.cluster` log), turn the circuit breaker's window every
/// `error_rate_window` intervals, keep `min_conns_per_node` wire connections
/// open to every node, and close those idle for `idle_timeout` (down to that minimum).
pub fn maintain(
    policy: &ClientPolicy,
    shares: crate::client::routes::Shares,
    client: aerospike::Client,
    pool: Arc<crate::conn::Pool>,
    mut closing: watch::Receiver<bool>,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let every = std::time::Duration::from_millis(u64::from(policy.tend_interval.max(100)));
    let idle = (policy.idle_timeout > 0)
        .then(|| std::time::Duration::from_millis(u64::from(policy.idle_timeout)));
    let min = policy.min_conns_per_node.min(shares.wire);
    let wire = pool.links().usable();
    let rate = pool.links().rate;
    let run = async move {
        let mut known = crate::cluster::watch::Known::default();
        let mut tends = 0u64;
        loop {
            if known.look(&client, &pool.links().metrics) && wire {
                pool.refresh_tables(&client);
            }
            if wire && min > 0 {
                pool.keep_min(&client, min).await;
            }
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                changed = closing.changed() => if changed.is_err() { break },
            }
            if *closing.borrow() {
                break;
            }
            tends += 1;
            if rate.turns_after(tends) {
                pool.links().turn_error_windows();
            }
            if let (true, Some(idle)) = (wire, idle) {
                pool.reap(idle, min);
            }
        }
        Ok::<(), Failure>(())
    };
    // a panic ends the upkeep, never the process
    async move {
        let _ = crate::safety::guard::future(run).await;
    }
}
