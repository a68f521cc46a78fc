//! Operations only the `aerospike` crate encodes (the table in
//! `docs/internals/architecture.md`): security administration, aggregations, background tasks,
//! index definitions and transactions.

pub mod admin;
pub mod aggregate;
pub mod background;
pub mod indexes;
pub mod transaction;
