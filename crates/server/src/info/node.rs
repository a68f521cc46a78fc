//! Node-wide info commands: build and release, features, cluster membership and stability,
//! endpoints and the heartbeat tips a node takes.

use super::{atoi, error, optional, params, required, CLUSTER_KEY_MISMATCH, PARAMETER};
use crate::Shared;

/// `compatibility-id`: the cluster exchange protocol of an 8.1.2 node.
pub const COMPATIBILITY_ID: u32 = 15;
/// `build_os`.
pub const BUILD_OS: &str = "linux";
/// `build_sha`: the commit Community Edition 8.1.2.0 was published as.
pub const BUILD_SHA: &str = "05b91c64f5fa7836a36e52e3797da34dc0325649";
/// `build_time`, as the build's `date` wrote it.
pub const BUILD_TIME: &str = "Sat Apr 18 03:44:33 UTC 2026";

/// `features` of an 8.1.2 node (an Enterprise build adds `xdr`, which this server does not
/// ship).
const FEATURES: &str = "batch-any;batch-index;blob-bits;cdt-index;cdt-list;cdt-map;\
cluster-stable;float;geo;sindex-exists;peers;pipelining;pquery;pscans;query-show;relaxed-sc;\
replicas;replicas-all;replicas-master;replicas-max;truncate-namespace;udf";

pub fn features(_shared: &Shared) -> String {
    FEATURES.into()
}

/// `edition`: as the build names it.
pub fn edition(shared: &Shared) -> &'static str {
    match shared.edition {
        crate::Edition::Community => "Aerospike Community Edition",
        crate::Edition::Enterprise => "Aerospike Enterprise Edition",
    }
}

/// `release`: edition, version, OS, architecture and commit, `;`-separated.
pub fn release(shared: &Shared) -> String {
    format!(
        "edition={};version={};os={BUILD_OS};arch={};sha={BUILD_SHA}",
        edition(shared),
        super::BUILD,
        std::env::consts::ARCH
    )
}

/// The cluster key: changes with the membership, as a real cluster key does.
pub fn cluster_key(shared: &Shared) -> String {
    format!("{:X}", 0x1A2B_3C4D_5E6F_u64 ^ shared.view().generation)
}

/// Node ids of the members this node sees, the principal (highest) first.
fn succession_ids(shared: &Shared) -> Vec<u64> {
    let mut ids = Vec::new();
    crate::cluster::each_member(shared, |node| ids.push(node.node_id()));
    ids.sort_unstable_by(|a, b| b.cmp(a));
    ids
}

/// `get-sl`: the succession list, node ids `,`-separated.
pub fn succession(shared: &Shared) -> String {
    succession_ids(shared)
        .iter()
        .map(|id| format!("{id:X}"))
        .collect::<Vec<_>>()
        .join(",")
}

pub fn principal(shared: &Shared) -> u64 {
    succession_ids(shared)
        .first()
        .copied()
        .unwrap_or(shared.node_id())
}

/// `recluster:`: only the principal reforms the cluster.
pub fn recluster(shared: &Shared) -> String {
    if principal(shared) == shared.node_id() {
        "ok".into()
    } else {
        "ignored-by-non-principal".into()
    }
}

/// `cluster-stable:[size=N];[ignore-migrations=B];[namespace=NS]`: the cluster key when the
/// cluster has the size asked for and no migrations left (this server migrates at once).
pub fn cluster_stable(shared: &Shared, args: &str) -> Result<String, String> {
    let ps = params(args);
    if let Some(size) = optional(&ps, "size")? {
        if size.len() > 3 {
            return Err(error(PARAMETER, "'size' value too long"));
        }
        let size: usize = size.parse().map_err(|_| error(PARAMETER, "bad size"))?;
        if size != shared.view().members.len() {
            return Err(error(CLUSTER_KEY_MISMATCH, "cluster not specified size"));
        }
    }
    let ignore = match optional(&ps, "ignore-migrations")? {
        Some(v) if v.len() > 5 => {
            return Err(error(PARAMETER, "'ignore-migrations' value too long"))
        }
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => return Err(error(PARAMETER, "bad ignore migrations")),
    };
    if !ignore {
        super::optional_namespace(shared, &ps)?;
    }
    Ok(cluster_key(shared))
}

/// `jem-stats:[file=..;options=..;sites=..]`: the allocator's statistics go to the log.
pub fn jem_stats(args: &str) -> Result<String, String> {
    let ps = params(args);
    for name in ["file", "options", "sites"] {
        optional(&ps, name)?;
    }
    Ok("ok".into())
}

/// `endpoints`: the service, admin and fabric endpoints (this node listens for clients only).
pub fn endpoints(shared: &Shared) -> String {
    let (port, tls_port) = if shared.tls_on() {
        (0, shared.port())
    } else {
        (shared.port(), 0)
    };
    let addresses = |p: u16| if p == 0 { "null" } else { shared.host() };
    format!(
        "service.port={port};service.addresses={};service.access-port=0;\
service.access-addresses=null;service.alternate-access-port=0;\
service.alternate-access-addresses=null;service.tls-port={tls_port};service.tls-addresses={};\
service.tls-access-port=0;service.tls-access-addresses=null;\
service.tls-alternate-access-port=0;service.tls-alternate-access-addresses=null;admin.port=0;\
admin.addresses=null;admin.tls-port=0;admin.tls-addresses=null;fabric.port=0;\
fabric.addresses=null;fabric.tls-port=0;fabric.tls-addresses=null",
        addresses(port),
        addresses(tls_port)
    )
}

/// `tip:host=..;port=..[;tls=..]`: a mesh seed to add; this node has no heartbeat to add it to.
pub fn tip(args: &str) -> Result<String, String> {
    let ps = params(args);
    required(&ps, &["host"])?;
    let port = required(&ps, &["port"])?;
    let tls = optional(&ps, "tls")?.unwrap_or("false");
    if atoi(port).is_none() {
        return Err(error(PARAMETER, "'port' must be an integer"));
    }
    if tls != "true" && tls != "false" {
        return Err(error(PARAMETER, "'tls' must be either 'true' or 'false'"));
    }
    Err(error(super::UNKNOWN, "unknown"))
}

/// `tip-clear:host-port-list=..`: mesh seeds to drop; this node has none.
pub fn tip_clear(args: &str) -> Result<String, String> {
    let list = required(&params(args), &["host-port-list"])?;
    let mut not_found = 0u32;
    for item in list.split(',').filter(|s| !s.is_empty()) {
        let (host, port) = match item.strip_prefix('[') {
            Some(v6) => match v6.split_once(']') {
                Some((h, rest)) => (h, rest.strip_prefix(':').filter(|p| !p.is_empty())),
                None => (v6, None),
            },
            None => {
                let mut parts = item.split(':').filter(|s| !s.is_empty());
                (parts.next().unwrap_or(""), parts.next())
            }
        };
        if host.is_empty() || port.and_then(atoi).is_none() {
            break;
        }
        not_found += 1;
    }
    Err(error(
        super::UNKNOWN,
        format_args!("0 cleared, {not_found} not found"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tip_clear_counts_what_it_could_not_find() {
        assert_eq!(
            tip_clear("host-port-list=10.0.0.1:3002,[::1]:3002"),
            Err("ERROR::0 cleared, 2 not found".into())
        );
        assert_eq!(
            tip_clear("host-port-list=all"),
            Err("ERROR::0 cleared, 0 not found".into())
        );
    }
}
