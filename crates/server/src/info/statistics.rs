//! `statistics`: the node's counters under a real node's names.

use super::node::{cluster_key, principal, COMPATIBILITY_ID};
use crate::stats::Kind;
use crate::Shared;

/// Free and total memory of the host, in kilobytes (Linux).
fn memory_kbytes() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    (field("MemAvailable:"), field("MemTotal:"))
}

/// `statistics`: the node's statistics under a real node's names, in its order.
pub fn statistics(shared: &Shared) -> String {
    let stats = shared.stats.snapshot(shared.store.record_count());
    let get = |k: &str| stats.iter().find(|(n, _)| *n == k).map_or(0, |(_, v)| *v);
    let count = |k: Kind| get(stats_name(k));
    let view = shared.view();
    let principal = format!("{:X}", principal(shared));
    let (free_kb, total_kb) = memory_kbytes();
    let free_pct = (free_kb * 100).checked_div(total_kb).unwrap_or(0);
    let opened = get("connections_total");
    let open = get("connections_open");
    let uptime = shared.started.elapsed().as_secs();
    let batches = count(Kind::Batch);
    let fields: Vec<(&str, String)> = vec![
        ("failed_best_practices", "false".into()),
        ("cluster_size", view.members.len().to_string()),
        ("cluster_key", cluster_key(shared)),
        ("cluster_generation", view.generation.to_string()),
        ("cluster_principal", principal.clone()),
        ("cluster_min_compatibility_id", COMPATIBILITY_ID.to_string()),
        ("cluster_max_compatibility_id", COMPATIBILITY_ID.to_string()),
        ("cluster_integrity", "true".into()),
        ("cluster_is_member", "true".into()),
        ("cluster_duplicate_nodes", "null".into()),
        ("cluster_clock_skew_stop_writes_sec", "0".into()),
        ("cluster_clock_skew_ms", "0".into()),
        ("cluster_clock_skew_outliers", "null".into()),
        ("uptime", uptime.to_string()),
        ("system_total_cpu_pct", "0".into()),
        ("system_user_cpu_pct", "0".into()),
        ("system_kernel_cpu_pct", "0".into()),
        ("system_free_mem_kbytes", free_kb.to_string()),
        ("system_free_mem_pct", free_pct.to_string()),
        ("host_free_mem_kbytes", free_kb.to_string()),
        ("host_free_mem_pct", free_pct.to_string()),
        ("system_thp_mem_kbytes", "0".into()),
        ("process_cpu_pct", "0".into()),
        ("objects", get("records").to_string()),
        ("tombstones", "0".into()),
        ("info_queue", "0".into()),
        ("rw_in_progress", "0".into()),
        ("proxy_in_progress", "0".into()),
        ("tree_gc_queue", "0".into()),
        ("client_connections", open.to_string()),
        ("client_connections_opened", opened.to_string()),
        (
            "client_connections_closed",
            opened.saturating_sub(open).to_string(),
        ),
        ("admin_connections", "0".into()),
        ("admin_connections_opened", "0".into()),
        ("admin_connections_closed", "0".into()),
        ("heartbeat_connections", "0".into()),
        ("heartbeat_connections_opened", "0".into()),
        ("heartbeat_connections_closed", "0".into()),
        ("fabric_connections", "0".into()),
        ("fabric_connections_opened", "0".into()),
        ("fabric_connections_closed", "0".into()),
        ("heartbeat_received_self", "0".into()),
        ("heartbeat_received_foreign", "0".into()),
        ("reaped_fds", "0".into()),
        ("info_complete", count(Kind::Info).to_string()),
        ("info_timeout", "0".into()),
        ("demarshal_error", "0".into()),
        ("early_tsvc_client_error", "0".into()),
        ("early_tsvc_from_proxy_error", "0".into()),
        ("early_tsvc_from_proxy_batch_sub_error", "0".into()),
        ("long_queries_active", "0".into()),
        ("batch_index_initiate", batches.to_string()),
        ("batch_index_complete", batches.to_string()),
        ("batch_index_error", "0".into()),
        ("batch_index_timeout", "0".into()),
        ("batch_index_delay", "0".into()),
        ("paxos_principal", principal),
        ("time_since_rebalance", uptime.to_string()),
        ("migrate_allowed", "true".into()),
        ("migrate_partitions_remaining", "0".into()),
        ("deprecated_requests", "0".into()),
    ];
    fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// The name [`crate::stats::Stats::snapshot`] gives a kind.
fn stats_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Info => "info",
        Kind::Read => "read",
        Kind::Write => "write",
        Kind::Operate => "operate",
        Kind::Batch => "batch",
        Kind::Scan => "scan",
        Kind::Query => "query",
        Kind::Udf => "udf",
        Kind::Delete => "delete",
    }
}
