//! Record value model and the pure (no I/O) parts of an Aerospike server: CDT list/map
//! operations, bit and HyperLogLog operations, filter-expression evaluation and record UDFs.
//!
//! The server stores each bin as a [`Particle`] (wire particle type + bytes, exactly as the
//! wire carries it) and calls into this crate when an operation needs to look inside one.

use bytes::Bytes;

pub mod bits;
pub mod blob_op;
pub mod cdt;
pub mod exp;
pub mod hll;
pub mod key_order;
pub mod pack;
pub mod result;
pub mod udf;
pub mod value;

/// Wire particle types (see the `aerospike` crate's `particle_type.rs`).
pub mod particle_type {
    pub const NULL: u8 = 0;
    pub const INTEGER: u8 = 1;
    pub const FLOAT: u8 = 2;
    pub const STRING: u8 = 3;
    pub const BLOB: u8 = 4;
    pub const BOOL: u8 = 17;
    pub const HLL: u8 = 18;
    pub const MAP: u8 = 19;
    pub const LIST: u8 = 20;
    pub const GEOJSON: u8 = 23;
}

/// One bin value as stored: wire particle type and the particle's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Particle {
    pub ptype: u8,
    pub data: Bytes,
}

/// Server result codes this crate can produce (numbers as on the wire).
pub type ResultCode = u8;

/// Read access to the record an expression or UDF runs against.
pub trait RecordView {
    /// The bin named `name`, if the record has it.
    fn bin(&self, name: &str) -> Option<&Particle>;
    /// Names of all bins, in storage order.
    fn bin_names(&self) -> Vec<&str>;
    /// Whether the record exists (false for the "record not yet created" view of a write).
    fn exists(&self) -> bool;
    /// Set name ("" when the record has none).
    fn set_name(&self) -> &str;
    /// The stored user key as a particle, when the record was written with send-key.
    fn user_key(&self) -> Option<&Particle>;
    /// The record's 20-byte digest.
    fn digest(&self) -> &[u8; 20];
    /// Generation counter.
    fn generation(&self) -> u32;
    /// Void time in nanoseconds since the Unix epoch; 0 = never expires.
    fn void_time_ns(&self) -> u64;
    /// Last update time in nanoseconds since the Unix epoch.
    fn last_update_ns(&self) -> u64;
    /// Approximate stored size in bytes.
    fn size_bytes(&self) -> u64;
}
