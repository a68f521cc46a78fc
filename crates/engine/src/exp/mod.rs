//! Filter expressions (wire format: msgpack) and expression read/write operations.
//!
//! Filter: the packed expression of field type 43. Operations `EXP_READ` / `EXP_MODIFY` carry
//! `[expression, flags]` as their value: use [`read_op`] and [`write_op`].

mod eval;
pub mod geo;
mod math;
mod module;

use rmpv::Value as Mp;

use crate::cdt::BinChange;
use crate::pack::{from_particle, read_mp, to_particle};
use crate::result::{BIN_EXISTS, BIN_NOT_FOUND, OP_NOT_APPLICABLE, PARAMETER_ERROR};
use crate::value::Value;
use crate::{Particle, RecordView, ResultCode};

/// `EXP_MODIFY` flags.
pub const WRITE_CREATE_ONLY: i64 = 1;
pub const WRITE_UPDATE_ONLY: i64 = 2;
pub const WRITE_ALLOW_DELETE: i64 = 4;
pub const WRITE_POLICY_NO_FAIL: i64 = 8;
/// `EXP_READ` / `EXP_MODIFY` flag: unknown results are not an error.
pub const EVAL_NO_FAIL: i64 = 16;

fn parse(exp: &[u8]) -> Result<Mp, ResultCode> {
    let mut buf = exp;
    read_mp(&mut buf)
}

/// Evaluates a decoded expression to a value (None = unknown).
pub fn eval_value(exp: &[u8], rec: &dyn RecordView) -> Result<Option<Value>, ResultCode> {
    let tree = parse(exp)?;
    eval::eval(&mut eval::Ctx::new(rec), &tree)
}

/// Evaluates a filter expression (field type 43) against `rec`; `Ok(false)` = filtered out.
pub fn matches(exp: &[u8], rec: &dyn RecordView) -> Result<bool, ResultCode> {
    Ok(matches!(eval_value(exp, rec)?, Some(Value::Bool(true))))
}

/// Evaluates a packed expression to a particle (None = nil or unknown).
pub fn eval(exp: &[u8], rec: &dyn RecordView) -> Result<Option<Particle>, ResultCode> {
    Ok(eval_value(exp, rec)?.as_ref().and_then(to_particle))
}

/// Splits an `EXP_READ`/`EXP_MODIFY` op value `[expression, flags]` into (expression, flags).
fn split_op(payload: &[u8]) -> Result<(Mp, i64), ResultCode> {
    match parse(payload)? {
        Mp::Array(mut a) if a.len() == 2 => {
            let flags = a.pop().and_then(|f| f.as_i64()).ok_or(PARAMETER_ERROR)?;
            Ok((a.pop().ok_or(PARAMETER_ERROR)?, flags))
        }
        _ => Err(PARAMETER_ERROR),
    }
}

fn eval_op(payload: &[u8], rec: &dyn RecordView) -> Result<(Option<Value>, i64), ResultCode> {
    let (tree, flags) = split_op(payload)?;
    let v = eval::eval(&mut eval::Ctx::new(rec), &tree);
    match v {
        Ok(Some(v)) => Ok((Some(v), flags)),
        _ if flags & EVAL_NO_FAIL != 0 => Ok((None, flags)),
        Ok(None) => Err(OP_NOT_APPLICABLE),
        Err(e) => Err(e),
    }
}

/// `EXP_READ` (op type 7): the value to return in the op's bin (None = nil).
pub fn read_op(payload: &[u8], rec: &dyn RecordView) -> Result<Option<Particle>, ResultCode> {
    Ok(eval_op(payload, rec)?.0.as_ref().and_then(to_particle))
}

/// `EXP_MODIFY` (op type 8) on bin `bin_name`: what to do with the bin.
pub fn write_op(
    payload: &[u8],
    bin_name: &str,
    rec: &dyn RecordView,
) -> Result<BinChange, ResultCode> {
    let (v, flags) = eval_op(payload, rec)?;
    let exists = rec.bin(bin_name).is_some();
    let denied = if flags & WRITE_CREATE_ONLY != 0 && exists {
        Some(BIN_EXISTS)
    } else if flags & WRITE_UPDATE_ONLY != 0 && !exists {
        Some(BIN_NOT_FOUND)
    } else {
        None
    };
    if let Some(code) = denied {
        return if flags & WRITE_POLICY_NO_FAIL != 0 {
            Ok(BinChange::Unchanged)
        } else {
            Err(code)
        };
    }
    match v.as_ref().and_then(to_particle) {
        Some(p) => Ok(BinChange::Set(p)),
        None if v.is_none() => Ok(BinChange::Unchanged),
        None if flags & WRITE_ALLOW_DELETE != 0 => Ok(BinChange::Remove),
        None if flags & WRITE_POLICY_NO_FAIL != 0 => Ok(BinChange::Unchanged),
        None => Err(OP_NOT_APPLICABLE),
    }
}

/// Decodes a particle for callers that want [`Value`]s.
pub fn particle_value(p: &Particle) -> Result<Value, ResultCode> {
    from_particle(p)
}
