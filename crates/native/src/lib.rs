//! `aerospike_fluent._native`: the Rust core of the aerospike_fluent SDK.
//!
//! Every operation is one `async fn` over the `aerospike` crate, exposed twice: started on the
//! Tokio runtime with a `done(result, error)` callback, and as a blocking twin.

mod args;
mod errors;
mod expr;
mod policy;
mod record;
mod values;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    values::register(m)?;
    m.add_class::<record::Record>()?;
    m.add_class::<record::BatchRow>()?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<policy::ClientConfig>()?;
    Ok(())
}
