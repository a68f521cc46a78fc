//! Node-wide info commands: build and release, features, statistics, latencies, logging,
//! cluster stability and the heartbeat tips a node takes.

use std::fmt::Write as _;

use super::{config, error, optional, params, required, CLUSTER_KEY_MISMATCH, PARAMETER};
use crate::stats::Kind;
use crate::Shared;

/// `compatibility-id`: the cluster exchange protocol of an 8.1.2 node.
pub const COMPATIBILITY_ID: u32 = 15;
/// `build_os`.
pub const BUILD_OS: &str = "linux";
/// `build_sha`: the commit Community Edition 8.1.2.0 was published as.
pub const BUILD_SHA: &str = "05b91c64f5fa7836a36e52e3797da34dc0325649";
/// `build_time`, as the build's `date` wrote it.
pub const BUILD_TIME: &str = "Sat Apr 18 03:44:33 UTC 2026";
/// `logs`: one sink, the console, as a node started in the foreground has.
pub const LOG_SINKS: &str = "0:stderr";

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

fn principal(shared: &Shared) -> u64 {
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

/// A number as a node's `cf_str_atoi` reads it: an optional `-`, digits, and an optional
/// `k`, `m` or `g` multiplier.
pub fn atoi(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let mut value: i64 = if digits == 0 {
        0
    } else {
        s[..digits].parse().ok()?
    };
    match &s[digits..] {
        "" => {}
        "k" | "K" => value *= 1024,
        "m" | "M" => value *= 1024 * 1024,
        "g" | "G" => value *= 1024 * 1024 * 1024,
        _ => return None,
    }
    Some(if neg { -value } else { value })
}

/// Log contexts of an 8.1.2 node, in its order.
pub const LOG_CONTEXTS: &[&str] = &[
    "misc",
    "alloc",
    "arenax",
    "hardware",
    "msg",
    "os",
    "secrets",
    "socket",
    "tls",
    "vault",
    "vmapx",
    "xmem",
    "aggr",
    "appeal",
    "as",
    "audit",
    "batch",
    "batch-sub",
    "bin",
    "config",
    "clustering",
    "deprecation",
    "drv-mem",
    "drv_pmem",
    "drv_ssd",
    "exchange",
    "exp",
    "fabric",
    "flat",
    "geo",
    "hb",
    "health",
    "hlc",
    "index",
    "info",
    "info-command",
    "key-busy",
    "migrate",
    "mrt-audit",
    "mrt-monitor",
    "namespace",
    "nsup",
    "particle",
    "partition",
    "proto",
    "proxy",
    "proxy-divert",
    "query",
    "record",
    "roster",
    "rw",
    "rw-client",
    "security",
    "service",
    "service-list",
    "sindex",
    "skew",
    "smd",
    "storage",
    "truncate",
    "tsvc",
    "udf",
    "xdr",
    "xdr-client",
    "masking",
];

/// Log levels, most severe first.
pub const LOG_LEVELS: &[&str] = &["CRITICAL", "WARNING", "INFO", "DEBUG", "DETAIL"];

fn context_index(name: &str) -> Option<usize> {
    LOG_CONTEXTS
        .iter()
        .position(|c| c.eq_ignore_ascii_case(name))
}

/// `log/<sink>[/<context>]`: the levels of a sink's contexts.
pub fn log_levels(shared: &Shared, args: &str) -> String {
    let (sink, context) = match args.split_once('/') {
        Some((sink, context)) => (sink, Some(context)),
        None => (args, None),
    };
    let Some(sink) = atoi(sink) else {
        return error(PARAMETER, "bad sink-id");
    };
    if sink != 0 {
        return "ERROR::bad-id".into();
    }
    let levels = config::log_levels(shared);
    match context {
        Some(name) => match context_index(name) {
            Some(i) => format!("{name}:{}", LOG_LEVELS[usize::from(levels[i])]),
            None => "ERROR::bad-context".into(),
        },
        None => LOG_CONTEXTS
            .iter()
            .zip(&levels)
            .map(|(c, l)| format!("{c}:{}", LOG_LEVELS[usize::from(*l)]))
            .collect::<Vec<_>>()
            .join(";"),
    }
}

/// Splits off a token as C's `strtok` does: leading delimiters skipped, then up to the next.
fn strtok<'a>(s: &mut &'a str, delims: &[char]) -> Option<&'a str> {
    let rest = s.trim_start_matches(delims);
    if rest.is_empty() {
        *s = rest;
        return None;
    }
    let end = rest.find(delims).unwrap_or(rest.len());
    let token = &rest[..end];
    *s = if end < rest.len() {
        &rest[end + 1..]
    } else {
        ""
    };
    Some(token)
}

/// `log-set:id=<sink>;<context>=<level>` (also `set-log`); `any` sets every context.
pub fn log_set(shared: &Shared, args: &str) -> Result<String, String> {
    let mut rest = args;
    if strtok(&mut rest, &['=']) != Some("id") {
        return Err(error(PARAMETER, "missing id"));
    }
    let id = strtok(&mut rest, &[';'])
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<u32>().ok())
        .ok_or_else(|| error(PARAMETER, "bad id"))?;
    let context = strtok(&mut rest, &['=']).ok_or_else(|| error(PARAMETER, "missing context"))?;
    let level = strtok(&mut rest, &[';']).ok_or_else(|| error(PARAMETER, "bad level"))?;
    let bad = || error(PARAMETER, "bad parameter");
    if id != 0 {
        return Err(bad());
    }
    let level = LOG_LEVELS
        .iter()
        .position(|l| l.eq_ignore_ascii_case(level))
        .ok_or_else(bad)?;
    let contexts: Vec<usize> = if context == "any" {
        (0..LOG_CONTEXTS.len()).collect()
    } else {
        vec![context_index(context).ok_or_else(bad)?]
    };
    config::set_log_levels(shared, &contexts, level as u8);
    Ok("ok".into())
}

/// `log-message:message=..[;who=..]`: a line for the log; the reply is empty.
pub fn log_message(args: &str) -> Result<String, String> {
    let ps = params(args);
    optional(&ps, "who")?;
    required(&ps, &["message"])?;
    Ok(String::new())
}

/// Histograms `latencies:` reports without `hist=`, each namespace's after the node's.
const NAMESPACE_HISTOGRAMS: &[&str] = &[
    "read",
    "write",
    "udf",
    "batch-sub-read",
    "batch-sub-write",
    "batch-sub-udf",
    "pi-query",
    "si-query",
];

/// Namespace histograms `latencies:hist={ns}-<name>` takes, and the benchmark groups.
const NAMED_HISTOGRAMS: &[(&str, &[&str])] = &[
    ("read", &["read"]),
    ("write", &["write"]),
    ("udf", &["udf"]),
    ("batch-sub-read", &["batch-sub-read"]),
    ("batch-sub-write", &["batch-sub-write"]),
    ("batch-sub-udf", &["batch-sub-udf"]),
    ("pi-query", &["pi-query"]),
    ("si-query", &["si-query"]),
    ("read-touch", &["read-touch"]),
    ("re-repl", &["re-repl"]),
    ("proxy", &["proxy"]),
    (
        "benchmarks-read",
        &[
            "read-start",
            "read-restart",
            "read-dup-res",
            "read-repl-ping",
            "read-local",
            "read-response",
        ],
    ),
    (
        "benchmarks-write",
        &[
            "write-start",
            "write-restart",
            "write-dup-res",
            "write-master",
            "write-repl-write",
            "write-response",
        ],
    ),
    (
        "benchmarks-udf",
        &[
            "udf-start",
            "udf-restart",
            "udf-dup-res",
            "udf-master",
            "udf-repl-write",
            "udf-response",
        ],
    ),
    (
        "benchmarks-batch-sub",
        &[
            "batch-sub-prestart",
            "batch-sub-start",
            "batch-sub-restart",
            "batch-sub-dup-res",
            "batch-sub-repl-ping",
            "batch-sub-read-local",
            "batch-sub-write-master",
            "batch-sub-udf-master",
            "batch-sub-repl-write",
            "batch-sub-response",
        ],
    ),
    (
        "benchmarks-udf-sub",
        &[
            "udf-sub-start",
            "udf-sub-restart",
            "udf-sub-dup-res",
            "udf-sub-master",
            "udf-sub-repl-write",
            "udf-sub-response",
        ],
    ),
    (
        "benchmarks-ops-sub",
        &[
            "ops-sub-start",
            "ops-sub-restart",
            "ops-sub-dup-res",
            "ops-sub-master",
            "ops-sub-repl-write",
            "ops-sub-response",
        ],
    ),
];

/// Fabric histograms of `latencies:hist=benchmarks-fabric`.
const FABRIC_CHANNELS: &[&str] = &["bulk", "ctrl", "meta", "rw"];
const FABRIC_STAGES: &[&str] = &["send-init", "send-fragment", "recv-fragment", "recv-cb"];

/// Columns after a histogram's rate: the share over each of 17 thresholds (1, 2, 4 ...
/// 65536 units).
const LATENCY_COLUMNS: usize = 17;

/// `latencies:[hist=<name>]`: per histogram `<name>:<units>,<ops/sec>,<pct over 2^0>,...`,
/// `;`-separated. This server keeps no latency histograms: every one reports no operation
/// over a threshold and no measured rate.
pub fn latencies(shared: &Shared, args: &str) -> Result<String, String> {
    let ps = params(args);
    let mut names: Vec<String> = Vec::new();
    match optional(&ps, "hist")? {
        None => {
            names.push("batch-index".into());
            for ns in &shared.store.namespaces {
                for h in NAMESPACE_HISTOGRAMS {
                    names.push(format!("{{{}}}-{h}", ns.name));
                }
            }
        }
        Some(name @ ("batch-index" | "info")) => names.push(name.into()),
        Some("benchmarks-fabric") => {
            for channel in FABRIC_CHANNELS {
                for stage in FABRIC_STAGES {
                    names.push(format!("fabric-{channel}-{stage}"));
                }
            }
        }
        Some(name) => {
            let bad = || error(PARAMETER, "bad hist name");
            let scoped = name.strip_prefix('{').ok_or_else(bad)?;
            let (ns, hist) = scoped.split_once('}').ok_or_else(bad)?;
            if shared.store.namespace(ns.as_bytes()).is_none() {
                return Err(bad());
            }
            let hist = hist.strip_prefix('-').ok_or_else(bad)?;
            let (_, group) = NAMED_HISTOGRAMS
                .iter()
                .find(|(n, _)| *n == hist)
                .ok_or_else(bad)?;
            names.extend(group.iter().map(|h| format!("{{{ns}}}-{h}")));
        }
    }
    let units = if config::microsecond_histograms(shared) {
        "usec"
    } else {
        "msec"
    };
    let mut out = String::new();
    for name in names {
        let _ = write!(out, "{name}:{units},0.0");
        for _ in 0..LATENCY_COLUMNS {
            out.push_str(",0.00");
        }
        out.push(';');
    }
    out.pop();
    Ok(out)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoi_reads_as_a_node_reads() {
        assert_eq!(atoi(""), Some(0));
        assert_eq!(atoi("12"), Some(12));
        assert_eq!(atoi("-3"), Some(-3));
        assert_eq!(atoi("2k"), Some(2048));
        assert_eq!(atoi("1x"), None);
    }

    #[test]
    fn strtok_skips_leading_delimiters() {
        let mut s = "id=0;misc=debug";
        assert_eq!(strtok(&mut s, &['=']), Some("id"));
        assert_eq!(strtok(&mut s, &[';']), Some("0"));
        assert_eq!(strtok(&mut s, &['=']), Some("misc"));
        assert_eq!(strtok(&mut s, &[';']), Some("debug"));
        assert_eq!(strtok(&mut s, &['=']), None);
    }

    #[test]
    fn log_message_needs_a_message() {
        assert_eq!(log_message("message=hi;who=me"), Ok(String::new()));
        assert_eq!(
            log_message("who=me"),
            Err("ERROR:4:missing 'message'".into())
        );
        assert_eq!(
            log_message("message=hi;who="),
            Err("ERROR:4:missing 'who' value".into())
        );
    }

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
