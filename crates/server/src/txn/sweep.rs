//! The sweep that ends transactions past their deadline: their monitors' records rolled
//! forward or back, and provisional writes whose monitor is gone rolled back.

use engine::value::Value;

use super::{monitor_digest, roll, TxnMeta};
use crate::clock::{cl_secs, now_ms};
use crate::store::{partition_of, Digest, Namespace, Record};
use crate::{cluster, Shared};

/// A monitor past its deadline, as the sweep finds it.
struct Expired {
    digest: Digest,
    id: i64,
    forward: bool,
    keys: Vec<Digest>,
}

fn expired_monitor(digest: &Digest, r: &Record) -> Option<Expired> {
    let id = r
        .bin(b"id")
        .and_then(|p| match engine::pack::from_particle(p).ok()? {
            Value::Int(i) => Some(i),
            _ => None,
        })?;
    let forward = r
        .bin(b"fwd")
        .is_some_and(|p| p.data.first().is_some_and(|b| *b != 0));
    let keys = match r
        .bin(b"keyds")
        .and_then(|p| engine::pack::from_particle(p).ok())
    {
        Some(Value::List(l)) => l
            .items
            .into_iter()
            .filter_map(|v| match v {
                Value::Bytes(_, b) => b.try_into().ok(),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some(Expired {
        digest: *digest,
        id,
        forward,
        keys,
    })
}

/// Seconds past its deadline before a provisional write whose monitor is gone is rolled back.
const ORPHAN_GRACE: u32 = 2;

/// Ends the transactions of `ns` whose deadline passed, on the partitions this node masters:
/// each monitor's records are rolled forward when its transaction was marked so, else back,
/// and the monitor removed; a provisional write whose monitor is gone is rolled back.
pub fn sweep(shared: &Shared, ns: &Namespace) {
    let now = cl_secs(now_ms());
    let mut monitors = Vec::new();
    let mut orphans = Vec::new();
    for pid in 0..crate::store::N_PARTITIONS {
        let part = ns.read(pid);
        if part.in_txn().is_empty() || !cluster::master_here(shared, pid) {
            continue;
        }
        for d in part.in_txn() {
            let Some(r) = part.get(d) else { continue };
            match r.txn.as_deref() {
                Some(TxnMeta::Monitor { deadline }) if *deadline < now => {
                    monitors.extend(expired_monitor(d, r));
                }
                Some(TxnMeta::Locked { id, deadline, .. })
                    if deadline.saturating_add(ORPHAN_GRACE) < now =>
                {
                    orphans.push((*d, *id));
                }
                _ => {}
            }
        }
    }
    let name = ns.name.as_bytes();
    for m in monitors {
        for key in &m.keys {
            cluster::keyed(shared, name, key, true, |_, n| {
                roll(n, &mut n.write(partition_of(key)), key, m.id, m.forward);
            });
        }
        cluster::keyed(shared, name, &m.digest, true, |_, n| {
            if n.write(partition_of(&m.digest)).remove(&m.digest).is_some() {
                n.count_change(-1);
            }
        });
    }
    for (digest, id) in orphans {
        let monitor = monitor_digest(id);
        let alive = cluster::keyed(shared, name, &monitor, false, |_, n| {
            n.read(partition_of(&monitor)).contains_key(&monitor)
        });
        if alive == Some(false) {
            cluster::keyed(shared, name, &digest, true, |_, n| {
                roll(n, &mut n.write(partition_of(&digest)), &digest, id, false);
            });
        }
    }
}
