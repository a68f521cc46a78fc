//! Operations only the `aerospike` crate encodes (the table in
//! `docs/internals/architecture.md`): aggregations, background tasks, index definitions and
//! transactions.

pub mod aggregate;
pub mod background;
pub mod indexes;
pub mod transaction;
