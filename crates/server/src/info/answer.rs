//! The value of each command, by name: most are answered by the module of their family.

use base64::Engine as _;

use super::commands::help;
use super::query_jobs::{job_id, job_show};
use super::replicas::{replicas, replicas_cmd, replicas_master};
use super::udf::{udf_get, udf_list, udf_put, udf_remove};
use super::{
    config, error, flag, latencies, local_namespace, logging, namespace, node, optional_namespace,
    params, peers, reply, required, sindex, statistics, unrecognized, BUILD, NOT_FOUND, PARAMETER,
};
use crate::store::N_PARTITIONS;
use crate::Shared;

/// The value for one command of [`SPECS`](super::SPECS) (or
/// [`EMBEDDED_ONLY`](super::EMBEDDED_ONLY)) with its arguments.
pub fn answer(cmd: &str, args: &str, shared: &Shared) -> String {
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
        "logs" => logging::LOG_SINKS.into(),
        "log" => logging::log_levels(shared, args),
        "log-set" | "set-log" => reply(logging::log_set(shared, args)),
        "log-message" => reply(logging::log_message(args)),
        "latencies" => reply(latencies::latencies(shared, args)),
        "statistics" => statistics::statistics(shared),
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

/// `get-stats:context=..`: statistics of a context; only XDR has any, and this node ships
/// to no datacenter.
pub fn get_stats(args: &str) -> Result<String, String> {
    match required(&params(args), &["context"])? {
        "xdr" => Ok(String::new()),
        _ => Err(error(PARAMETER, "unknown context")),
    }
}

/// `user-agent-set:value=<base64>`: a client names itself.
pub fn user_agent(args: &str) -> Result<String, String> {
    let value = required(&params(args), &["value"])?;
    base64::engine::general_purpose::STANDARD
        .decode(value)
        .map_err(|_| error(PARAMETER, "'value' invalid base64"))?;
    Ok("ok".into())
}
