//! `aerospike_fluent._native`: the Rust core of the aerospike_fluent SDK.
//!
//! Every operation is one `async fn` over the `aerospike` crate (`calls.rs`), exposed twice by
//! `client.rs`: started on the Tokio runtime with a `done(result, error)` callback
//! (`bridge.rs`), and as a blocking twin.

mod args;
mod batch;
mod bridge;
mod calls;
mod client;
mod embedded;
mod errors;
mod expr;
mod guard;
mod local;
mod ops;
mod park;
mod plain;
mod policy;
mod query;
mod record;
mod runtime;
mod spin;
mod tls;
mod values;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("LOOP_RUNTIME_AFTER", bridge::LOOP_RUNTIME_AFTER)?;
    errors::register(m)?;
    values::register(m)?;
    plain::register(m)?;
    runtime::register(m)?;
    bridge::init(m)?;
    m.add_class::<record::Record>()?;
    m.add_class::<record::BatchRow>()?;
    m.add_class::<bridge::Pending>()?;
    m.add_class::<bridge::Completer>()?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<policy::ClientConfig>()?;
    m.add_class::<client::Client>()?;
    m.add_class::<query::QueryStream>()?;
    m.add_class::<embedded::EmbeddedServer>()?;
    m.add_function(wrap_pyfunction!(client::connect, m)?)?;
    m.add_function(wrap_pyfunction!(client::connect_blocking, m)?)?;
    Ok(())
}
