//! `latencies`: the histograms a node reports, none of them measured here.

use std::fmt::Write as _;

use super::{config, error, optional, params, PARAMETER};
use crate::Shared;

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
