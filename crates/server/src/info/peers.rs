//! Cluster answers of the info protocol: the peers a node sees, its racks and its master
//! records.

use crate::store::{Namespace, N_PARTITIONS};
use crate::Shared;

/// The port a peers list assumes for an address that names none: an address on it is listed
/// without its port, as a real node lists it.
const DEFAULT_PORT: u16 = 3000;

/// `peers-*` and `alumni-*` (`clear` or `tls`, `std` or `alt`):
/// `generation,3000,[[node,tls-name,[host:port]],...]` for every other member of this node's
/// view. A list for the transport not served, and the alternate lists (no alternate address
/// is configured), name no peer; the alumni are every peer ever seen, here the current ones.
/// With `:generation=N`, only peers that changed since generation `N`.
pub fn list(shared: &Shared, cmd: &str, args: &str) -> String {
    let view = shared.view();
    let tls = cmd.contains("-tls-");
    // Only the peers lists take a generation; the alumni ones list everything.
    let since = args
        .strip_prefix("generation=")
        .filter(|_| cmd.starts_with("peers-"))
        .map_or(0, super::namespace::strtoul);
    let entries = if tls == shared.tls_on() && cmd.ends_with("-std") && since < view.generation {
        others(shared)
            .into_iter()
            .map(|(name, host, port)| {
                let addr = address(&host, port);
                let addr = addr.strip_suffix(":3000").unwrap_or(&addr);
                format!("[{name},,[{addr}]]")
            })
            .collect::<Vec<_>>()
            .join(",")
    } else {
        String::new()
    };
    format!("{},{DEFAULT_PORT},[{entries}]", view.generation)
}

/// `services` (and `services-alumni`): `host:port;...` of the other members.
pub fn services(shared: &Shared) -> String {
    others(shared)
        .into_iter()
        .map(|(_, host, port)| address(&host, port))
        .collect::<Vec<_>>()
        .join(";")
}

/// `racks[:namespace=<ns>]`: per namespace, the members of this node's view on each rack,
/// `ns=<ns>:rack_<id>=<node>,<node>:rack_<id>=...`, namespaces separated by `;` (for one
/// namespace, its racks alone). A strong-consistency namespace adds its roster's racks.
pub fn racks(shared: &Shared, args: &str) -> Result<String, String> {
    let only = super::optional_namespace(shared, &super::params(args))?;
    let mut by_rack: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    crate::cluster::each_member(shared, |node| {
        by_rack
            .entry(node.rack_id())
            .or_default()
            .push(node.node_name());
    });
    let listed = |tag: &str| {
        by_rack
            .iter()
            .map(|(rack, names)| format!("{tag}{rack}={}", names.join(",")))
            .collect::<Vec<_>>()
            .join(":")
    };
    let one = |ns: &Namespace| {
        let mut racks = listed("rack_");
        if ns.strong_consistency {
            racks.push(':');
            racks.push_str(&listed("roster_rack_"));
        }
        racks
    };
    Ok(super::each_namespace(shared, only, one))
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

/// `host:port`, an IPv6 host in brackets.
pub fn address(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}
