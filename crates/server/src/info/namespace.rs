//! Namespace info commands: `namespace/<ns>`, `sets`, `histogram`, `roster`, truncation and
//! `eviction-reset`.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{config, error, optional, param, params, peers, required, NAMESPACE, PARAMETER};
use crate::store::Namespace;
use crate::Shared;

/// What a namespace holds on this node: records, bytes and never-expiring records, overall
/// and per set id.
#[derive(Default)]
struct Usage {
    objects: u64,
    bytes: u64,
    non_expirable: u64,
    by_set: HashMap<u16, (u64, u64)>,
}

fn usage(ns: &Namespace) -> Usage {
    let mut u = Usage::default();
    ns.for_each_record(|r| {
        let size = r.size() as u64;
        u.objects += 1;
        u.bytes += size;
        u.non_expirable += u64::from(r.void_time == 0);
        let set = u.by_set.entry(r.set_id).or_default();
        set.0 += 1;
        set.1 += size;
    });
    u
}

/// The memory a namespace's data may use (`storage-engine.data-size`).
pub const DATA_SIZE: u64 = 4 * 1024 * 1024 * 1024;
/// Bytes of one primary index entry.
const INDEX_ENTRY: u64 = 64;

/// `namespace/<ns>`: its statistics then its configuration; `type=unknown` for a namespace
/// the node does not have (clients do not expect an error there).
pub fn info(shared: &Shared, name: &str) -> String {
    let Some(ns) = shared.store.namespace(name.as_bytes()) else {
        return "type=unknown".into();
    };
    let u = usage(ns);
    let view = shared.view();
    let masters = peers::master_objects(shared, ns);
    let used_pct = u.bytes * 100 / DATA_SIZE;
    let now = crate::clock::cl_secs(crate::clock::now_ms());
    let zero = "0".to_string();
    let stats: Vec<(&str, String)> = vec![
        ("ns_cluster_size", view.members.len().to_string()),
        ("effective_replication_factor", view.copies.to_string()),
        ("objects", u.objects.to_string()),
        ("tombstones", zero.clone()),
        ("xdr_tombstones", zero.clone()),
        ("xdr_bin_cemeteries", zero.clone()),
        ("mrt_provisionals", zero.clone()),
        ("master_objects", masters.to_string()),
        ("master_tombstones", zero.clone()),
        (
            "prole_objects",
            u.objects.saturating_sub(masters).to_string(),
        ),
        ("prole_tombstones", zero.clone()),
        ("non_replica_objects", zero.clone()),
        ("non_replica_tombstones", zero.clone()),
        ("unreplicated_records", zero.clone()),
        ("dead_partitions", zero.clone()),
        ("unavailable_partitions", zero.clone()),
        ("auto_revived_partitions", zero.clone()),
        ("clock_skew_stop_writes", "false".into()),
        ("stop_writes", "false".into()),
        ("hwm_breached", "false".into()),
        ("current_time", now.to_string()),
        ("non_expirable_objects", u.non_expirable.to_string()),
        ("expired_objects", zero.clone()),
        ("evicted_objects", zero.clone()),
        ("evict_ttl", zero.clone()),
        ("evict_void_time", zero.clone()),
        ("smd_evict_void_time", zero.clone()),
        ("nsup_cycle_duration", zero.clone()),
        ("nsup_cycle_deleted_pct", "0.00".into()),
        ("nsup_xdr_key_busy", zero.clone()),
        ("truncate_lut", zero.clone()),
        ("truncating", "false".into()),
        ("sindex_gc_cleaned", zero.clone()),
        ("mrt_monitors", zero.clone()),
        ("mrt_monitors_active", zero.clone()),
        ("xmem_id", zero.clone()),
        ("index_used_bytes", (u.objects * INDEX_ENTRY).to_string()),
        ("set_index_used_bytes", zero.clone()),
        ("sindex_used_bytes", zero.clone()),
        ("data_total_bytes", DATA_SIZE.to_string()),
        ("data_used_bytes", u.bytes.to_string()),
        ("data_used_pct", used_pct.to_string()),
        ("data_avail_pct", (100 - used_pct.min(100)).to_string()),
        ("data_compression_ratio", "1.000".into()),
        ("record_proto_uncompressed_pct", "0.000".into()),
        ("record_proto_compression_ratio", "1.000".into()),
        ("query_proto_uncompressed_pct", "0.000".into()),
        ("query_proto_compression_ratio", "1.000".into()),
        ("pending_quiesce", "false".into()),
        ("effective_is_quiesced", "false".into()),
        ("nodes_quiesced", zero.clone()),
        ("effective_prefer_uniform_balance", "false".into()),
        ("effective_active_rack", zero.clone()),
        ("migrate_tx_partitions_imbalance", zero.clone()),
        ("migrate_tx_instances", zero.clone()),
        ("migrate_rx_instances", zero.clone()),
        ("migrate_tx_partitions_active", zero.clone()),
        ("migrate_rx_partitions_active", zero.clone()),
        ("migrate_tx_partitions_initial", zero.clone()),
        ("migrate_tx_partitions_remaining", zero.clone()),
        ("migrate_tx_partitions_lead_remaining", zero.clone()),
        ("migrate_rx_partitions_initial", zero.clone()),
        ("migrate_rx_partitions_remaining", zero.clone()),
        ("migrate_records_skipped", zero.clone()),
        ("migrate_records_transmitted", zero.clone()),
        ("migrate_record_retransmits", zero.clone()),
        ("migrate_record_receives", zero.clone()),
        ("migrate_records_unreadable", zero.clone()),
        ("migrate_signals_active", zero.clone()),
        ("migrate_signals_remaining", zero.clone()),
        ("migrate_fresh_partitions", zero.clone()),
        ("appeals_tx_active", zero.clone()),
        ("appeals_rx_active", zero.clone()),
        ("appeals_tx_remaining", zero.clone()),
        ("appeals_records_exonerated", zero),
    ];
    let mut out = stats
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";");
    out.push(';');
    out.push_str(&config::namespace(shared, ns));
    out
}

/// `sets[/<ns>[/<set>]]`: per set `ns=<ns>:set=<set>:<stat>=..:..;`, or one set's properties
/// alone; `ns_type=unknown` for a namespace the node does not have.
pub fn sets(shared: &Shared, args: &str) -> String {
    let (ns_name, only) = match args.split_once('/') {
        Some((ns, set)) => (Some(ns), Some(set)),
        None if args.is_empty() => (None, None),
        None => (Some(args), None),
    };
    let namespaces: Vec<&Namespace> = match ns_name {
        None => shared.store.namespaces.iter().collect(),
        Some(name) => match shared.store.namespace(name.as_bytes()) {
            Some(ns) => vec![ns],
            None => return "ns_type=unknown".into(),
        },
    };
    let indexes = shared.sindexes.list();
    let mut out = String::new();
    for ns in namespaces {
        let u = usage(ns);
        for (id, set) in ns.sets() {
            if only.is_some_and(|o| o != set) {
                continue;
            }
            let (objects, bytes) = u.by_set.get(&id).copied().unwrap_or_default();
            let sindexes = indexes
                .iter()
                .filter(|i| i.ns == ns.name && i.set == set)
                .count();
            if only.is_none() {
                let _ = write!(out, "ns={}:set={set}:", ns.name);
            }
            let _ = write!(
                out,
                "objects={objects}:tombstones=0:data_used_bytes={bytes}:truncate_lut=0:\
sindexes={sindexes}:index_populating=false:truncating=false:{};",
                config::set_config(shared, &ns.name, &set)
            );
        }
    }
    out
}

/// `histogram:namespace=<ns>;type=ttl|object-size|object-size-linear[;set=<set>]`: a
/// histogram the namespace supervisor computes; none is computed here, so the snapshot is
/// empty, as a node's before its first pass.
pub fn histogram(shared: &Shared, args: &str) -> Result<String, String> {
    let ps = params(args);
    let ns = super::local_namespace(shared, &ps, &["namespace"])?;
    let kind = required(&ps, &["type"])?;
    if let Some(set) = optional(&ps, "set")? {
        if ns.find_set(set.as_bytes()).is_none() {
            return Err(error(PARAMETER, "unknown set name"));
        }
    }
    match kind {
        "ttl" | "object-size" | "object-size-linear" => Ok(String::new()),
        _ => Err(error(PARAMETER, "unknown hist name")),
    }
}

/// A number as C's `strtoul(s, NULL, 0)` reads it: leading spaces, a sign, then hex (`0x`),
/// octal (leading `0`) or decimal digits as far as they go; past the largest value, the
/// largest.
pub fn strtoul(s: &str) -> u64 {
    let s = s.trim_start();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(hex) = s.strip_prefix("0x").or(s.strip_prefix("0X")) {
        (16, hex)
    } else if s.starts_with('0') {
        (8, s)
    } else {
        (10, s)
    };
    let end = digits
        .char_indices()
        .find(|(_, c)| !c.is_digit(radix))
        .map_or(digits.len(), |(i, _)| i);
    let value = if end == 0 {
        0
    } else {
        u64::from_str_radix(&digits[..end], radix).unwrap_or(u64::MAX)
    };
    if neg {
        value.wrapping_neg()
    } else {
        value
    }
}

/// `eviction-reset:namespace=<ns>[;ttl=<seconds>]`: sets (or with no `ttl` drops) the
/// eviction threshold; this server evicts nothing, so it only checks the command.
pub fn eviction_reset(args: &str) -> Result<String, String> {
    let ps = params(args);
    required(&ps, &["namespace"])?;
    if let Some(ttl) = optional(&ps, "ttl")? {
        if ttl.len() >= 12 {
            return Err(error(PARAMETER, "'ttl' value too long"));
        }
        if strtoul(ttl) > 10 * 365 * 24 * 3600 {
            return Err(error(PARAMETER, "ttl too big"));
        }
    }
    Ok("ok".into())
}

/// Longest names a node's truncate commands take (their buffers, less the NUL).
const MAX_NAMESPACE: usize = 31;
const MAX_SET: usize = 63;
const MAX_LUT: usize = 23;

/// The namespace a truncate command names (`namespace=` only).
fn truncate_namespace<'a>(ps: &[(&str, &'a str)]) -> Result<&'a str, String> {
    let ns = required(ps, &["namespace"])?;
    if ns.len() > MAX_NAMESPACE {
        return Err(error(NAMESPACE, "'namespace' value too long"));
    }
    Ok(ns)
}

/// The set a truncate command names (`truncate`, `truncate-undo`), or the refusal of one
/// named to a namespace command.
fn truncate_set<'a>(ps: &[(&str, &'a str)], with_set: bool) -> Result<Option<&'a str>, String> {
    if with_set {
        let set = required(ps, &["set"])?;
        if set.len() > MAX_SET {
            return Err(error(PARAMETER, "'set' value too long"));
        }
        Ok(Some(set))
    } else if param(ps, &["set"]).is_some() {
        Err(error(PARAMETER, "unexpected set name"))
    } else {
        Ok(None)
    }
}

/// `truncate:namespace=..;set=..[;lut=..]` and `truncate-namespace:namespace=..[;lut=..]`.
pub fn truncate(shared: &Shared, args: &str, with_set: bool) -> Result<String, String> {
    let ps = params(args);
    let ns_name = truncate_namespace(&ps)?;
    let set = truncate_set(&ps, with_set)?;
    let lut = optional(&ps, "lut")?;
    if lut.is_some_and(|l| l.len() > MAX_LUT) {
        return Err(error(PARAMETER, "'lut' value too long"));
    }
    // As a real server: records last updated strictly before the cut-off (milliseconds) go,
    // so without one those written in the current millisecond stay; a cut-off of 0 or in the
    // future is refused.
    let now = crate::clock::now_ms();
    let before_ms = match lut {
        Some(v) => match strtoul(v) / 1_000_000 {
            ms if ms <= crate::clock::CITRUSLEAF_EPOCH * 1000 => {
                return Err(error(PARAMETER, "would truncate to 0"))
            }
            ms if ms > now => return Err(error(PARAMETER, "would truncate in the future")),
            ms => ms,
        },
        None => now,
    };
    // As a real server: a namespace it does not have has nothing to truncate.
    let Some(ns) = shared.store.namespace(ns_name.as_bytes()) else {
        return Ok("ok".into());
    };
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
    Ok("ok".into())
}

/// `truncate-undo:namespace=..;set=..` and `truncate-namespace-undo:namespace=..`: forgets a
/// truncation's cut-off; records already gone stay gone here, as they do on a node whose
/// memory namespace dropped them.
pub fn truncate_undo(args: &str, with_set: bool) -> Result<String, String> {
    let ps = params(args);
    truncate_namespace(&ps)?;
    truncate_set(&ps, with_set)?;
    Ok("ok".into())
}

/// A node in a roster list: its id, and `@<rack>` when on a rack.
fn roster_entry(id: u64, rack: u32) -> String {
    if rack == 0 {
        format!("{id:X}")
    } else {
        format!("{id:X}@{rack}")
    }
}

/// `roster[:namespace=<ns>]`: per namespace its roster, pending roster and observed nodes;
/// a strong-consistency namespace's roster is every member this node sees.
pub fn roster(shared: &Shared, args: &str) -> Result<String, String> {
    let ps = params(args);
    let only = super::optional_namespace(shared, &ps)?;
    let mut nodes: Vec<(u64, u32)> = Vec::new();
    crate::cluster::each_member(shared, |node| nodes.push((node.node_id(), node.rack_id())));
    nodes.sort_unstable_by(|a, b| b.cmp(a));
    let observed = nodes
        .iter()
        .map(|&(id, rack)| roster_entry(id, rack))
        .collect::<Vec<_>>()
        .join(",");
    let one = |ns: &Namespace| {
        let roster = if ns.strong_consistency {
            observed.as_str()
        } else {
            "null"
        };
        format!("roster={roster}:pending_roster={roster}:observed_nodes={observed}")
    };
    Ok(super::each_namespace(shared, only, one))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtoul_reads_as_c_does() {
        assert_eq!(strtoul("123abc"), 123);
        assert_eq!(strtoul("0x10"), 16);
        assert_eq!(strtoul("010"), 8);
        assert_eq!(strtoul("abc"), 0);
        assert_eq!(strtoul("99999999999999999999"), u64::MAX);
        assert_eq!(strtoul(" 7"), 7);
    }

    #[test]
    fn truncate_commands_check_their_names() {
        assert_eq!(
            truncate_undo("namespace=test", true),
            Err("ERROR:4:missing 'set'".into())
        );
        assert_eq!(
            truncate_undo("namespace=test;set=a", false),
            Err("ERROR:4:unexpected set name".into())
        );
        assert_eq!(
            truncate_undo("ns=test", false),
            Err("ERROR:20:missing 'namespace'".into())
        );
        assert_eq!(truncate_undo("namespace=test", false), Ok("ok".into()));
    }

    #[test]
    fn eviction_reset_bounds_its_ttl() {
        assert_eq!(
            eviction_reset("namespace=test;ttl=315360000"),
            Ok("ok".into())
        );
        assert_eq!(
            eviction_reset("namespace=test;ttl=315360001"),
            Err("ERROR:4:ttl too big".into())
        );
        assert_eq!(
            eviction_reset("ttl=1"),
            Err("ERROR:20:missing 'namespace'".into())
        );
    }
}
