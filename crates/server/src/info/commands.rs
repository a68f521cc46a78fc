//! The command table: the names a real node answers and what guards each.

use crate::Shared;

/// Sent only by clients: left out of `help`.
pub const CLIENT: u8 = 1;
/// Enterprise only: refused by a Community node.
pub const EE: u8 = 2;
/// Needs a permission: refused on a connection that has not logged in when the server has
/// users.
pub const PRIV: u8 = 4;

/// A real node's commands, flagged: first those of the summary (an empty request) in its
/// order, then the others sorted, as its table has them.
pub const SPECS: &[(&str, u8)] = &[
    ("features", 0),
    ("node", 0),
    ("compatibility-id", 0),
    ("edition", 0),
    ("build_ee_sha", 0),
    ("build_sha", 0),
    ("build_arch", 0),
    ("build_time", 0),
    ("build_os", 0),
    ("build", 0),
    ("version", 0),
    ("statistics", 0),
    ("services-alumni", 0),
    ("services", 0),
    ("partition-generation", 0),
    ("admin-clear-std", CLIENT),
    ("admin-tls-std", CLIENT),
    ("alumni-clear-alt", CLIENT),
    ("alumni-clear-std", CLIENT),
    ("alumni-tls-alt", CLIENT | EE),
    ("alumni-tls-std", CLIENT | EE),
    ("best-practices", 0),
    ("cluster-name", 0),
    ("cluster-stable", 0),
    ("config-get", CLIENT),
    ("config-set", CLIENT | PRIV),
    ("connection", CLIENT),
    ("debug-record", PRIV),
    ("debug-record-meta", PRIV),
    ("digests", CLIENT),
    ("dump-cluster", PRIV),
    ("dump-fabric", PRIV),
    ("dump-hb", PRIV),
    ("dump-hlc", PRIV),
    ("dump-migrates", PRIV),
    ("dump-rw", PRIV),
    ("dump-skew", PRIV),
    ("dump-wb-summary", PRIV),
    ("endpoints", CLIENT),
    ("eviction-reset", PRIV),
    ("feature-key", EE),
    ("get-config", 0),
    ("get-sl", 0),
    ("get-stats", 0),
    ("health-outliers", 0),
    ("health-stats", 0),
    ("help", 0),
    ("histogram", 0),
    ("index-pressure", 0),
    ("jem-stats", PRIV),
    ("latencies", 0),
    ("log", 0),
    ("log-message", PRIV),
    ("log-set", PRIV),
    ("logs", 0),
    ("masking", EE | PRIV),
    ("masking-show", EE),
    ("mcast", CLIENT),
    ("mesh", CLIENT),
    ("name", CLIENT),
    ("namespace", 0),
    ("namespaces", 0),
    ("objects", CLIENT),
    ("partition-info", CLIENT),
    ("partitions", CLIENT),
    ("peers-clear-alt", 0),
    ("peers-clear-std", 0),
    ("peers-generation", 0),
    ("peers-tls-alt", EE),
    ("peers-tls-std", EE),
    ("physical-devices", 0),
    ("query-abort", PRIV),
    ("query-abort-all", PRIV),
    ("query-show", 0),
    ("quiesce", EE | PRIV),
    ("quiesce-undo", EE | PRIV),
    ("rack-ids", EE),
    ("racks", EE),
    ("rebalance-generation", CLIENT),
    ("recluster", PRIV),
    ("release", CLIENT),
    ("replicas", CLIENT),
    ("replicas-all", CLIENT),
    ("replicas-master", CLIENT),
    ("revive", EE | PRIV),
    ("roster", EE),
    ("roster-set", EE | PRIV),
    ("service", 0),
    ("service-clear-alt", CLIENT),
    ("service-clear-std", CLIENT),
    ("service-tls-alt", CLIENT | EE),
    ("service-tls-std", CLIENT | EE),
    ("services-alternate", CLIENT),
    ("services-alumni-reset", PRIV),
    ("set-config", PRIV),
    ("set-log", PRIV),
    ("sets", 0),
    ("sindex", CLIENT),
    ("sindex-create", PRIV),
    ("sindex-delete", PRIV),
    ("sindex-exists", PRIV),
    ("sindex-list", 0),
    ("sindex-stat", 0),
    ("smd-info", CLIENT),
    ("smd-show", CLIENT),
    ("status", 0),
    ("thread-traces", 0),
    ("tip", PRIV),
    ("tip-clear", PRIV),
    ("truncate", PRIV),
    ("truncate-namespace", PRIV),
    ("truncate-namespace-undo", PRIV),
    ("truncate-undo", PRIV),
    ("udf-clear-cache", CLIENT | PRIV),
    ("udf-get", 0),
    ("udf-list", 0),
    ("udf-put", PRIV),
    ("udf-remove", PRIV),
    ("user-agent-set", CLIENT),
    ("user-agents", CLIENT),
    ("xdr-dc-state", EE),
    ("xdr-get-filter", EE),
    ("xdr-set-filter", EE | PRIV),
];

/// Answered here though a real node does not know it: the member count of this node's view
/// (tests of the embedded cluster read it).
pub const EMBEDDED_ONLY: &[&str] = &["cluster-size"];

/// A name a real node takes at most (its table's key size, less the terminating NUL).
pub const MAX_NAME: usize = 31;

/// `help`: the commands a node lists, those only clients send left out, and on a Community
/// node the Enterprise ones.
pub fn help(shared: &Shared) -> String {
    let community = shared.edition == crate::Edition::Community;
    // In table order: the summary ones first, as a real node lists them.
    SPECS
        .iter()
        .filter(|(_, flags)| flags & CLIENT == 0 && !(community && flags & EE != 0))
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(";")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_after_the_summary() {
        let rest: Vec<&str> = SPECS
            .iter()
            .skip_while(|(n, _)| *n != "admin-clear-std")
            .map(|(n, _)| *n)
            .collect();
        assert!(rest.windows(2).all(|w| w[0] < w[1]), "{rest:?}");
        assert!(SPECS.iter().all(|(n, _)| n.len() <= MAX_NAME));
    }
}
