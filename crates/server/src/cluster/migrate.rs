//! Rebalancing: new views for every connected group of nodes, and partition data moved to
//! the new owners (merged when the copies diverged, as after a split or a stale restart).

use std::sync::Arc;

use super::{next_epoch, Core, Node, View};
use crate::store::{Record, Records, N_PARTITIONS};
use crate::Shared;

/// Recomputes the members and owners of every group of connected nodes and moves the data.
/// `leaving` is a node being removed: a source of data, no longer an owner.
pub(super) fn rebalance(core: &Core, leaving: Option<usize>) {
    let nodes = core.all();
    let _gate = core.gate.write().unwrap_or_else(|e| e.into_inner());
    let epoch = next_epoch(core);
    for group in groups(&nodes) {
        let ids: Vec<(usize, u64, u32)> = group
            .iter()
            .map(|&s| (s, nodes[s].shared().node_id(), nodes[s].shared().rack_id()))
            .collect();
        let view = Arc::new(View::balanced(&ids, core.replication_factor, epoch));
        let mut sources = group.clone();
        sources.extend(leaving.filter(|l| !group.contains(l)));
        for pid in 0..N_PARTITIONS {
            place(&nodes, &sources, &view, pid);
        }
        for &slot in &group {
            nodes[slot].shared().set_view(view.clone());
        }
    }
}

/// Live nodes grouped by who can reach whom: each isolated node alone, the rest together.
fn groups(nodes: &[Arc<Node>]) -> Vec<Vec<usize>> {
    let mut together = Vec::new();
    let mut out = Vec::new();
    for (slot, node) in nodes.iter().enumerate() {
        let s = node.state();
        if !s.up || s.removed {
            continue;
        }
        if s.isolated {
            out.push(vec![slot]);
        } else {
            together.push(slot);
        }
    }
    if !together.is_empty() {
        out.push(together);
    }
    out
}

/// Puts partition `pid` on the owners `view` names, from the copies `sources` hold. Copies
/// are the same when their holders shared one view; otherwise they are merged.
fn place(nodes: &[Arc<Node>], sources: &[usize], view: &View, pid: usize) {
    let holders: Vec<usize> = sources
        .iter()
        .copied()
        .filter(|&s| nodes[s].state().holds[pid])
        .collect();
    let owners = view.owners(pid);
    let views: Vec<Arc<View>> = holders.iter().map(|&s| nodes[s].shared().view()).collect();
    let agreed = views.windows(2).all(|w| Arc::ptr_eq(&w[0], &w[1]));
    let settled = agreed
        && holders.len() == owners.len()
        && owners.iter().all(|o| holders.contains(o))
        && owners.iter().all(|&o| !nodes[o].state().removed);
    if settled {
        return;
    }
    let namespaces = nodes[owners[0]].shared().store.namespaces.len();
    for ns in 0..namespaces {
        let merged = if agreed {
            holders.first().map(|&h| export(nodes[h].shared(), ns, pid))
        } else {
            Some(merge(nodes, &holders, ns, pid))
        };
        for &o in owners {
            let has_copy = holders.contains(&o) && agreed;
            if !has_copy {
                import(nodes[o].shared(), ns, pid, merged.as_ref());
            }
        }
    }
    for &h in &holders {
        if !owners.contains(&h) {
            for ns in 0..namespaces {
                import(nodes[h].shared(), ns, pid, None);
            }
            nodes[h].state().holds[pid] = false;
        }
    }
    for &o in owners {
        nodes[o].state().holds[pid] = true;
    }
}

/// A partition's records with set names instead of node-local set ids.
type Exported = Vec<([u8; 20], Record, String)>;

fn export(shared: &Shared, ns: usize, pid: usize) -> Exported {
    let ns = &shared.store.namespaces[ns];
    ns.read(pid)
        .iter()
        .map(|(d, r)| (*d, r.clone(), ns.set_name(r.set_id)))
        .collect()
}

/// Union of the holders' copies; where they disagree the higher generation wins, then the
/// later update (the server's default conflict resolution).
fn merge(nodes: &[Arc<Node>], holders: &[usize], ns: usize, pid: usize) -> Exported {
    let mut all: std::collections::BTreeMap<[u8; 20], (Record, String)> = Default::default();
    for &h in holders {
        for (d, rec, set) in export(nodes[h].shared(), ns, pid) {
            let newer = all.get(&d).is_none_or(|(old, _)| {
                (rec.generation, rec.last_update_ms) > (old.generation, old.last_update_ms)
            });
            if newer {
                all.insert(d, (rec, set));
            }
        }
    }
    all.into_iter().map(|(d, (r, s))| (d, r, s)).collect()
}

/// Replaces a node's copy of a partition (None = drops it).
fn import(shared: &Shared, ns: usize, pid: usize, records: Option<&Exported>) {
    let ns = &shared.store.namespaces[ns];
    let mut fresh = Records::new();
    for (d, rec, set) in records.into_iter().flatten() {
        let mut rec = rec.clone();
        rec.set_id = ns.set_id(set.as_bytes()).unwrap_or(0);
        fresh.insert(*d, rec);
    }
    let mut part = ns.write(pid);
    let delta = fresh.len() as i64 - part.len() as i64;
    part.replace(ns, fresh);
    ns.count_change(delta);
}

/// Drops every record of a node (a kill that loses the data).
pub(super) fn wipe(node: &Node) {
    let shared = node.shared();
    for ns in 0..shared.store.namespaces.len() {
        for pid in 0..N_PARTITIONS {
            import(shared, ns, pid, None);
        }
    }
    node.state().holds.iter_mut().for_each(|h| *h = false);
}
