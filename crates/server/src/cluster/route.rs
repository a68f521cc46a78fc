//! Where a request runs on a cluster node: locally when the node holds the partition,
//! proxied to the master otherwise; writes copied to the replicas before the reply.

use super::Core;
use crate::store::{partition_of, Digest, Namespace};
use crate::Shared;

/// Runs `f` on the namespace `ns` of the node that serves `digest`: this node when it is the
/// partition's master (or, for reads, holds a replica), else the master, as a proxy. After a
/// write the replicas receive the record as the master has it. None when `ns` is unknown.
pub(crate) fn keyed<R>(
    shared: &Shared,
    ns: &[u8],
    digest: &Digest,
    write: bool,
    f: impl FnOnce(&Shared, &Namespace) -> R,
) -> Option<R> {
    let Some((core, me)) = link(shared) else {
        return shared.store.namespace(ns).map(|n| f(shared, n));
    };
    let _gate = core.gate_shared();
    let pid = partition_of(digest);
    let view = shared.view();
    let local = view.master(pid) == me || (!write && view.holds(me, pid));
    let proxy;
    let target = if local {
        shared
    } else {
        proxy = core.node(view.master(pid))?;
        proxy.shared().as_ref()
    };
    let namespace = target.store.namespace(ns)?;
    let result = f(target, namespace);
    if write {
        replicate(&core, target, namespace, digest);
    }
    Some(result)
}

/// Copies the record (or its absence) from the master's store to each replica.
fn replicate(core: &Core, master: &Shared, src: &Namespace, digest: &Digest) {
    let Some(me) = master.member().map(|m| m.slot()) else {
        return;
    };
    let pid = partition_of(digest);
    let view = master.view();
    // The master's partition stays locked until every replica has the copy, so concurrent
    // writes reach the replicas in the order they were applied.
    let part = src.read(pid);
    let rec = part.get(digest);
    let set = rec.map(|r| src.set_name(r.set_id));
    for &slot in view.owners(pid).iter().filter(|&&s| s != me) {
        let Some(node) = core.node(slot) else {
            continue;
        };
        let Some(dst) = node.shared().store.namespace(src.name.as_bytes()) else {
            continue;
        };
        let mut copy = dst.write(pid);
        match (rec, &set) {
            (Some(rec), Some(set)) => {
                let mut rec = rec.clone();
                rec.set_id = dst.set_id(set.as_bytes()).unwrap_or(0);
                if copy.insert(dst, *digest, rec).is_none() {
                    dst.count_change(1);
                }
            }
            _ => {
                if copy.remove(digest).is_some() {
                    dst.count_change(-1);
                }
            }
        }
    }
}

/// Whether this node is the master of `pid` (always, outside a cluster).
pub(crate) fn master_here(shared: &Shared, pid: usize) -> bool {
    match link(shared) {
        Some((_, me)) => shared.view().master(pid) == me,
        None => true,
    }
}

/// Whether this node holds a copy of `pid` (always, outside a cluster): a scan of it can be
/// served here.
pub(crate) fn holds_here(shared: &Shared, pid: usize) -> bool {
    match link(shared) {
        Some((_, me)) => shared.view().holds(me, pid),
        None => true,
    }
}

/// Runs `f` with partitions held still (no rebalance meanwhile).
pub(crate) fn gated<R>(shared: &Shared, f: impl FnOnce() -> R) -> R {
    match link(shared) {
        Some((core, _)) => {
            let _gate = core.gate_shared();
            f()
        }
        None => f(),
    }
}

/// Calls `f` on every member of this node's view (this node alone outside a cluster).
pub(crate) fn each_member(shared: &Shared, mut f: impl FnMut(&Shared)) {
    let Some((core, _)) = link(shared) else {
        return f(shared);
    };
    let _gate = core.gate_shared();
    for slot in shared.view().members.iter() {
        if let Some(node) = core.node(*slot) {
            f(node.shared());
        }
    }
}

fn link(shared: &Shared) -> Option<(std::sync::Arc<Core>, usize)> {
    let m = shared.member()?;
    Some((m.core()?, m.slot()))
}
