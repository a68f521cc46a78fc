//! Adapter to the `engine` crate: record views for expressions and CDT/expression operations.

use engine::cdt::BinChange;
use engine::{Particle, RecordView, ResultCode};

use crate::bins::{self, BinIndex};
use crate::clock::CITRUSLEAF_EPOCH;
use crate::store::{Bin, Digest, Record};

/// Read-only view of a record (stored or being written) for the engine.
pub struct View<'a> {
    /// The bins; removed ones may remain as tombstones (see [`bins::is_live`]).
    pub bins: &'a [Bin],
    /// Name index of `bins`, for records with many bins.
    pub index: Option<&'a BinIndex>,
    pub key: Option<&'a Particle>,
    pub set: &'a str,
    pub digest: &'a Digest,
    pub generation: u32,
    pub void_time: u32,
    pub last_update_ms: u64,
    pub exists: bool,
}

impl<'a> View<'a> {
    /// A stored record of set `set`, as scans, queries and stream UDFs see it.
    pub fn stored(digest: &'a Digest, rec: &'a Record, set: &'a str) -> View<'a> {
        View {
            bins: &rec.bins,
            index: None,
            key: rec.key.as_ref(),
            set,
            digest,
            generation: u32::from(rec.generation),
            void_time: rec.void_time,
            last_update_ms: rec.last_update_ms,
            exists: true,
        }
    }

    fn live(&self) -> impl Iterator<Item = &Bin> {
        self.bins.iter().filter(|b| bins::is_live(b))
    }
}

impl RecordView for View<'_> {
    fn bin(&self, name: &str) -> Option<&Particle> {
        bins::find(self.bins, self.index, name.as_bytes()).map(|b| &b.value)
    }

    fn bin_names(&self) -> Vec<&str> {
        self.live().map(|b| b.name.as_str()).collect()
    }

    fn exists(&self) -> bool {
        self.exists
    }

    fn set_name(&self) -> &str {
        self.set
    }

    fn user_key(&self) -> Option<&Particle> {
        self.key
    }

    fn digest(&self) -> &[u8; 20] {
        self.digest
    }

    fn generation(&self) -> u32 {
        self.generation
    }

    fn void_time_ns(&self) -> u64 {
        if self.void_time == 0 {
            return 0;
        }
        (u64::from(self.void_time) + CITRUSLEAF_EPOCH) * 1_000_000_000
    }

    fn last_update_ns(&self) -> u64 {
        self.last_update_ms.saturating_mul(1_000_000)
    }

    fn size_bytes(&self) -> u64 {
        self.live()
            .map(|b| (b.name.as_bytes().len() + b.value.data.len() + 4) as u64)
            .sum::<u64>()
            + 40
    }
}

/// Filter expression (field 43): Ok(false) = filtered out.
pub fn filter_matches(exp: &[u8], view: &View<'_>) -> Result<bool, ResultCode> {
    engine::exp::matches(exp, view)
}

/// The value of expression `exp` on the record (an expression index's key).
pub fn exp_value(exp: &[u8], view: &View<'_>) -> Result<Option<engine::value::Value>, ResultCode> {
    engine::exp::eval_value(exp, view)
}

/// Checks a filter expression as a server does on receipt (before reading any record).
pub fn check_filter(exp: &[u8]) -> Result<(), ResultCode> {
    engine::exp::check_filter(exp)
}

/// A CDT/bit/HLL op: the bin change and the value to return.
pub fn cdt(
    op_type: u8,
    bin: Option<&Particle>,
    payload: &[u8],
) -> Result<(BinChange, Option<Particle>), ResultCode> {
    let r = match op_type {
        engine::bits::BIT_READ | engine::bits::BIT_MODIFY => {
            engine::bits::apply(op_type, bin, payload)?
        }
        engine::hll::HLL_READ | engine::hll::HLL_MODIFY => {
            engine::hll::apply(op_type, bin, payload)?
        }
        _ => engine::cdt::apply(op_type, bin, payload)?,
    };
    Ok((r.bin, r.value))
}

/// `EXP_READ`: the value the op answers (None = nil).
pub fn exp_read(payload: &[u8], view: &View<'_>) -> Result<Option<Particle>, ResultCode> {
    engine::exp::read_op(payload, view)
}

/// `EXP_MODIFY` on bin `name`: what happens to the bin.
pub fn exp_write(payload: &[u8], name: &str, view: &View<'_>) -> Result<BinChange, ResultCode> {
    engine::exp::write_op(payload, name, view)
}
