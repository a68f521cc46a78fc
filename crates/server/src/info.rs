//! Info protocol: `name\n...` requests answered with `name\tvalue\n` lines.
//!
//! The commands are those of an Aerospike 8.1.2 node ([`SPECS`]), each parsed, guarded and
//! answered as that node does: a name it does not know gets `ERROR:4:unrecognized command`, an
//! Enterprise-only command on a Community node `ERROR:25:enterprise only`, and the answers
//! keep the node's formats with values of this server.

use std::fmt::Write as _;

use base64::Engine as _;

mod config;
mod namespace;
mod node;
mod peers;
mod sindex;

pub use config::cluster_name_is_valid;

use crate::security::{self, Caller, Grants};
use crate::store::N_PARTITIONS;
use crate::wire::{begin_frame, end_frame, PROTO_INFO};
use crate::Shared;

/// Whether the console log sink writes lines of `context` at `level` (0 = CRITICAL, 1 =
/// WARNING, ... as `log-set` names them).
pub fn log_enabled(shared: &Shared, context: &str, level: u8) -> bool {
    node::LOG_CONTEXTS
        .iter()
        .position(|c| *c == context)
        .and_then(|i| config::log_levels(shared).get(i).copied())
        .is_some_and(|at| level <= at)
}

/// Version reported by `build` (the clients gate features on it).
pub const BUILD: &str = "8.1.2.0";

/// Result codes an info reply carries.
const UNKNOWN: u8 = 1;
const NOT_FOUND: u8 = 2;
const PARAMETER: u8 = 4;
const CLUSTER_KEY_MISMATCH: u8 = 7;
const NAMESPACE: u8 = 20;
const ENTERPRISE_ONLY: u8 = 25;

/// An error reply as a node writes it: `ERROR:<code>:<message>`, the code left out for
/// [`UNKNOWN`].
fn error(code: u8, message: impl std::fmt::Display) -> String {
    if code == UNKNOWN {
        format!("ERROR::{message}")
    } else {
        format!("ERROR:{code}:{message}")
    }
}

/// Sent only by clients: left out of `help`.
const CLIENT: u8 = 1;
/// Enterprise only: refused by a Community node.
const EE: u8 = 2;
/// Needs a permission: refused on a connection that has not logged in when the server has
/// users.
const PRIV: u8 = 4;

/// A real node's commands, flagged: first those of the summary (an empty request) in its
/// order, then the others sorted, as its table has them.
const SPECS: &[(&str, u8)] = &[
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
const EMBEDDED_ONLY: &[&str] = &["cluster-size"];

/// A name a real node takes at most (its table's key size, less the terminating NUL).
const MAX_NAME: usize = 31;

/// The reply to a privileged command on a connection that has not logged in.
const NOT_AUTHENTICATED: &str = "ERROR:80:not authenticated";
/// The reply to a privileged command the caller's roles do not allow.
const ROLE_VIOLATION: &str = "ERROR:81:role violation";
/// Longest info reply: the names after it are left unanswered, the first of them with
/// [`TOO_LARGE`].
const MAX_REPLY: usize = 8 * 1024 * 1024;
const TOO_LARGE: &str = "ERROR:4:reply too large";

/// Answers one info request body into `out` as a complete proto frame.
pub fn handle(body: &[u8], shared: &Shared, caller: &Caller, out: &mut Vec<u8>) {
    let at = begin_frame(out);
    let text = String::from_utf8_lossy(body);
    let mut names = text
        .split('\n')
        .map(str::trim_end)
        .filter(|n| !n.is_empty())
        .peekable();
    let mut reply = String::new();
    if names.peek().is_none() {
        // As a real node, an empty request gets the summary.
        for (name, _) in SPECS.iter().take_while(|(n, _)| *n != "admin-clear-std") {
            let _ = writeln!(reply, "{name}\t{}", answer(name, "", shared));
        }
    }
    for name in names {
        if reply.len() > MAX_REPLY {
            let _ = writeln!(reply, "{name}\t{TOO_LARGE}");
            break;
        }
        let _ = writeln!(reply, "{name}\t{}", run(name, shared, caller));
    }
    out.extend_from_slice(reply.as_bytes());
    end_frame(out, at, PROTO_INFO);
}

/// One command: found, guarded and answered in a real node's order.
fn run(text: &str, shared: &Shared, caller: &Caller) -> String {
    let (cmd, args) = parse(text);
    if EMBEDDED_ONLY.contains(&cmd) {
        return answer(cmd, args, shared);
    }
    let Some(&(name, flags)) = SPECS
        .iter()
        .find(|(n, _)| *n == cmd && cmd.len() <= MAX_NAME)
    else {
        return unrecognized();
    };
    if flags & EE != 0 && !enterprise_here(shared, name) {
        return error(ENTERPRISE_ONLY, "enterprise only");
    }
    if flags & PRIV != 0 && !caller.authed {
        return NOT_AUTHENTICATED.into();
    }
    let (perm, ns, set) = security::info_perm(name, args);
    if flags & PRIV != 0
        && Grants::of(shared, caller)
            .refusal(perm, ns.as_bytes(), set.as_bytes())
            .is_some()
    {
        return ROLE_VIOLATION.into();
    }
    answer(name, args, shared)
}

fn unrecognized() -> String {
    error(PARAMETER, "unrecognized command")
}

/// Whether an Enterprise-only command is served: on an Enterprise node, and for the TLS
/// lists on any node serving TLS (a node that serves TLS lists its TLS peers).
fn enterprise_here(shared: &Shared, name: &str) -> bool {
    shared.edition == crate::Edition::Enterprise || (shared.tls_on() && name.contains("-tls-"))
}

/// Splits `cmd-name/arg/...:key=value;...` as a real node does: the name ends at the first
/// `/` (unless a `:` comes before it), else at the first `:`, else at a `;`.
fn parse(text: &str) -> (&str, &str) {
    let slash = text.find('/');
    let colon = text.find(':');
    let semi = text.find(';');
    let mut at = match (slash, colon) {
        (Some(s), Some(c)) if c < s => Some(c),
        (Some(s), _) => Some(s),
        (None, c) => c,
    };
    if at.is_none() || semi.is_some_and(|s| at.is_some_and(|a| s < a)) {
        at = semi.or(at);
    }
    match at {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    }
}

/// `k=v;k=v` parameters of a command: as a real node reads them, a part without `=` is no
/// parameter.
fn params(args: &str) -> Vec<(&str, &str)> {
    args.split(';').filter_map(|p| p.split_once('=')).collect()
}

fn param<'a>(ps: &[(&str, &'a str)], names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|name| ps.iter().find(|(k, _)| k == name).map(|(_, v)| *v))
}

/// A parameter a command needs: its value, or the reply refusing it missing or empty (the
/// namespace's with code 20, as a real node).
fn required<'a>(ps: &[(&str, &'a str)], names: &[&str]) -> Result<&'a str, String> {
    let shown = names[0];
    let code = if shown == "namespace" {
        NAMESPACE
    } else {
        PARAMETER
    };
    match param(ps, names) {
        None => Err(error(code, format_args!("missing '{shown}'"))),
        Some("") => Err(error(code, format_args!("missing '{shown}' value"))),
        Some(v) => Ok(v),
    }
}

/// A parameter a command may take: `None` when absent, refused when empty.
fn optional<'a>(ps: &[(&str, &'a str)], name: &str) -> Result<Option<&'a str>, String> {
    match param(ps, &[name]) {
        Some("") => {
            let code = if name == "namespace" {
                NAMESPACE
            } else {
                PARAMETER
            };
            Err(error(code, format_args!("missing '{name}' value")))
        }
        v => Ok(v),
    }
}

/// A `true`/`false` parameter, `false` when absent; else the reply refusing it.
fn flag(ps: &[(&str, &str)], name: &str, refusal: &str) -> Result<bool, String> {
    match optional(ps, name)? {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(error(PARAMETER, refusal)),
    }
}

/// The namespace a command names (`namespace=`, or the given aliases), which must be served.
fn local_namespace<'s>(
    shared: &'s Shared,
    ps: &[(&str, &str)],
    names: &[&str],
) -> Result<&'s crate::store::Namespace, String> {
    let name = required(ps, names)?;
    shared
        .store
        .namespace(name.as_bytes())
        .ok_or_else(|| error(NAMESPACE, "namespace not found on node"))
}

/// The namespace a command may name (`namespace=`): `None` when absent.
fn optional_namespace<'s>(
    shared: &'s Shared,
    ps: &[(&str, &str)],
) -> Result<Option<&'s crate::store::Namespace>, String> {
    match optional(ps, "namespace")? {
        None => Ok(None),
        Some(name) => shared
            .store
            .namespace(name.as_bytes())
            .map(Some)
            .ok_or_else(|| error(NAMESPACE, "namespace not found on node")),
    }
}

/// `one` of the namespace asked for, or `ns=NAME:` and `one` of each namespace, `;`-separated.
fn each_namespace(
    shared: &Shared,
    only: Option<&crate::store::Namespace>,
    one: impl Fn(&crate::store::Namespace) -> String,
) -> String {
    match only {
        Some(ns) => one(ns),
        None => shared
            .store
            .namespaces
            .iter()
            .map(|ns| format!("ns={}:{}", ns.name, one(ns)))
            .collect::<Vec<_>>()
            .join(";"),
    }
}

fn reply(result: Result<String, String>) -> String {
    result.unwrap_or_else(|refused| refused)
}

/// The value for one command of [`SPECS`] (or [`EMBEDDED_ONLY`]) with its arguments.
fn answer(cmd: &str, args: &str, shared: &Shared) -> String {
    let port = shared.port();
    match cmd {
        "node" | "name" => shared.node_name(),
        "cluster-name" => config::cluster_name(shared),
        "compatibility-id" => node::COMPATIBILITY_ID.to_string(),
        "build" => BUILD.into(),
        "edition" => node::edition(shared).into(),
        "version" => format!("{} build {BUILD}", node::edition(shared)),
        "build_os" => node::BUILD_OS.into(),
        "build_arch" => std::env::consts::ARCH.into(),
        "build_sha" => node::BUILD_SHA.into(),
        "build_ee_sha" => String::new(),
        "build_time" => node::BUILD_TIME.into(),
        "release" => node::release(shared),
        "features" => node::features(shared),
        "digests" => "RIPEMD160".into(),
        "partitions" => N_PARTITIONS.to_string(),
        "partition-generation" | "rebalance-generation" => shared.view().generation.to_string(),
        "peers-generation" => shared.view().generation.to_string(),
        "cluster-size" => shared.view().members.len().to_string(),
        "cluster-stable" => reply(node::cluster_stable(shared, args)),
        "get-sl" => node::succession(shared),
        "recluster" => node::recluster(shared),
        "peers-clear-std" | "peers-tls-std" | "peers-clear-alt" | "peers-tls-alt"
        | "alumni-clear-std" | "alumni-tls-std" | "alumni-clear-alt" | "alumni-tls-alt" => {
            peers::list(shared, cmd, args)
        }
        "service" => format!("{}:{port}", shared.host()),
        "services" | "services-alumni" => peers::services(shared),
        "service-clear-std" if !shared.tls_on() => peers::address(shared.host(), port),
        "service-tls-std" if shared.tls_on() => peers::address(shared.host(), port),
        "service-clear-std" | "service-clear-alt" | "service-tls-std" | "service-tls-alt"
        | "services-alternate" | "admin-clear-std" | "admin-tls-std" => String::new(),
        "services-alumni-reset"
        | "status"
        | "dump-rw"
        | "dump-skew"
        | "udf-clear-cache"
        | "quiesce"
        | "quiesce-undo" => "ok".into(),
        "dump-cluster" | "dump-fabric" | "dump-hb" | "dump-hlc" | "dump-migrates" => reply(
            flag(
                &params(args),
                "verbose",
                "'verbose' may be either 'true' or 'false'",
            )
            .map(|_| "ok".into()),
        ),
        "dump-wb-summary" => {
            reply(local_namespace(shared, &params(args), &["namespace", "ns"]).map(|_| "ok".into()))
        }
        "jem-stats" => reply(node::jem_stats(args)),
        "connection" => "admin=false".into(),
        "endpoints" => node::endpoints(shared),
        "best-practices" => "failed_best_practices=none".into(),
        // Health checks are off (`enable-health-check` false): nothing to report.
        "health-outliers" | "health-stats" => String::new(),
        "help" => help(shared),
        "replicas" => reply(replicas_cmd(shared, args)),
        "replicas-all" => replicas(shared, false, 0),
        "replicas-master" => replicas_master(shared),
        "racks" => reply(peers::racks(shared, args)),
        "rack-ids" => shared
            .store
            .namespaces
            .iter()
            .map(|n| format!("{}:{}", n.name, shared.rack_id()))
            .collect::<Vec<_>>()
            .join(";"),
        "roster" => reply(namespace::roster(shared, args)),
        "revive" => reply(optional_namespace(shared, &params(args)).map(|_| "ok".into())),
        "namespaces" => shared
            .store
            .namespaces
            .iter()
            .map(|n| n.name.as_str())
            .collect::<Vec<_>>()
            .join(";"),
        "namespace" => namespace::info(shared, args),
        "sets" => namespace::sets(shared, args),
        "objects" => shared.store.record_count().to_string(),
        "histogram" => reply(namespace::histogram(shared, args)),
        "eviction-reset" => reply(namespace::eviction_reset(args)),
        // Indexes are in memory, not in a page cache: nothing to report.
        "index-pressure" => String::new(),
        "physical-devices" => {
            reply(required(&params(args), &["path"]).map(|_| error(NOT_FOUND, "no device info")))
        }
        "user-agent-set" => reply(user_agent(args)),
        // The agents are counted per connection by a real node's reaper every second; this
        // server keeps no such count.
        "user-agents" => String::new(),
        "logs" => node::LOG_SINKS.into(),
        "log" => node::log_levels(shared, args),
        "log-set" | "set-log" => reply(node::log_set(shared, args)),
        "log-message" => reply(node::log_message(args)),
        "latencies" => reply(node::latencies(shared, args)),
        "statistics" => node::statistics(shared),
        "get-stats" => reply(get_stats(args)),
        "get-config" | "config-get" => config::get(shared, args),
        "set-config" | "config-set" => reply(config::set(shared, args)),
        "feature-key" => "null".into(),
        "masking-show" => String::new(),
        "tip" => reply(node::tip(args)),
        "tip-clear" => reply(node::tip_clear(args)),
        "truncate" => reply(namespace::truncate(shared, args, true)),
        "truncate-namespace" => reply(namespace::truncate(shared, args, false)),
        "truncate-undo" => reply(namespace::truncate_undo(args, true)),
        "truncate-namespace-undo" => reply(namespace::truncate_undo(args, false)),
        "sindex-create" => sindex::create(shared, args),
        "sindex-delete" => sindex::delete(shared, args),
        "sindex-list" => sindex::list(shared, args),
        "sindex" => sindex::legacy(shared, args),
        "sindex-exists" => sindex::exists(shared, args),
        "sindex-stat" => sindex::stat(shared, args),
        "udf-list" => udf_list(shared),
        "udf-put" => udf_put(shared, args),
        "udf-get" => udf_get(shared, args),
        "udf-remove" => udf_remove(shared, args),
        "query-show" => reply(job_show(shared, args)),
        "query-abort" => reply(job_id(args).and_then(|_| Err(error(NOT_FOUND, "id not active")))),
        // Background jobs run to completion before their reply: none is ever running.
        "query-abort-all" => "number-of-queries-killed:0".into(),
        // Served by a real node, not here: debug-record(-meta), masking, mcast, mesh,
        // partition-info, roster-set, smd-info, smd-show, thread-traces and the XDR commands.
        _ => unrecognized(),
    }
}

/// `help`: the commands a node lists, those only clients send left out, and on a Community
/// node the Enterprise ones.
fn help(shared: &Shared) -> String {
    let community = shared.edition == crate::Edition::Community;
    // In table order: the summary ones first, as a real node lists them.
    SPECS
        .iter()
        .filter(|(_, flags)| flags & CLIENT == 0 && !(community && flags & EE != 0))
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(";")
}

/// `get-stats:context=..`: statistics of a context; only XDR has any, and this node ships
/// to no datacenter.
fn get_stats(args: &str) -> Result<String, String> {
    match required(&params(args), &["context"])? {
        "xdr" => Ok(String::new()),
        _ => Err(error(PARAMETER, "unknown context")),
    }
}

/// `user-agent-set:value=<base64>`: a client names itself.
fn user_agent(args: &str) -> Result<String, String> {
    let value = required(&params(args), &["value"])?;
    base64::engine::general_purpose::STANDARD
        .decode(value)
        .map_err(|_| error(PARAMETER, "'value' invalid base64"))?;
    Ok("ok".into())
}

/// `replicas[:max=N]`.
fn replicas_cmd(shared: &Shared, args: &str) -> Result<String, String> {
    let max = match optional(&params(args), "max")? {
        None => 0,
        // As a real node: its buffer takes three characters.
        Some(v) if v.len() > 3 => return Err(error(PARAMETER, "'max' value too long")),
        Some(v) => v.parse::<u32>().map_err(|_| error(PARAMETER, "bad max"))?,
    };
    Ok(replicas(shared, true, max as usize))
}

/// `replicas`: per namespace (its regime with `with_regime`) the copy count and this node's
/// partitions for each copy index, master first; at most `max` copies when not 0.
fn replicas(shared: &Shared, with_regime: bool, max: usize) -> String {
    let maps = bitmaps(shared);
    let copies = if max == 0 {
        maps.len()
    } else {
        maps.len().min(max)
    };
    let maps = &maps[..copies];
    shared
        .store
        .namespaces
        .iter()
        .map(|n| {
            // A strong-consistency namespace has a rebalance regime (clients read SC mode from
            // it being non-zero).
            let regime = if with_regime {
                format!("{},", u8::from(n.strong_consistency))
            } else {
                String::new()
            };
            format!("{}:{regime}{},{}", n.name, maps.len(), maps.join(","))
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// `replicas-master`: per namespace the partitions this node masters.
fn replicas_master(shared: &Shared) -> String {
    let maps = bitmaps(shared);
    shared
        .store
        .namespaces
        .iter()
        .map(|n| format!("{}:{}", n.name, maps[0]))
        .collect::<Vec<_>>()
        .join(";")
}

/// This node's partitions for each copy index (base64 bitmaps), master first.
fn bitmaps(shared: &Shared) -> Vec<String> {
    let view = shared.view();
    let me = shared.member().map_or(0, |m| m.slot());
    view.bitmaps(me)
        .iter()
        .map(|m| base64::engine::general_purpose::STANDARD.encode(m))
        .collect()
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

/// The job id of `query-show` / `query-abort` (`id=`, or the older `trid=`): as a real node,
/// decimal, hex (`0x`) or octal (leading `0`), and not 0.
fn job_id(args: &str) -> Result<u64, String> {
    let ps = params(args);
    let text = param(&ps, &["id", "trid"]);
    let text = match text {
        None => return Err(error(PARAMETER, "missing 'id'")),
        Some("") => return Err(error(PARAMETER, "missing 'id' value")),
        Some(t) => t,
    };
    let parsed = if let Some(hex) = text.strip_prefix("0x").or(text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if text.len() > 1 && text.starts_with('0') {
        u64::from_str_radix(&text[1..], 8).ok()
    } else {
        text.parse::<u64>().ok()
    };
    parsed
        .filter(|&id| id != 0)
        .ok_or_else(|| error(PARAMETER, "bad id"))
}

/// `query-show[:id=N]`: background jobs run to completion before their reply, so every job
/// the node remembers is done. Without an id, all of them.
fn job_show(shared: &Shared, args: &str) -> Result<String, String> {
    if param(&params(args), &["id", "trid"]).is_none() {
        return Ok(shared.jobs.show_all());
    }
    let id = job_id(args)?;
    shared
        .jobs
        .show(id)
        .ok_or_else(|| error(NOT_FOUND, "job not found"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_name_is_the_configured_one_or_null() {
        let unnamed = Shared::new(&crate::ServerConfig::default()).expect("default config");
        assert_eq!(answer("cluster-name", "", &unnamed), "null");
        let config = crate::ServerConfig {
            cluster_name: Some("fluent-ci".into()),
            ..crate::ServerConfig::default()
        };
        let named = Shared::new(&config).expect("a valid name");
        assert_eq!(answer("cluster-name", "", &named), "fluent-ci");
        for bad in ["", &"x".repeat(64), "two words", "a;b"] {
            let config = crate::ServerConfig {
                cluster_name: Some(bad.into()),
                ..crate::ServerConfig::default()
            };
            assert!(Shared::new(&config).is_err(), "{bad:?}");
        }
        assert!(cluster_name_is_valid(&"x".repeat(63)));
    }

    #[test]
    fn params_split() {
        let ps = params("namespace=test;set=a;lut=5;bare");
        assert_eq!(param(&ps, &["ns", "namespace"]), Some("test"));
        assert_eq!(param(&ps, &["lut"]), Some("5"));
        assert_eq!(param(&ps, &["x"]), None);
        assert_eq!(param(&ps, &["bare"]), None);
    }

    #[test]
    fn names_split_as_a_node_splits_them() {
        assert_eq!(parse("namespace/test"), ("namespace", "test"));
        assert_eq!(parse("sets/test/s1"), ("sets", "test/s1"));
        assert_eq!(
            parse("get-config:context=service"),
            ("get-config", "context=service")
        );
        assert_eq!(parse("latencies:"), ("latencies", ""));
        assert_eq!(parse("sindex-list:ns=a/b"), ("sindex-list", "ns=a/b"));
        assert_eq!(parse("status;"), ("status", ""));
        assert_eq!(parse("build"), ("build", ""));
    }

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

    #[test]
    fn errors_leave_out_the_unknown_code() {
        assert_eq!(error(UNKNOWN, "unknown"), "ERROR::unknown");
        assert_eq!(error(PARAMETER, "bad id"), "ERROR:4:bad id");
    }

    #[test]
    fn job_ids_read_as_a_node_reads_them() {
        assert_eq!(job_id("id=12"), Ok(12));
        assert_eq!(job_id("trid=0x10"), Ok(16));
        assert_eq!(job_id("id=010"), Ok(8));
        assert_eq!(job_id("id=0"), Err("ERROR:4:bad id".into()));
        assert_eq!(job_id("id=x"), Err("ERROR:4:bad id".into()));
    }

    #[test]
    fn replicas_bitmap_is_684_chars() {
        let b = base64::engine::general_purpose::STANDARD.encode([0xFFu8; N_PARTITIONS / 8]);
        assert_eq!(b.len(), 684);
    }
}
