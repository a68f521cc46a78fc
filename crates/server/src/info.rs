//! Info protocol: `name\n...` requests answered with `name\tvalue\n` lines.

use std::fmt::Write as _;

use base64::Engine as _;

mod peers;
mod sindex;

use crate::store::N_PARTITIONS;
use crate::wire::{begin_frame, end_frame, PROTO_INFO};
use crate::Shared;

/// Version reported by `build` (the clients gate features on it).
pub const BUILD: &str = "8.1.2.0";
const FEATURES: &str = "batch-any;batch-index;blob-bits;cdt-list;cdt-map;cluster-stable;float;geo;\
lut-now;partition-query;peers;pipelining;pquery;pscans;query-show;relaxed-sc;replicas;replicas-max;\
sindex-exists;truncate-namespace;udf";

/// Answers one info request body into `out` as a complete proto frame.
/// Info commands that change the server: refused on a connection that has not logged in when
/// the server has users.
const PRIVILEGED: &[&str] = &[
    "truncate",
    "truncate-namespace",
    "truncate-undo",
    "sindex-create",
    "sindex-delete",
    "udf-put",
    "udf-remove",
    "set-config",
    "log-message",
];

/// The reply to a privileged command on a connection that has not logged in.
const NOT_AUTHENTICATED: &str = "ERROR:80:not authenticated";
/// Longest info reply: the names after it are left unanswered, the first of them with
/// [`TOO_LARGE`].
const MAX_REPLY: usize = 8 * 1024 * 1024;
const TOO_LARGE: &str = "ERROR:4:reply too large";

pub fn handle(body: &[u8], shared: &Shared, authed: bool, out: &mut Vec<u8>) {
    let at = begin_frame(out);
    let text = String::from_utf8_lossy(body);
    let mut names = text
        .split('\n')
        .map(str::trim_end)
        .filter(|n| !n.is_empty())
        .peekable();
    let mut reply = String::new();
    if names.peek().is_none() {
        for name in [
            "node",
            "build",
            "edition",
            "version",
            "features",
            "partition-generation",
            "namespaces",
        ] {
            let _ = writeln!(reply, "{name}\t{}", answer(name, shared));
        }
    }
    for name in names {
        if reply.len() > MAX_REPLY {
            let _ = writeln!(reply, "{name}\t{TOO_LARGE}");
            break;
        }
        let cmd = name.split_once(':').map_or(name, |(cmd, _)| cmd);
        if !authed && PRIVILEGED.contains(&cmd) {
            let _ = writeln!(reply, "{name}\t{NOT_AUTHENTICATED}");
        } else {
            let _ = writeln!(reply, "{name}\t{}", answer(name, shared));
        }
    }
    out.extend_from_slice(reply.as_bytes());
    end_frame(out, at, PROTO_INFO);
}

/// `k=v;k=v` parameters of a command.
fn params(args: &str) -> Vec<(&str, &str)> {
    args.split(';')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect()
}

fn param<'a>(ps: &[(&str, &'a str)], names: &[&str]) -> Option<&'a str> {
    ps.iter().find(|(k, _)| names.contains(k)).map(|(_, v)| *v)
}

/// The value for one info name.
fn answer(name: &str, shared: &Shared) -> String {
    let (cmd, args) = name.split_once(':').unwrap_or((name, ""));
    let port = shared.port();
    match cmd {
        "node" => shared.node_name(),
        "cluster-name" => "null".into(),
        "build" => BUILD.into(),
        "edition" => format!("Aerospike {} Edition", edition(shared)),
        "version" => format!("Aerospike {} Edition build {BUILD}", edition(shared)),
        "build_os" => "linux".into(),
        "features" => FEATURES.into(),
        "partition-generation"
        | "peers-generation"
        | "rebalance-generation"
        | "cluster-generation" => shared.view().generation.to_string(),
        "cluster-size" => shared.view().members.len().to_string(),
        "partitions" => N_PARTITIONS.to_string(),
        "cluster-stable" | "cluster-key" => cluster_key(shared),
        "peers-clear-std" | "peers-tls-std" => peers::list(shared, cmd == "peers-tls-std"),
        "peers-clear-alt" | "peers-tls-alt" | "alumni-clear-std" | "alumni-tls-std" => {
            format!("{},{port},[]", shared.view().generation)
        }
        "service" => format!("{}:{port}", shared.host()),
        "services" => peers::services(shared),
        "service-clear-std" if !shared.tls_on() => format!("{}:{port}", shared.host()),
        "service-tls-std" if shared.tls_on() => format!("{}:{port}", shared.host()),
        "service-clear-std" | "service-clear-alt" | "service-tls-std" | "service-tls-alt"
        | "services-alumni" | "services-alternate" => String::new(),
        "replicas" => replicas(shared, true),
        "replicas-master" | "replicas-all" | "replicas-prole" => replicas(shared, false),
        "racks" => peers::racks(shared),
        "rack-ids" => shared
            .store
            .namespaces
            .iter()
            .map(|n| format!("{}:{}", n.name, shared.rack_id()))
            .collect::<Vec<_>>()
            .join(";"),
        "namespaces" => shared
            .store
            .namespaces
            .iter()
            .map(|n| n.name.as_str())
            .collect::<Vec<_>>()
            .join(";"),
        "user-agent-set" | "log-message" | "truncate-undo" => "ok".into(),
        // One sink, the console, as a node started in the foreground has.
        "logs" => "0:stderr".into(),
        "statistics" => statistics(shared),
        "get-config" => get_config(shared, args),
        "truncate" | "truncate-namespace" => truncate(shared, args),
        "sindex-create" => sindex::create(shared, args),
        "sindex-delete" => sindex::delete(shared, args),
        "sindex-list" | "sindex" => sindex::list(shared, args),
        "sindex-exists" => sindex::exists(shared, args),
        "sindex-stat" => sindex::stat(shared, args),
        "udf-list" => udf_list(shared),
        "udf-put" => udf_put(shared, args),
        "udf-get" => udf_get(shared, args),
        "udf-remove" => udf_remove(shared, args),
        "query-show" | "scan-show" | "jobs" => job_show(shared, args),
        _ => slash_command(name, shared).unwrap_or_else(|| "ERROR:4:unrecognized command".into()),
    }
}

/// Commands of the form `namespace/<ns>`, `sets/<ns>/<set>`, `sindex/<ns>/<name>`, `bins/<ns>`.
fn slash_command(name: &str, shared: &Shared) -> Option<String> {
    let mut parts = name.split('/');
    let head = parts.next()?;
    let ns = parts.next();
    let rest = parts.next();
    match (head, ns) {
        ("namespace", Some(ns)) => Some(match shared.store.namespace(ns.as_bytes()) {
            Some(n) => namespace_stats(shared, n),
            None => "type=unknown".into(), // as a real server
        }),
        ("sets", ns) => Some(sets(shared, ns, rest)),
        ("sindex", Some(ns)) => Some(match rest {
            // As a real server.
            Some(_) if shared.store.namespace(ns.as_bytes()).is_none() => "ns_type=unknown".into(),
            Some(idx) => sindex::stat(shared, &format!("namespace={ns};indexname={idx}")),
            None => sindex::list(shared, &format!("ns={ns}")),
        }),
        ("bins", _) => Some("bin_names=0,bin_names_quota=65535".into()),
        _ => None,
    }
}

fn edition(shared: &Shared) -> &'static str {
    match shared.edition {
        crate::Edition::Community => "Community",
        crate::Edition::Enterprise => "Enterprise",
    }
}

/// Changes with the membership, as a real cluster key does.
fn cluster_key(shared: &Shared) -> String {
    format!("{:012X}", 0x1A2B_3C4D_5E6F_u64 ^ shared.view().generation)
}

/// `replicas`: per namespace this node's partitions for each copy index (master first);
/// `replicas-master` and the like: the master bitmap only.
fn replicas(shared: &Shared, with_regime: bool) -> String {
    let view = shared.view();
    let me = shared.member().map_or(0, |m| m.slot());
    let maps: Vec<String> = view
        .bitmaps(me)
        .iter()
        .map(|m| base64::engine::general_purpose::STANDARD.encode(m))
        .collect();
    shared
        .store
        .namespaces
        .iter()
        .map(|n| {
            if with_regime {
                // A strong-consistency namespace has a rebalance regime (clients read SC
                // mode from it being non-zero).
                let regime = u8::from(n.strong_consistency);
                format!("{}:{regime},{},{}", n.name, maps.len(), maps.join(","))
            } else {
                format!("{}:{}", n.name, maps[0])
            }
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn namespace_stats(shared: &Shared, ns: &crate::store::Namespace) -> String {
    let objects = ns.record_count();
    let view = shared.view();
    let masters = peers::master_objects(shared, ns);
    format!(
        "objects={objects};tombstones=0;master_objects={masters};prole_objects={};\
ns_cluster_size={};effective_replication_factor={};replication-factor={};default-ttl=0;\
max-ttl=315360000;nsup-period=1;allow-ttl-without-nsup=true;{};\
storage-engine=memory;stop_writes=false;hwm_breached=false;evict-tenths-pct=5;data_used_bytes=0;\
index_used_bytes={}",
        objects - masters,
        view.members.len(),
        view.copies,
        view.copies,
        consistency(ns),
        objects * 64
    )
}

/// The strong-consistency settings of a namespace, as a real node lists them.
fn consistency(ns: &crate::store::Namespace) -> String {
    let sc = ns.strong_consistency;
    let duration = if sc { crate::txn::DEFAULT_DURATION } else { 0 };
    format!(
        "strong-consistency={sc};strong-consistency-allow-expunge=false;\
disable-mrt-writes=false;mrt-duration={duration}"
    )
}

/// `get-config`: a namespace's configuration (`context=namespace;id=NS`), else the service's.
fn get_config(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    if param(&ps, &["context"]) != Some("namespace") {
        return "migrate-threads=1;proto-fd-max=15000;service-threads=2".into();
    }
    let Some(name) = param(&ps, &["id", "namespace"]) else {
        return "ERROR::missing namespace id".into();
    };
    let Some(ns) = shared.store.namespace(name.as_bytes()) else {
        return format!("ERROR::namespace {name} not found");
    };
    format!(
        "replication-factor={};{};default-ttl=0;max-ttl=315360000;nsup-period=1;\
allow-ttl-without-nsup=true;storage-engine=memory",
        shared.view().copies,
        consistency(ns)
    )
}

fn statistics(shared: &Shared) -> String {
    let s = shared.stats.snapshot(shared.store.record_count());
    let get = |k: &str| s.iter().find(|(n, _)| *n == k).map_or(0, |(_, v)| *v);
    format!(
        "cluster_size={};cluster_key={};cluster_integrity=true;objects={};client_connections={};\
client_connections_opened={};uptime={}",
        shared.view().members.len(),
        cluster_key(shared),
        get("records"),
        get("connections_open"),
        get("connections_total"),
        shared.started.elapsed().as_secs()
    )
}

fn sets(shared: &Shared, ns: Option<&str>, only: Option<&str>) -> String {
    let mut out = String::new();
    for n in &shared.store.namespaces {
        if ns.is_some_and(|ns| ns != n.name) {
            continue;
        }
        let mut counts = std::collections::HashMap::<u16, u64>::new();
        n.for_each_record(|r| *counts.entry(r.set_id).or_default() += 1);
        for (id, set) in n.sets() {
            if only.is_some_and(|o| o != set) {
                continue;
            }
            let objects = counts.get(&id).copied().unwrap_or(0);
            let _ = write!(
                out,
                "ns={}:set={set}:objects={objects}:tombstones=0:data_used_bytes=0:truncate_lut=0:sindexes=0:index_populating=false;",
                n.name
            );
        }
    }
    out
}

/// A `lut` (Unix nanoseconds) in milliseconds, read as a real server does: its leading digits,
/// none being 0 and too many the largest value.
fn lut_ms(v: &str) -> u64 {
    let digits = &v[..v.bytes().take_while(u8::is_ascii_digit).count()];
    let nanos = if digits.is_empty() {
        0
    } else {
        digits.parse::<u64>().unwrap_or(u64::MAX)
    };
    nanos / 1_000_000
}

/// `truncate:namespace=..;set=..;lut=..` and `truncate-namespace:namespace=..;lut=..`.
fn truncate(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    if param(&ps, &["set"]) == Some("") {
        return "ERROR:4:missing 'set' value".into();
    }
    let Some(ns_name) = param(&ps, &["namespace", "ns"]).filter(|n| !n.is_empty()) else {
        return "ERROR:20:missing 'namespace'".into();
    };
    // As a real server: a namespace it does not have has nothing to truncate.
    let Some(ns) = shared.store.namespace(ns_name.as_bytes()) else {
        return "ok".into();
    };
    // As a real server: records last updated strictly before the cut-off (milliseconds) go,
    // so without one those written in the current millisecond stay; a cut-off of 0 or in the
    // future is refused.
    let now = crate::clock::now_ms();
    let before_ms = match param(&ps, &["lut"]) {
        Some("") => return "ERROR:4:missing 'lut' value".into(),
        Some(v) => match lut_ms(v) {
            ms if ms <= crate::clock::CITRUSLEAF_EPOCH * 1000 => {
                return "ERROR:4:would truncate to 0".into()
            }
            ms if ms > now => return "ERROR:4:would truncate in the future".into(),
            ms => ms,
        },
        None => now,
    };
    let set = param(&ps, &["set"]);
    let ns_name = ns.name.clone();
    crate::cluster::each_member(shared, |node| {
        let Some(ns) = node.store.namespace(ns_name.as_bytes()) else {
            return;
        };
        let set = match set {
            Some(s) => match ns.find_set(s.as_bytes()) {
                Some(id) => Some(id),
                None => return,
            },
            None => None,
        };
        ns.remove_where(|r| set.is_none_or(|id| r.set_id == id) && r.last_update_ms < before_ms);
    });
    "ok".into()
}

fn udf_list(shared: &Shared) -> String {
    shared
        .udfs
        .list()
        .into_iter()
        .map(|(name, hash)| format!("filename={name},hash={hash},type=LUA;"))
        .collect()
}

fn udf_put(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    let (Some(file), Some(content)) = (param(&ps, &["filename"]), param(&ps, &["content"])) else {
        return "error=invalid_filename_or_content".into();
    };
    let Ok(code) = base64::engine::general_purpose::STANDARD.decode(content) else {
        return "error=invalid_base64_content".into();
    };
    match shared.udfs.register(file, &code) {
        Ok(()) => "ok".into(),
        Err(msg) => {
            let msg = base64::engine::general_purpose::STANDARD.encode(msg.as_bytes());
            format!("error=compile_error;file={file};line=0;message={msg}")
        }
    }
}

fn udf_get(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    match param(&ps, &["filename"]).and_then(|f| shared.udfs.get(f)) {
        // As a real server, the content ends with a `;` (clients read up to it).
        Some(code) => format!(
            "type=LUA;content={};",
            base64::engine::general_purpose::STANDARD.encode(code)
        ),
        None => "error=not_found".into(),
    }
}

fn udf_remove(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    let file = param(&ps, &["filename"]).unwrap_or("");
    // Removing a module that is not there is not an error (as a real server).
    shared.udfs.remove(file);
    "ok".into()
}

/// `query-show:id=N` (or `trid=`): background jobs run to completion before their reply,
/// reported with a real server's field names.
fn job_show(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    let id = param(&ps, &["id", "trid"]).and_then(|v| v.parse::<u64>().ok());
    match id.and_then(|id| Some((id, shared.job(id)?))) {
        Some((id, (ok, failed))) => format!(
            "trid={id}:status=done(ok):job-progress=100.00:recs-succeeded={ok}:\
recs-failed={failed}"
        ),
        None => "ERROR:2:job not found".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_split() {
        let ps = params("namespace=test;set=a;lut=5");
        assert_eq!(param(&ps, &["ns", "namespace"]), Some("test"));
        assert_eq!(param(&ps, &["lut"]), Some("5"));
        assert_eq!(param(&ps, &["x"]), None);
    }

    #[test]
    fn replicas_bitmap_is_684_chars() {
        let b = base64::engine::general_purpose::STANDARD.encode([0xFFu8; N_PARTITIONS / 8]);
        assert_eq!(b.len(), 684);
    }
}
