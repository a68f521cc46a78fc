//! Log records of the native core go to Python's `logging` under `aerospike_fluent`: the SDK's
//! own under `aerospike_fluent.cluster` (and other concerns), the `aerospike` crate's under
//! `aerospike_fluent.aerospike_core...`. Which levels a logger lets through is read from Python
//! once and cached, so a record nobody wants never takes the GIL; the cache is read again at
//! every `connect()`, so logging configured before connecting is always honoured.

use std::sync::OnceLock;

use pyo3::prelude::*;

/// Nodes joining, leaving or unreachable, and partition map changes.
pub const CLUSTER: &str = "cluster";
/// Calls that gave up after their retries.
pub const CALLS: &str = "calls";

static RESET: OnceLock<pyo3_log::ResetHandle> = OnceLock::new();

/// Send native log records to Python's `logging` (once per process).
pub fn install(py: Python<'_>) -> PyResult<()> {
    if RESET.get().is_some() {
        return Ok(());
    }
    let logger = pyo3_log::Logger::new(py, pyo3_log::Caching::LoggersAndLevels)?
        .set_prefix("aerospike_fluent")
        .filter(log::LevelFilter::Trace);
    // another extension may have installed the process's logger first: its records then go
    // where it sends them
    if let Ok(handle) = logger.install() {
        let _ = RESET.set(handle);
    }
    Ok(())
}

/// Read the Python loggers' levels again (they may have changed since the last connect).
pub fn refresh() {
    if let Some(handle) = RESET.get() {
        handle.reset();
    }
}
