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

mod dynamic;
mod listing;

pub use dynamic::set;
pub use listing::{get, namespace, set_config};

use super::logging::LOG_CONTEXTS;
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
