//! `aerospike_fluent._native`: the Rust core of the aerospike_fluent SDK.
//!
//! Every operation is one `async fn` (`request/calls.rs`), declared once in `py/client.rs` and
//! exposed twice: started with a `done` target (`exec/completion/`) and as a blocking twin
//! (`exec/blocking.rs`); `client/routes.rs` says which runtime and pool each call uses.
//!
//! Folders by concern: `py` (the Python surface), `cluster` (the one cluster view), `conn`
//! (the one connection budget), `exec` (runtimes and completion), `request` (what is sent and
//! the one retry rule), `crate_calls` (operations only the crate encodes), `convert` (values,
//! records, Arrow), `ops` and `expr` (operation and expression encoding), `metrics`; and at
//! the ground, `errors` (the exception hierarchy and the one map to it).

mod client;
mod cluster;
mod conn;
mod convert;
mod crate_calls;
mod errors;
mod exec;
mod expr;
mod metrics;
mod ops;
mod policy;
mod py;
mod request;
mod safety;

use pyo3::prelude::*;

/// Records are parsed on the worker runtime and freed on the thread that converts them; glibc's
/// malloc pays for those cross-thread frees (`crates/native/PERF.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("LOOP_RUNTIME_AFTER", exec::completion::LOOP_RUNTIME_AFTER)?;
    m.add("PRIVILEGE_NAMES", crate_calls::admin::PRIVILEGE_NAMES)?;
    errors::register(m)?;
    metrics::logs::install(m.py())?;
    convert::values::register(m)?;
    convert::fast_validate::register(m)?;
    exec::runtime::register(m)?;
    exec::blocking::init(m)?;
    exec::exit::register(m)?;
    convert::arrow::register(m)?;
    ops::wire::register(m)?;
    m.add_class::<convert::record::Record>()?;
    m.add_class::<convert::batch_row::BatchRow>()?;
    m.add_class::<convert::models::ModelPlan>()?;
    m.add_function(wrap_pyfunction!(convert::models::records_as, m)?)?;
    m.add_class::<exec::completion::Pending>()?;
    m.add_class::<exec::completion::Completer>()?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<policy::CallDefaults>()?;
    m.add_class::<crate_calls::transaction::Transaction>()?;
    m.add_class::<py::config::ClientConfig>()?;
    m.add_class::<py::client::Client>()?;
    m.add_class::<request::query::QueryStream>()?;
    m.add_class::<request::arrow_stream::ArrowReader>()?;
    m.add_class::<crate_calls::background::BackgroundTask>()?;
    m.add_class::<py::embedded::EmbeddedServer>()?;
    m.add_class::<py::embedded_cluster::EmbeddedCluster>()?;
    m.add_function(wrap_pyfunction!(py::connect::connect, m)?)?;
    m.add_function(wrap_pyfunction!(py::connect::connect_blocking, m)?)?;
    m.add_function(wrap_pyfunction!(py::answering::nodes_answering, m)?)?;
    m.add_function(wrap_pyfunction!(py::answering::ping, m)?)?;
    m.add_function(wrap_pyfunction!(py::answering::ping_blocking, m)?)?;
    m.add_function(wrap_pyfunction!(py::idle::idle, m)?)?;
    Ok(())
}
