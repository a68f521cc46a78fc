//! `aerospike_fluent._native`: the Rust core of the aerospike_fluent SDK.
//!
//! Every operation is one `async fn` over the `aerospike` crate (`calls.rs`), declared once in
//! `client.rs` and exposed twice: started with a `done` target (`completion/`) and as a blocking
//! twin (`blocking.rs`); `pools.rs` says which runtime and pool each call uses.

mod aggregate;
mod args;
mod arrow;
mod background;
mod batch;
mod batch_wire;
mod blocking;
mod call_args;
mod calls;
mod chunk;
mod client;
mod cluster_watch;
mod completion;
mod config;
mod connect;
mod deep_stack;
mod depth;
mod embedded;
mod embedded_cluster;
mod errors;
mod exit;
mod expr;
mod fallback;
mod fast_validate;
mod guard;
mod in_flight;
mod indexes;
mod logs;
mod loop_runtime;
mod metrics;
mod models;
mod name_cache;
mod ops;
mod park;
mod policy;
mod pools;
mod query;
mod record;
mod record_wire;
mod redelivery;
mod runtime;
mod spin;
mod tls;
mod token;
mod transaction;
mod values;
mod wire;

use pyo3::prelude::*;

/// Records are parsed on the worker runtime and freed on the thread that converts them; glibc's
/// malloc pays for those cross-thread frees (`crates/native/PERF.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("LOOP_RUNTIME_AFTER", completion::LOOP_RUNTIME_AFTER)?;
    errors::register(m)?;
    logs::install(m.py())?;
    values::register(m)?;
    fast_validate::register(m)?;
    runtime::register(m)?;
    blocking::init(m)?;
    exit::register(m)?;
    arrow::register(m)?;
    m.add_class::<record::Record>()?;
    m.add_class::<record::BatchRow>()?;
    m.add_class::<models::ModelPlan>()?;
    m.add_function(wrap_pyfunction!(models::records_as, m)?)?;
    m.add_class::<completion::Pending>()?;
    m.add_class::<completion::Completer>()?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<policy::CallDefaults>()?;
    m.add_class::<transaction::Transaction>()?;
    m.add_class::<config::ClientConfig>()?;
    m.add_class::<client::Client>()?;
    m.add_class::<query::QueryStream>()?;
    m.add_class::<background::BackgroundTask>()?;
    m.add_class::<embedded::EmbeddedServer>()?;
    m.add_class::<embedded_cluster::EmbeddedCluster>()?;
    m.add_function(wrap_pyfunction!(connect::connect, m)?)?;
    m.add_function(wrap_pyfunction!(connect::connect_blocking, m)?)?;
    Ok(())
}
