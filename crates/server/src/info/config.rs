//! `get-config` and `set-config`, and what a node remembers of them: the settings
//! `set-config` changed, its cluster name and its log levels.
//!
//! `set-config` takes, as a real node, one dynamic parameter of a context. Those that only
//! tune a real node's machinery (threads, intervals, benchmarks) are taken and reported back
//! by `get-config`; those whose effect this server does not have (a default TTL, stop-writes
//! limits, replication) are refused as a real node refuses a value it cannot take.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Instant;

use super::logging::LOG_CONTEXTS;
use super::{atoi, error, param, params, required, ENTERPRISE_ONLY, PARAMETER};
use crate::Shared;

/// What a node remembers beyond its configuration.
struct Settings {
    cluster_name: Option<String>,
    /// Values `set-config` changed, by scope (`service`, `network`, `namespace:<ns>`,
    /// `set:<ns>:<set>`) and name.
    changed: HashMap<String, BTreeMap<&'static str, String>>,
    /// The console sink's level of each log context.
    log_levels: Vec<u8>,
}

/// Level `INFO`, every context's at start.
const INFO: u8 = 2;

/// Settings of every node of this process, by node (its address and start).
static SETTINGS: Mutex<Option<HashMap<(usize, Instant), Settings>>> = Mutex::new(None);

fn with<R>(shared: &Shared, f: impl FnOnce(&mut Settings) -> R) -> R {
    let key = (std::ptr::from_ref(shared) as usize, shared.started);
    let mut all = SETTINGS.lock().unwrap_or_else(|e| e.into_inner());
    let settings = all
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert_with(|| Settings {
            cluster_name: shared.cluster_name.clone(),
            changed: HashMap::new(),
            log_levels: vec![INFO; LOG_CONTEXTS.len()],
        });
    f(settings)
}

/// Longest `cluster-name` a real node takes (its buffer holds 64 bytes with the NUL).
const CLUSTER_NAME_MAX: usize = 63;

/// Whether a node may start with `name` as its `cluster-name`: 1 to 63 bytes, and one token
/// of a configuration file (no whitespace) that an info value can carry (no ';').
pub fn cluster_name_is_valid(name: &str) -> bool {
    (1..=CLUSTER_NAME_MAX).contains(&name.len())
        && !name.contains(|c: char| c == ';' || c.is_whitespace())
}

/// `cluster-name`: as configured at start or by `set-config`; `null` when never named (what
/// nodes before 7.0 answered without one: 7.0 and later refuse to start without one).
pub fn cluster_name(shared: &Shared) -> String {
    with(shared, |s| s.cluster_name.clone()).unwrap_or_else(|| "null".into())
}

pub fn log_levels(shared: &Shared) -> Vec<u8> {
    with(shared, |s| s.log_levels.clone())
}

pub fn set_log_levels(shared: &Shared, contexts: &[usize], level: u8) {
    with(shared, |s| {
        for &c in contexts {
            s.log_levels[c] = level;
        }
    });
}

fn changed(shared: &Shared, scope: &str, name: &str) -> Option<String> {
    with(shared, |s| s.changed.get(scope)?.get(name).cloned())
}

/// Whether latency histograms count microseconds (`microsecond-histograms`).
pub fn microsecond_histograms(shared: &Shared) -> bool {
    changed(shared, "service", "microsecond-histograms").as_deref() == Some("true")
}

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
        (
            "storage-engine.data-size",
            super::namespace::DATA_SIZE.to_string(),
        ),
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
        "namespace" => match super::local_namespace(shared, &ps, &["namespace", "id"]) {
            Ok(ns) => namespace(shared, ns),
            Err(refused) => refused,
        },
        // Security and XDR are not configured: nothing to list.
        "security" | "xdr" => String::new(),
        _ => error(PARAMETER, "invalid context"),
    }
}

/// How a dynamic parameter's value is checked.
#[derive(Clone, Copy)]
enum Kind {
    Bool,
    /// An integer as a node reads it, within bounds.
    Int(i64, i64),
    /// A duration in seconds, with an optional `s`, `m`, `h` or `d` unit.
    Seconds,
    /// One of these words.
    Word(&'static [&'static str]),
    /// 1 to 64 characters.
    Name,
    /// Taken by an Enterprise node only.
    Enterprise(&'static Kind),
    /// A setting whose effect this server does not have: refused.
    Refused,
}

const U32: Kind = Kind::Int(0, u32::MAX as i64);
const I32: Kind = Kind::Int(i32::MIN as i64, i32::MAX as i64);
const PCT: Kind = Kind::Int(0, 100);

/// Dynamic service parameters, in the order a real node looks for them.
const SERVICE: &[(&str, Kind)] = &[
    ("advertise-ipv6", Kind::Bool),
    ("batch-index-threads", Kind::Int(1, 256)),
    ("batch-max-buffers-per-queue", I32),
    ("batch-max-requests", I32),
    ("batch-max-unused-buffers", I32),
    ("cgroup-mem-tracking", Kind::Bool),
    ("cluster-name", Kind::Name),
    ("enable-benchmarks-fabric", Kind::Bool),
    ("enable-health-check", Kind::Refused),
    ("enable-hist-info", Kind::Bool),
    ("info-max-ms", Kind::Int(500, 10_000)),
    ("info-threads", Kind::Int(1, 256)),
    ("microsecond-histograms", Kind::Bool),
    ("migrate-fill-delay", Kind::Enterprise(&Kind::Seconds)),
    ("migrate-max-num-incoming", Kind::Int(0, 256)),
    ("migrate-threads", Kind::Int(0, 100)),
    ("min-cluster-size", Kind::Refused),
    ("proto-fd-idle-ms", Kind::Refused),
    ("proto-fd-max", Kind::Int(1024, i32::MAX as i64)),
    ("query-max-done", Kind::Int(0, 10_000)),
    ("query-threads-limit", Kind::Int(1, 1024)),
    ("service-threads", Kind::Int(1, 4096)),
    ("sindex-builder-threads", Kind::Int(i32::MIN as i64, 32)),
    ("sindex-gc-period", I32),
    ("ticker-interval", I32),
    ("tls-refresh-period", Kind::Enterprise(&Kind::Seconds)),
    ("transaction-max-ms", I32),
    ("transaction-retry-ms", Kind::Int(1, i32::MAX as i64)),
    ("vault-token-file", Kind::Refused),
];

/// Dynamic network parameters: this node has no heartbeat to retune.
const NETWORK: &[(&str, Kind)] = &[
    ("fabric.channel-bulk-recv-threads", Kind::Int(1, 128)),
    ("fabric.channel-ctrl-recv-threads", Kind::Int(1, 128)),
    ("fabric.channel-meta-recv-threads", Kind::Int(1, 128)),
    ("fabric.channel-rw-recv-threads", Kind::Int(1, 128)),
    ("fabric.recv-rearm-threshold", Kind::Int(0, 1024)),
    ("heartbeat.connect-timeout-ms", Kind::Refused),
    ("heartbeat.interval", Kind::Refused),
    ("heartbeat.mtu", Kind::Refused),
    ("heartbeat.protocol", Kind::Refused),
    ("heartbeat.timeout", Kind::Refused),
];

/// Dynamic namespace parameters, in the order a real node looks for them (`set` first, then
/// these).
const NAMESPACE_PARAMS: &[(&str, Kind)] = &[
    ("active-rack", Kind::Refused),
    ("allow-ttl-without-nsup", Kind::Bool),
    ("apply-ttl-reductions", Kind::Bool),
    ("background-query-max-rps", Kind::Int(1, 1_000_000)),
    (
        "conflict-resolution-policy",
        Kind::Word(&["generation", "last-update-time"]),
    ),
    ("conflict-resolve-writes", Kind::Enterprise(&Kind::Bool)),
    ("default-read-touch-ttl-pct", Kind::Refused),
    ("default-ttl", Kind::Refused),
    ("disable-mrt-writes", Kind::Refused),
    ("disable-write-dup-res", Kind::Bool),
    ("disallow-expunge", Kind::Bool),
    ("disallow-null-setname", Kind::Refused),
    ("enable-benchmarks-batch-sub", Kind::Bool),
    ("enable-benchmarks-ops-sub", Kind::Bool),
    ("enable-benchmarks-read", Kind::Bool),
    ("enable-benchmarks-udf", Kind::Bool),
    ("enable-benchmarks-udf-sub", Kind::Bool),
    ("enable-benchmarks-write", Kind::Bool),
    ("enable-hist-proxy", Kind::Bool),
    ("evict-hist-buckets", Kind::Int(100, 10_000_000)),
    ("evict-indexes-memory-pct", PCT),
    ("evict-tenths-pct", U32),
    ("force-long-queries", Kind::Bool),
    ("ignore-migrate-fill-delay", Kind::Enterprise(&Kind::Bool)),
    ("indexes-memory-budget", Kind::Refused),
    ("inline-short-queries", Kind::Bool),
    ("max-record-size", Kind::Refused),
    ("migrate-order", Kind::Int(1, 10)),
    ("migrate-retransmit-ms", U32),
    ("migrate-skip-unreadable", Kind::Bool),
    ("migrate-sleep", U32),
    ("mrt-duration", Kind::Refused),
    ("nsup-hist-period", U32),
    ("nsup-period", Kind::Refused),
    ("nsup-threads", Kind::Int(1, 128)),
    ("prefer-uniform-balance", Kind::Enterprise(&Kind::Bool)),
    ("rack-id", Kind::Refused),
    ("read-consistency-level-override", Kind::Refused),
    ("reject-non-xdr-writes", Kind::Refused),
    ("reject-xdr-writes", Kind::Bool),
    ("replication-factor", Kind::Refused),
    ("single-query-threads", Kind::Int(1, 128)),
    ("stop-writes-sys-memory-pct", PCT),
    (
        "strong-consistency-allow-expunge",
        Kind::Enterprise(&Kind::Bool),
    ),
    ("tomb-raider-eligible-age", U32),
    ("tomb-raider-period", U32),
    ("tomb-raider-unmark-threads", Kind::Int(1, 128)),
    ("transaction-pending-limit", U32),
    ("truncate-threads", Kind::Int(1, 128)),
    ("write-commit-level-override", Kind::Refused),
    ("xdr-bin-tombstone-ttl", Kind::Enterprise(&Kind::Seconds)),
    ("xdr-tomb-raider-period", Kind::Enterprise(&Kind::Seconds)),
    (
        "xdr-tomb-raider-threads",
        Kind::Enterprise(&Kind::Int(1, 128)),
    ),
    ("index-type.evict-mounts-pct", Kind::Refused),
    ("index-type.mounts-budget", Kind::Refused),
    ("sindex-type.evict-mounts-pct", Kind::Refused),
    ("sindex-type.mounts-budget", Kind::Refused),
    ("cache-replica-writes", Kind::Refused),
    ("compression", Kind::Refused),
    ("compression-acceleration", Kind::Refused),
    ("compression-level", Kind::Refused),
    ("defrag-lwm-pct", Kind::Int(1, 99)),
    ("defrag-queue-min", U32),
    ("defrag-sleep", U32),
    ("enable-benchmarks-storage", Kind::Bool),
    ("evict-used-pct", Kind::Refused),
    ("flush-max-ms", U32),
    ("flush-size", Kind::Refused),
    ("max-write-cache", Kind::Refused),
    ("post-write-cache", Kind::Refused),
    ("read-page-cache", Kind::Refused),
    ("stop-writes-avail-pct", Kind::Refused),
    ("stop-writes-used-pct", Kind::Refused),
    ("tomb-raider-sleep", U32),
    ("geo2dsphere-within-max-cells", Kind::Refused),
    ("geo2dsphere-within-max-level", Kind::Refused),
    ("geo2dsphere-within-min-level", Kind::Refused),
];

/// Dynamic set parameters (`set-config:context=namespace;id=<ns>;set=<set>;...`).
const SET_PARAMS: &[(&str, Kind)] = &[
    ("default-read-touch-ttl-pct", Kind::Refused),
    ("default-ttl", Kind::Refused),
    ("disable-eviction", Kind::Bool),
    ("enable-index", Kind::Bool),
    ("stop-writes-count", Kind::Refused),
    ("stop-writes-size", Kind::Refused),
];

/// Names `get-config` shows a namespace setting under, where the storage engine's differ.
fn shown_name(name: &'static str) -> &'static str {
    match name {
        "defrag-lwm-pct" => "storage-engine.defrag-lwm-pct",
        "defrag-queue-min" => "storage-engine.defrag-queue-min",
        "defrag-sleep" => "storage-engine.defrag-sleep",
        "enable-benchmarks-storage" => "storage-engine.enable-benchmarks-storage",
        "flush-max-ms" => "storage-engine.flush-max-ms",
        "tomb-raider-sleep" => "storage-engine.tomb-raider-sleep",
        other => other,
    }
}

/// A duration as a node's `cf_str_atoi_seconds` reads it.
fn seconds(v: &str) -> Option<i64> {
    let (digits, unit) = match v.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&v[..i], Some(c)),
        _ => (v, None),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = digits.parse().ok()?;
    let scale = match unit {
        None | Some('s' | 'S') => 1,
        Some('m' | 'M') => 60,
        Some('h' | 'H') => 3600,
        Some('d' | 'D') => 86_400,
        Some(_) => return None,
    };
    n.checked_mul(scale).filter(|s| *s <= i64::from(u32::MAX))
}

/// The value a parameter takes, as `get-config` shows it; `None` when refused.
fn check(kind: Kind, value: &str, enterprise: bool) -> Option<String> {
    match kind {
        Kind::Bool => matches!(value, "true" | "false").then(|| value.to_string()),
        Kind::Int(min, max) => atoi(value)
            .filter(|v| (min..=max).contains(v))
            .map(|v| v.to_string()),
        Kind::Seconds => seconds(value).map(|v| v.to_string()),
        Kind::Word(words) => words.contains(&value).then(|| value.to_string()),
        Kind::Name => (1..=CLUSTER_NAME_MAX)
            .contains(&value.len())
            .then(|| value.to_string()),
        Kind::Enterprise(inner) => {
            if enterprise {
                check(*inner, value, enterprise)
            } else {
                None
            }
        }
        Kind::Refused => None,
    }
}

/// The first parameter of `table` the command sets (a real node looks for them in order),
/// checked: its name and value.
fn pick(
    ps: &[(&str, &str)],
    table: &[(&'static str, Kind)],
    enterprise: bool,
) -> Option<(&'static str, String)> {
    let (name, kind) = table.iter().find(|(n, _)| param(ps, &[n]).is_some())?;
    let value = param(ps, &[name])?;
    check(*kind, value, enterprise).map(|v| (*name, v))
}

/// `set-config:context=<context>;<name>=<value>`: one dynamic parameter, `ok` when taken.
pub fn set(shared: &Shared, args: &str) -> Result<String, String> {
    let ps = params(args);
    let invalid = || error(PARAMETER, "invalid set-config parameter");
    let enterprise = shared.edition == crate::Edition::Enterprise;
    let context = required(&ps, &["context"])?;
    let (scope, name, value) = match context {
        "service" => {
            let (name, value) = pick(&ps, SERVICE, enterprise).ok_or_else(invalid)?;
            if name == "microsecond-histograms" && benchmarks_on(shared) {
                return Err(invalid());
            }
            ("service".to_string(), name, value)
        }
        "network" => {
            let (name, value) = pick(&ps, NETWORK, enterprise).ok_or_else(invalid)?;
            ("network".to_string(), name, value)
        }
        "namespace" => {
            let ns = super::local_namespace(shared, &ps, &["namespace", "id"])?;
            if let Some(set) = param(&ps, &["set"]) {
                if set.is_empty() || set.len() > 63 {
                    return Err(invalid());
                }
                let (name, value) = pick(&ps, SET_PARAMS, enterprise).ok_or_else(invalid)?;
                // As a real node, a set configured is a set of the namespace.
                ns.set_id(set.as_bytes()).ok_or_else(invalid)?;
                (format!("set:{}:{set}", ns.name), name, value)
            } else {
                let (name, value) = pick(&ps, NAMESPACE_PARAMS, enterprise).ok_or_else(invalid)?;
                (format!("namespace:{}", ns.name), shown_name(name), value)
            }
        }
        "security" | "xdr" if !enterprise => {
            return Err(error(ENTERPRISE_ONLY, "enterprise only"));
        }
        "security" => return Err(invalid()),
        "xdr" => return Err(error(PARAMETER, "invalid state or set-config parameter")),
        _ => return Err(error(PARAMETER, "invalid context")),
    };
    with(shared, |s| {
        if name == "cluster-name" {
            s.cluster_name = Some(value.clone());
        }
        s.changed.entry(scope).or_default().insert(name, value);
    });
    Ok("ok".into())
}

/// Whether a namespace's benchmarks are on (`microsecond-histograms` cannot change then).
fn benchmarks_on(shared: &Shared) -> bool {
    with(shared, |s| {
        s.changed.iter().any(|(scope, values)| {
            scope.starts_with("namespace:")
                && values
                    .iter()
                    .any(|(k, v)| k.contains("enable-benchmarks") && v == "true")
        }) || s
            .changed
            .get("service")
            .and_then(|v| v.get("enable-benchmarks-fabric"))
            .is_some_and(|v| v == "true")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_by_kind() {
        assert_eq!(check(Kind::Bool, "true", false), Some("true".into()));
        assert_eq!(check(Kind::Bool, "yes", false), None);
        assert_eq!(check(Kind::Int(1, 10), "10", false), Some("10".into()));
        assert_eq!(check(Kind::Int(1, 10), "11", false), None);
        assert_eq!(check(Kind::Seconds, "2m", true), Some("120".into()));
        assert_eq!(check(Kind::Enterprise(&Kind::Bool), "true", false), None);
        assert_eq!(check(Kind::Refused, "1", true), None);
    }

    #[test]
    fn the_first_parameter_in_a_nodes_order_decides() {
        let ps = params("context=service;ticker-interval=5;advertise-ipv6=maybe");
        assert_eq!(pick(&ps, SERVICE, false), None);
        let ps = params("context=service;ticker-interval=5");
        assert_eq!(
            pick(&ps, SERVICE, false),
            Some(("ticker-interval", "5".into()))
        );
    }
}
