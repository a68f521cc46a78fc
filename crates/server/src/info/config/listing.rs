//! What `get-config` lists: each context's settings, the defaults with what `set-config`
//! changed; and a set's, as `sets` lists it.

use super::{cluster_name, with};
use crate::info::namespace::DATA_SIZE;
use crate::info::{error, local_namespace, params, required, PARAMETER};
use crate::Shared;

/// `name=value` pairs of a context: the defaults with what `set-config` changed.
fn render(shared: &Shared, scope: &str, defaults: Vec<(&str, String)>) -> String {
    let overrides = with(shared, |s| {
        s.changed.get(scope).cloned().unwrap_or_default()
    });
    defaults
        .into_iter()
        .map(|(k, v)| match overrides.get(k) {
            Some(o) => format!("{k}={o}"),
            None => format!("{k}={v}"),
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

fn service(shared: &Shared) -> String {
    let cpus = cpus().to_string();
    let defaults: Vec<(&str, String)> = vec![
        ("advertise-ipv6", "false".into()),
        ("auto-pin", "none".into()),
        ("batch-index-threads", cpus.clone()),
        ("batch-max-buffers-per-queue", "255".into()),
        ("batch-max-requests", "0".into()),
        ("batch-max-unused-buffers", "256".into()),
        ("cgroup-mem-tracking", "false".into()),
        ("cluster-name", cluster_name(shared)),
        ("debug-allocations", "false".into()),
        ("disable-udf-execution", "false".into()),
        ("enable-benchmarks-fabric", "false".into()),
        ("enable-health-check", "false".into()),
        ("enable-hist-info", "false".into()),
        ("enforce-best-practices", "false".into()),
        ("feature-key-file[0]", "/etc/aerospike/features.conf".into()),
        ("indent-allocations", "false".into()),
        ("info-max-ms", "10000".into()),
        ("info-threads", "16".into()),
        ("keep-caps-ssd-health", "false".into()),
        ("log-local-time", "false".into()),
        ("log-millis", "false".into()),
        ("microsecond-histograms", "false".into()),
        ("migrate-fill-delay", "0".into()),
        ("migrate-max-num-incoming", "4".into()),
        ("migrate-threads", "1".into()),
        ("min-cluster-size", "1".into()),
        ("node-id", shared.node_name()),
        ("node-id-interface", "null".into()),
        ("os-group-perms", "false".into()),
        ("pidfile", "null".into()),
        ("poison-allocations", "false".into()),
        ("proto-fd-idle-ms", "0".into()),
        ("proto-fd-max", "15000".into()),
        ("quarantine-allocations", "0".into()),
        ("query-max-done", "100".into()),
        ("query-threads-limit", "128".into()),
        ("run-as-daemon", "false".into()),
        ("secrets-address-port", "null".into()),
        ("secrets-tls-context", "null".into()),
        ("secrets-uds-path", "null".into()),
        ("service-threads", cpus),
        ("sindex-builder-threads", "4".into()),
        ("sindex-gc-period", "10".into()),
        ("stay-quiesced", "false".into()),
        ("ticker-interval", "10".into()),
        ("tls-refresh-period", "86400".into()),
        ("transaction-max-ms", "1000".into()),
        ("transaction-retry-ms", "1002".into()),
        ("vault-ca", "null".into()),
        ("vault-namespace", "null".into()),
        ("vault-path", "null".into()),
        ("vault-token-file", "null".into()),
        ("vault-url", "null".into()),
        ("work-directory", "/opt/aerospike".into()),
    ];
    render(shared, "service", defaults)
}

fn network(shared: &Shared) -> String {
    let (port, tls_port) = if shared.tls_on() {
        (0, shared.port())
    } else {
        (shared.port(), 0)
    };
    let mut defaults: Vec<(&str, String)> = vec![("service.port", port.to_string())];
    if port != 0 {
        defaults.push(("service.address", shared.host().into()));
    }
    defaults.extend([
        ("service.access-port", "0".into()),
        ("service.alternate-access-port", "0".into()),
        ("service.tls-port", tls_port.to_string()),
    ]);
    if tls_port != 0 {
        defaults.push(("service.tls-address", shared.host().into()));
    }
    defaults.extend([
        ("service.tls-access-port", "0".into()),
        ("service.tls-alternate-access-port", "0".into()),
        ("service.tls-name", "null".into()),
        ("service.tls-authenticate-client", "any".into()),
        ("service.disable-localhost", "false".into()),
        ("admin.port", "0".into()),
        ("admin.tls-port", "0".into()),
        ("admin.tls-name", "null".into()),
        ("admin.tls-authenticate-client", "any".into()),
        ("admin.disable-localhost", "false".into()),
        ("fabric.tls-port", "0".into()),
        ("fabric.tls-name", "null".into()),
        ("fabric.channel-bulk-fds", "2".into()),
        ("fabric.channel-bulk-recv-threads", "4".into()),
        ("fabric.channel-ctrl-fds", "1".into()),
        ("fabric.channel-ctrl-recv-threads", "4".into()),
        ("fabric.channel-meta-fds", "1".into()),
        ("fabric.channel-meta-recv-threads", "4".into()),
        ("fabric.channel-rw-fds", "8".into()),
        ("fabric.channel-rw-recv-pools", "1".into()),
        ("fabric.channel-rw-recv-threads", "16".into()),
        ("fabric.keepalive-enabled", "true".into()),
        ("fabric.keepalive-intvl", "1".into()),
        ("fabric.keepalive-probes", "10".into()),
        ("fabric.keepalive-time", "1".into()),
        ("fabric.latency-max-ms", "5".into()),
        ("fabric.port", "0".into()),
        ("fabric.recv-rearm-threshold", "1024".into()),
        ("fabric.send-threads", "8".into()),
    ]);
    render(shared, "network", defaults)
}

/// A namespace's configuration, as `get-config:context=namespace` and `namespace/<ns>` list
/// it.
pub fn namespace(shared: &Shared, ns: &crate::store::Namespace) -> String {
    let sc = ns.strong_consistency;
    let copies = shared.view().copies.to_string();
    let mrt_duration = if sc { crate::txn::DEFAULT_DURATION } else { 0 };
    let defaults: Vec<(&str, String)> = vec![
        ("active-rack", "0".into()),
        ("allow-ttl-without-nsup", "true".into()),
        ("apply-ttl-reductions", "false".into()),
        ("auto-revive", "false".into()),
        ("background-query-max-rps", "10000".into()),
        ("conflict-resolution-policy", "generation".into()),
        ("conflict-resolve-writes", "false".into()),
        ("default-read-touch-ttl-pct", "0".into()),
        ("default-ttl", "0".into()),
        ("disable-cold-start-eviction", "false".into()),
        ("disable-mrt-writes", "false".into()),
        ("disable-write-dup-res", "false".into()),
        ("disallow-expunge", "false".into()),
        ("disallow-null-setname", "false".into()),
        ("enable-benchmarks-batch-sub", "false".into()),
        ("enable-benchmarks-ops-sub", "false".into()),
        ("enable-benchmarks-read", "false".into()),
        ("enable-benchmarks-udf", "false".into()),
        ("enable-benchmarks-udf-sub", "false".into()),
        ("enable-benchmarks-write", "false".into()),
        ("enable-hist-proxy", "false".into()),
        ("evict-hist-buckets", "10000".into()),
        ("evict-indexes-memory-pct", "0".into()),
        ("evict-tenths-pct", "5".into()),
        ("force-long-queries", "false".into()),
        ("ignore-migrate-fill-delay", "false".into()),
        ("index-stage-size", "1073741824".into()),
        ("indexes-memory-budget", "0".into()),
        ("inline-short-queries", "false".into()),
        // No record size limit here.
        ("max-record-size", "0".into()),
        ("migrate-order", "5".into()),
        ("migrate-retransmit-ms", "5000".into()),
        ("migrate-skip-unreadable", "false".into()),
        ("migrate-sleep", "1".into()),
        ("mrt-duration", mrt_duration.to_string()),
        ("nsup-hist-period", "3600".into()),
        ("nsup-period", "1".into()),
        ("nsup-threads", "1".into()),
        ("partition-tree-sprigs", "256".into()),
        ("prefer-uniform-balance", "false".into()),
        ("rack-id", shared.rack_id().to_string()),
        ("read-consistency-level-override", "off".into()),
        ("reject-non-xdr-writes", "false".into()),
        ("reject-xdr-writes", "false".into()),
        ("replication-factor", copies),
        ("sindex-stage-size", "1073741824".into()),
        ("single-query-threads", "4".into()),
        ("stop-writes-sys-memory-pct", "90".into()),
        ("strong-consistency", sc.to_string()),
        ("strong-consistency-allow-expunge", "false".into()),
        ("tomb-raider-eligible-age", "86400".into()),
        ("tomb-raider-period", "86400".into()),
        ("tomb-raider-unmark-threads", "1".into()),
        ("transaction-pending-limit", "20".into()),
        ("truncate-threads", "4".into()),
        ("write-commit-level-override", "off".into()),
        ("xdr-bin-tombstone-ttl", "86400".into()),
        ("xdr-tomb-raider-period", "120".into()),
        ("xdr-tomb-raider-threads", "1".into()),
        ("geo2dsphere-within.strict", "true".into()),
        ("geo2dsphere-within.min-level", "1".into()),
        ("geo2dsphere-within.max-level", "20".into()),
        ("geo2dsphere-within.max-cells", "12".into()),
        ("geo2dsphere-within.level-mod", "1".into()),
        ("geo2dsphere-within.earth-radius-meters", "6371000".into()),
        ("index-type", "mem".into()),
        ("sindex-type", "mem".into()),
        ("storage-engine", "memory".into()),
        ("storage-engine.commit-to-device", "false".into()),
        ("storage-engine.compression", "none".into()),
        ("storage-engine.compression-acceleration", "0".into()),
        ("storage-engine.compression-level", "0".into()),
        ("storage-engine.data-size", DATA_SIZE.to_string()),
        ("storage-engine.defrag-lwm-pct", "50".into()),
        ("storage-engine.defrag-queue-min", "0".into()),
        ("storage-engine.defrag-sleep", "1000".into()),
        ("storage-engine.defrag-startup-minimum", "0".into()),
        ("storage-engine.direct-files", "false".into()),
        ("storage-engine.disable-odsync", "false".into()),
        ("storage-engine.enable-benchmarks-storage", "false".into()),
        ("storage-engine.encryption-key-file", "null".into()),
        ("storage-engine.encryption-old-key-file", "null".into()),
        ("storage-engine.evict-used-pct", "0".into()),
        ("storage-engine.filesize", "0".into()),
        ("storage-engine.flush-max-ms", "1000".into()),
        ("storage-engine.max-write-cache", "67108864".into()),
        ("storage-engine.stop-writes-avail-pct", "5".into()),
        ("storage-engine.stop-writes-used-pct", "70".into()),
        ("storage-engine.tomb-raider-sleep", "1000".into()),
    ];
    render(shared, &format!("namespace:{}", ns.name), defaults)
}

/// A set's configuration as `sets` lists it (`:`-separated).
pub fn set_config(shared: &Shared, ns: &str, set: &str) -> String {
    let scope = format!("set:{ns}:{set}");
    let overrides = with(shared, |s| {
        s.changed.get(&scope).cloned().unwrap_or_default()
    });
    [
        ("default-read-touch-ttl-pct", "0"),
        ("default-ttl", "0"),
        ("disable-eviction", "false"),
        ("enable-index", "false"),
        ("stop-writes-count", "0"),
        ("stop-writes-size", "0"),
    ]
    .iter()
    .map(|(k, v)| format!("{k}={}", overrides.get(k).map_or(*v, String::as_str)))
    .collect::<Vec<_>>()
    .join(":")
}

/// `get-config[:context=service|network|namespace;id=<ns>|security|xdr]`: without a context,
/// the service, network and security ones together.
pub fn get(shared: &Shared, args: &str) -> String {
    if args.is_empty() {
        return format!("{};{}", service(shared), network(shared));
    }
    let ps = params(args);
    let context = match required(&ps, &["context"]) {
        Ok(c) => c,
        Err(refused) => return refused,
    };
    match context {
        "service" => service(shared),
        "network" => network(shared),
        "namespace" => match local_namespace(shared, &ps, &["namespace", "id"]) {
            Ok(ns) => namespace(shared, ns),
            Err(refused) => refused,
        },
        // Security and XDR are not configured: nothing to list.
        "security" | "xdr" => String::new(),
        _ => error(PARAMETER, "invalid context"),
    }
}
