//! Adapter to the `engine` crate: record views for expressions and CDT/expression operations.

use engine::cdt::BinChange;
use engine::{Particle, RecordView, ResultCode};

use crate::bins::{self, BinIndex};
use crate::clock::CITRUSLEAF_EPOCH;
use crate::store::{Bin, Digest};

const PARAMETER_ERROR: ResultCode = 4;

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

impl View<'_> {
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

/// Write flags of an expression-modify op.
pub mod exp_flags {
    pub const CREATE_ONLY: u64 = 1;
    pub const UPDATE_ONLY: u64 = 2;
    pub const ALLOW_DELETE: u64 = 4;
    pub const POLICY_NO_FAIL: u64 = 8;
    pub const EVAL_NO_FAIL: u64 = 16;
}

/// Splits an EXP_READ/EXP_MODIFY payload (msgpack `[exp, flags]`) and evaluates the expression.
/// Returns the value and the flags.
pub fn exp_eval(payload: &[u8], view: &View<'_>) -> Result<(Option<Particle>, u64), ResultCode> {
    let (exp, flags) = split_exp_payload(payload).ok_or(PARAMETER_ERROR)?;
    match engine::exp::eval(exp, view) {
        Ok(v) => Ok((v, flags)),
        Err(_) if flags & exp_flags::EVAL_NO_FAIL != 0 => Ok((None, flags)),
        Err(e) => Err(e),
    }
}

/// `[exp, flags]` → (packed exp bytes, flags).
fn split_exp_payload(payload: &[u8]) -> Option<(&[u8], u64)> {
    let mut rd = payload;
    let n = rmp::decode::read_array_len(&mut rd).ok()?;
    if n != 2 {
        return None;
    }
    let start = payload.len() - rd.len();
    rmpv::decode::read_value_ref_with_max_depth(&mut rd, engine::pack::RMPV_MAX_DEPTH).ok()?;
    let end = payload.len() - rd.len();
    let flags: u64 = rmp::decode::read_int(&mut rd).ok()?;
    Some((payload.get(start..end)?, flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_exp_payload() {
        // [[1, 2], 16]
        let p = [0x92, 0x92, 0x01, 0x02, 0x10];
        assert_eq!(split_exp_payload(&p), Some((&p[1..4], 16)));
        assert_eq!(split_exp_payload(&[0x91, 0x01]), None);
        assert_eq!(split_exp_payload(&[0x92, 0xdc]), None);
    }
}
