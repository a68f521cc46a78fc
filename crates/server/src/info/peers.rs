//! Cluster answers of the info protocol: the peers a node sees and its master records.

use crate::store::{Namespace, N_PARTITIONS};
use crate::Shared;

/// `peers-clear-std` / `peers-tls-std`: `generation,default-port,[[node,tls-name,[host:port]],...]`
/// for every other member of this node's view (empty for the transport not served).
pub fn list(shared: &Shared, tls: bool) -> String {
    let view = shared.view();
    let entries = if tls == shared.tls_on() {
        others(shared)
            .into_iter()
            .map(|(name, host, port)| format!("[{name},,[{}]]", address(&host, port)))
            .collect::<Vec<_>>()
            .join(",")
    } else {
        String::new()
    };
    format!("{},{},[{entries}]", view.generation, shared.port())
}

/// `services`: `host:port;...` of the other members.
pub fn services(shared: &Shared) -> String {
    others(shared)
        .into_iter()
        .map(|(_, host, port)| address(&host, port))
        .collect::<Vec<_>>()
        .join(";")
}

/// `racks:`: per namespace, the members of this node's view on each rack,
/// `ns=<ns>:rack_<id>=<node>,<node>:rack_<id>=...`, namespaces separated by `;`.
pub fn racks(shared: &Shared) -> String {
    let mut by_rack: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    crate::cluster::each_member(shared, |node| {
        by_rack
            .entry(node.rack_id())
            .or_default()
            .push(node.node_name());
    });
    let racks: String = by_rack
        .iter()
        .map(|(rack, names)| format!(":rack_{rack}={}", names.join(",")))
        .collect();
    shared
        .store
        .namespaces
        .iter()
        .map(|n| format!("ns={}{racks}", n.name))
        .collect::<Vec<_>>()
        .join(";")
}

/// Records of `ns` in the partitions this node masters.
pub fn master_objects(shared: &Shared, ns: &Namespace) -> u64 {
    (0..N_PARTITIONS)
        .filter(|&pid| crate::cluster::master_here(shared, pid))
        .map(|pid| ns.read(pid).len() as u64)
        .sum()
}

/// (name, host, port) of the members other than this node.
fn others(shared: &Shared) -> Vec<(String, String, u16)> {
    let mut out = Vec::new();
    crate::cluster::each_member(shared, |node| {
        if !std::ptr::eq(node, shared) {
            out.push((node.node_name(), node.host().to_string(), node.port()));
        }
    });
    out
}

fn address(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}
