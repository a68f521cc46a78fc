//! `set-config`: the dynamic parameters a node takes, each checked as a real node checks it
//! and remembered for `get-config`.

use super::{with, CLUSTER_NAME_MAX};
use crate::info::{
    atoi, error, local_namespace, param, params, required, ENTERPRISE_ONLY, PARAMETER,
};
use crate::Shared;

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
            let ns = local_namespace(shared, &ps, &["namespace", "id"])?;
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
