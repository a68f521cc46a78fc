//! Conversion between Python and the wire: values and keys, plan tuples and call arguments,
//! batch rows, reply messages and their particles, records (as Python objects, model
//! instances or Arrow columns), and the depth limit on nested values.

pub mod args;
pub mod arrow;
pub mod batch_row;
pub mod bytes_keys;
pub mod call_args;
pub mod chunk;
pub mod depth;
pub mod fast_validate;
pub mod message;
pub mod models;
pub mod name_cache;
pub mod particle;
pub mod record;
pub mod record_wire;
pub mod token;
pub mod values;
pub mod wire_chunk;

pub use wire_chunk::WireChunk;
