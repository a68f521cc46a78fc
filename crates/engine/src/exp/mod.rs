//! Filter expressions (wire format: msgpack) and expression read/write operations.
//!
//! Filter: the packed expression of field type 43. Operations `EXP_READ` / `EXP_MODIFY` carry
//! `[expression, flags]` as their value: use [`read_op`] and [`write_op`].

mod check;
mod element;
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

pub use check::Ty;
pub use element::{ElementExp, Outcome};
pub use eval::LoopVars;

/// Parses and checks an expression the way a server does on receipt (see [`check`]).
fn build(exp: &[u8]) -> Result<(Mp, Ty), ResultCode> {
    let tree = parse(exp)?;
    let ty = check::check(&tree)?;
    Ok((tree, ty))
}

/// Checks a filter expression (field type 43) without a record: `Err(PARAMETER_ERROR)` when a
/// server refuses it (malformed, mistyped, or not a boolean).
pub fn check_filter(exp: &[u8]) -> Result<(), ResultCode> {
    if build(exp)?.1 == Ty::Bool {
        Ok(())
    } else {
        Err(PARAMETER_ERROR)
    }
}

/// The result type of an index expression (sindex-create `exp`); `Err(PARAMETER_ERROR)` when a
/// server refuses it (malformed, mistyped, or reading record metadata other than the digest).
pub fn check_index(exp: &[u8]) -> Result<Ty, ResultCode> {
    check::check_index(&parse(exp)?)
}

/// Evaluates a decoded expression to a value (None = unknown).
pub fn eval_value(exp: &[u8], rec: &dyn RecordView) -> Result<Option<Value>, ResultCode> {
    let (tree, _) = build(exp)?;
    eval::eval(&mut eval::Ctx::new(rec), &tree)
}

/// Evaluates a filter expression (field type 43) against `rec`; `Ok(false)` = filtered out.
pub fn matches(exp: &[u8], rec: &dyn RecordView) -> Result<bool, ResultCode> {
    let (tree, ty) = build(exp)?;
    if ty != Ty::Bool {
        return Err(PARAMETER_ERROR);
    }
    Ok(matches!(
        eval::eval(&mut eval::Ctx::new(rec), &tree)?,
        Some(Value::Bool(true))
    ))
}

/// Evaluates a packed expression to a particle (None = nil or unknown).
pub fn eval(exp: &[u8], rec: &dyn RecordView) -> Result<Option<Particle>, ResultCode> {
    Ok(eval_value(exp, rec)?.as_ref().and_then(to_particle))
}

/// Splits an `EXP_READ`/`EXP_MODIFY` op value `[expression, flags?]` into (expression, flags)
/// and checks the flags the op kind accepts.
fn split_op(payload: &[u8], modify: bool) -> Result<(Mp, i64), ResultCode> {
    // The outer pair does not count toward the expression's nesting limit.
    let mut buf = payload;
    let n = rmp::decode::read_array_len(&mut buf).map_err(|_| PARAMETER_ERROR)?;
    if !(1..=2).contains(&n) {
        return Err(PARAMETER_ERROR);
    }
    let tree = read_mp(&mut buf)?;
    let flags = match n {
        2 => read_mp(&mut buf)?.as_i64().ok_or(PARAMETER_ERROR)?,
        _ => 0,
    };
    let allowed = if modify {
        WRITE_CREATE_ONLY
            | WRITE_UPDATE_ONLY
            | WRITE_ALLOW_DELETE
            | WRITE_POLICY_NO_FAIL
            | EVAL_NO_FAIL
    } else {
        EVAL_NO_FAIL
    };
    if flags & !allowed != 0 {
        return Err(PARAMETER_ERROR);
    }
    // The remove marker means something to a path modify only.
    if check::check(&tree)? == Ty::Remove {
        return Err(PARAMETER_ERROR);
    }
    Ok((tree, flags))
}

/// The op's value: `Ok(None)` for an unknown result under `EVAL_NO_FAIL` (the op does
/// nothing), `OP_NOT_APPLICABLE` for one without.
fn eval_op(tree: &Mp, flags: i64, rec: &dyn RecordView) -> Result<Option<Value>, ResultCode> {
    match eval::eval(&mut eval::Ctx::new(rec), tree)? {
        Some(v) => Ok(Some(v)),
        None if flags & EVAL_NO_FAIL != 0 => Ok(None),
        None => Err(OP_NOT_APPLICABLE),
    }
}

/// `EXP_READ` (op type 7): the value to return in the op's bin (None = nil).
pub fn read_op(payload: &[u8], rec: &dyn RecordView) -> Result<Option<Particle>, ResultCode> {
    let (tree, flags) = split_op(payload, false)?;
    Ok(eval_op(&tree, flags, rec)?.as_ref().and_then(to_particle))
}

/// `EXP_MODIFY` (op type 8) on bin `bin_name`: what to do with the bin. The create/update-only
/// checks come first; a nil result deletes the bin only with `ALLOW_DELETE`.
pub fn write_op(
    payload: &[u8],
    bin_name: &str,
    rec: &dyn RecordView,
) -> Result<BinChange, ResultCode> {
    let (tree, flags) = split_op(payload, true)?;
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
    let Some(v) = eval_op(&tree, flags, rec)? else {
        return Ok(BinChange::Unchanged);
    };
    match to_particle(&v) {
        Some(p) => Ok(BinChange::Set(p)),
        None if !exists => Ok(BinChange::Unchanged),
        None if flags & WRITE_ALLOW_DELETE != 0 => Ok(BinChange::Remove),
        // A server lets any flag (not only POLICY_NO_FAIL) excuse a refused delete.
        None if flags != 0 => Ok(BinChange::Unchanged),
        None => Err(OP_NOT_APPLICABLE),
    }
}

/// Decodes a particle for callers that want [`Value`]s.
pub fn particle_value(p: &Particle) -> Result<Value, ResultCode> {
    from_particle(p)
}
