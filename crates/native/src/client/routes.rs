//! Where a call runs: the runtimes and connection pools a client owns, and the route each call
//! takes through them.
//!
//! A client owns one crate client, on the shared multi-threaded worker runtime
//! (`exec/runtime.rs`), connected by `connect`: its tend is the client's one view of the nodes,
//! and it serves the calls only the crate encodes. Next to it, one wire pool per runtime a call
//! can run on (the worker's, the caller-driven runtime's, each event loop's), all within one
//! budget per node, `max_conns_per_node` ([`shares`]). A crate call made on another runtime is
//! run on the worker's ([`RuntimeClient::on_crate`]): the crate's sockets belong to it.
//!
//! Route of an async single-record call (get, put, delete, exists, touch, operate), checked in
//! this order; the first "no" sends it to the worker runtime:
//!
//! | condition | where it is decided |
//! |---|---|
//! | the caller runs asyncio or trio with a `Completer` (not a plain callback) | `_bridge.py`, `_trio.py` |
//! | the loop has a runtime of its own (`loop_runtime=True`, the loop gave `call_soon`, `call_later`, `add_reader`; built at its [`crate::exec::completion::LOOP_RUNTIME_AFTER`]-th call; Linux: `/proc` found its epoll fd) | `Completer::new`, `OnLoop::runtime`, `LoopRuntime::new` |
//! | fewer than 16 operations in flight on it (`loop_ops`, [`DEFAULT_LOOP_OPS`]) | `OnLoop::of` |
//!
//! On the loop runtime the call sends before the native call returns; it then polls for its
//! reply (GIL released, up to `spin_wait_us`) only when it is the one operation in flight, the
//! loop has nothing else ready (asyncio `loop._ready` empty; trio: no runnable task; never on
//! uvloop) and `exec/spin.rs` allows it (budget > 0, not backed off after 8 late replies, at most
//! half the CPUs polling, no more blocking calls waiting than that). On the worker runtime,
//! operations started in one loop iteration are spawned together by `Completer::flush`.
//!
//! Blocking single-record calls (and blocking `udf_apply`) run on the caller-driven runtime,
//! polled by the calling thread with the same spin rules. An async batch of fewer than
//! [`PIPELINE_MIN_ROWS`] plain read rows (`batch_wire::plain_rows`; auto-batched gets and
//! exists) or plain put rows (`batch_wire::put_rows`; auto-batched puts, small `put_many`)
//! takes the route of a single-record call. Everything else (other batches, query,
//! info, truncate, indexes, UDF registration, async `udf_apply`) runs on the worker runtime;
//! read-only batches of [`PIPELINE_MIN_ROWS`] rows or more go as parts of
//! [`PIPELINE_PART_ROWS`], converted as they land (async on asyncio and trio, and blocking).

use std::sync::Arc;

use aerospike::policy::ClientPolicy;
use pyo3::prelude::*;
use tokio::runtime::Handle;

use crate::client::Inner;
use crate::conn;

use crate::exec::completion::Ready;
use crate::exec::loop_runtime::LoopRuntime;
pub use crate::exec::runtime_client::RuntimeClient;

/// How a client's `max_conns_per_node` is shared out: the crate client gets a fixed part (its
/// tend connection and a pool for the calls only it serves), the wire path the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shares {
    pub worker: usize,
    pub wire: usize,
}

/// Below this limit the wire path gets no share: every call goes through the crate client.
const WIRE_FROM: usize = 8;

pub fn shares(limit: usize) -> Shares {
    let limit = limit.max(1);
    if limit < WIRE_FROM {
        return Shares {
            worker: limit,
            wire: 0,
        };
    }
    let worker = limit / 4;
    Shares {
        worker,
        wire: limit - worker,
    }
}

/// The pool size of a crate client holding `share` places: one is its tend connection.
fn crate_pool(share: usize) -> usize {
    share.saturating_sub(1).max(1)
}

/// The client's crate client with a new wire pool, for a runtime other than the worker's.
fn elsewhere(inner: &Inner) -> RuntimeClient {
    RuntimeClient {
        crate_client: inner.client.clone(),
        wire: conn::Pool::new(&inner.policy, inner.links.clone()),
        worker: Some(inner.handle.clone()),
    }
}

impl Inner {
    /// What calls on the caller-driven runtime use (made by the first one).
    pub(crate) fn caller_client(&self) -> RuntimeClient {
        self.direct.get_or_init(|| elsewhere(self)).clone()
    }

    /// The clients of the worker runtime.
    pub(crate) fn worker_client(&self) -> RuntimeClient {
        RuntimeClient {
            crate_client: self.client.clone(),
            wire: self.worker_wire.clone(),
            worker: None,
        }
    }

    /// What this client's calls on the loop runtime `rt` use (made by the first one).
    pub(crate) fn loop_client(&self, rt: &Arc<LoopRuntime<Ready>>) -> RuntimeClient {
        let (cell, calls) = rt.client_for(self.id);
        if calls == 1 {
            let mut on_loops = self.on_loops.lock();
            on_loops.retain(|l| l.strong_count() > 0);
            on_loops.push(Arc::downgrade(rt));
        }
        cell.get_or_init(|| elsewhere(self)).clone()
    }
}

/// How long `close()` drives a loop runtime to close the client's connections on it.
const LOOP_CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Close a client's connections on a loop runtime: with `py`, now (its loop may never run
/// again, or be blocked by the caller, and only driving the runtime closes the sockets);
/// without, at the loop's next tick.
pub fn close_on_loop(py: Option<Python<'_>>, rt: &LoopRuntime<Ready>, c: RuntimeClient) {
    let close = async move {
        let _ = tokio::time::timeout(LOOP_CLOSE_WAIT, c.close()).await;
    };
    match py {
        // block_on is not allowed inside a runtime: the loop's next tick runs it
        Some(py) if Handle::try_current().is_err() => {
            py.detach(|| rt.block_on(close));
        }
        _ => rt.spawn(close),
    }
}

/// The worker runtime's crate client: its share of the budget (see [`shares`]); below
/// [`WIRE_FROM`] it serves every call, with the whole limit for its pool.
pub fn worker_policy(policy: &ClientPolicy) -> ClientPolicy {
    let limit = policy.max_conns_per_node;
    // The path that serves the plain calls keeps `min_conns_per_node` open: the wire path
    // (`client::maintain`), or below WIRE_FROM this client.
    let (max, min) = if limit < WIRE_FROM {
        let max = limit.max(1);
        (max, policy.min_conns_per_node.min(max))
    } else {
        (crate_pool(shares(limit).worker), 0)
    };
    ClientPolicy {
        max_conns_per_node: max,
        min_conns_per_node: min,
        ..policy.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_share_together_is_the_limit() {
        for limit in 8..=1024 {
            let s = shares(limit);
            assert_eq!(s.worker + s.wire, limit, "{limit}: {s:?}");
            assert!(s.worker >= 2 && s.wire >= 1, "{limit}: {s:?}");
            assert!(crate_pool(s.worker) < s.worker);
        }
        assert_eq!(
            shares(256),
            Shares {
                worker: 64,
                wire: 192
            }
        );
    }

    #[test]
    fn a_small_limit_is_one_crate_client() {
        for limit in 0..8 {
            let s = shares(limit);
            assert_eq!(s.wire, 0);
            assert_eq!(s.worker, limit.max(1));
        }
    }
}
