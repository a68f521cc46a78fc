//! Bit operations on blob bins: the value of a `BIT_READ` (12) / `BIT_MODIFY` (13) wire op,
//! `[code, args...]`, applied to a bin, with the server's checks and result codes.
//!
//! Offsets count bits from the left of the blob (negative ones from its end). An offset past
//! the blob is "not applicable" (26) for bit edits and reads, a parameter error (4) for byte
//! removal; only `insert` and `resize` may create the bin.

mod bitbuf;
pub mod parse;

use self::parse::{code, BitOp};
use self::parse::{
    CREATE_ONLY, FROM_FRONT, GROW_ONLY, MAX_BYTES, NO_FAIL, PARTIAL, SATURATE, SHRINK_ONLY, SIGNED,
    UPDATE_ONLY, WRAP,
};
use crate::blob_op::{in_expression, on_wire, Bin};
pub use crate::blob_op::{split, Outcome};
use crate::cdt::CdtResult;
use crate::particle_type as pt;
use crate::result::{
    BIN_EXISTS, BIN_NOT_FOUND, BIN_TYPE_ERROR, OP_NOT_APPLICABLE, PARAMETER_ERROR,
};
use crate::value::Value;
use crate::{Particle, ResultCode};

/// Wire op type of a bit read.
pub const BIT_READ: u8 = 12;
/// Wire op type of a bit modify.
pub const BIT_MODIFY: u8 = 13;

/// Applies one bit op to `bin` (None when the record has no such bin).
pub fn apply(op_type: u8, bin: Option<&Particle>, payload: &[u8]) -> Result<CdtResult, ResultCode> {
    let modify = op_type == BIT_MODIFY;
    on_wire(modify, bin, payload, pt::BLOB, |c, args, bin| {
        exec(&parse::parse(c, args, modify)?, bin)
    })
}

/// Runs a parsed op on a bin given as (particle type, bytes).
pub fn exec(op: &BitOp, bin: Bin<'_>) -> Result<Outcome, ResultCode> {
    let refuse = |code: ResultCode| {
        if op.has(NO_FAIL) {
            Ok(Outcome::default())
        } else {
            Err(code)
        }
    };
    let old: &[u8] = match bin {
        Some(_) if !op.is_read() && op.has(CREATE_ONLY) => return refuse(BIN_EXISTS),
        Some((t, _)) if t != pt::BLOB => return Err(BIN_TYPE_ERROR),
        Some((_, data)) => data,
        None if op.is_read() => return Ok(Outcome::default()),
        None if !matches!(op.code, code::RESIZE | code::INSERT) || op.has(UPDATE_ONLY) => {
            return refuse(BIN_NOT_FOUND)
        }
        None => &[],
    };
    let len = old.len() as u64;
    let mut off = op.offset;
    if off < 0 {
        if bin.is_none() || off.unsigned_abs() > len * 8 {
            return Err(PARAMETER_ERROR);
        }
        off += (len * 8) as i64;
    }
    let at = Span::new(off as u64, op.size);
    let blob = match op.code {
        code::RESIZE => return resize(op, old),
        code::INSERT => {
            let mut v = old.to_vec();
            if at.byte >= len {
                v.resize(at.byte as usize, 0);
                v.extend_from_slice(&op.buf);
            } else {
                v.splice(at.byte as usize..at.byte as usize, op.buf.iter().copied());
            }
            v
        }
        code::REMOVE => {
            if at.byte >= len {
                return refuse(PARAMETER_ERROR);
            }
            let end = if at.end_byte() > len {
                if !op.has(PARTIAL) {
                    return refuse(PARAMETER_ERROR);
                }
                len
            } else {
                at.end_byte()
            };
            let mut v = old.to_vec();
            v.drain(at.byte as usize..end as usize);
            v
        }
        code::SET..=code::RSHIFT => {
            if at.byte >= len {
                return refuse(OP_NOT_APPLICABLE);
            }
            let mut size = op.size;
            if at.end_byte() > len {
                if !op.has(PARTIAL) {
                    return refuse(OP_NOT_APPLICABLE);
                }
                size = len * 8 - at.bit;
            }
            let mut v = old.to_vec();
            edit(op, &mut v, at.bit, size);
            v
        }
        _ => {
            if at.byte >= len || at.end_byte() > len {
                return refuse(OP_NOT_APPLICABLE);
            }
            if op.is_read() {
                return Ok(Outcome {
                    value: Some(read(op, old, at.bit)),
                    blob: None,
                });
            }
            let mut v = old.to_vec();
            match integer(op, &v, at.bit) {
                Some(n) => bitbuf::store(&mut v, at.bit, op.size, n),
                None => return refuse(OP_NOT_APPLICABLE),
            }
            v
        }
    };
    if blob.len() as u64 >= MAX_BYTES {
        return Err(PARAMETER_ERROR);
    }
    Ok(Outcome {
        value: None,
        blob: Some(blob),
    })
}

/// Where an op lands: its absolute bit offset, first byte and size.
struct Span {
    bit: u64,
    byte: u64,
    size: u64,
}

impl Span {
    fn new(bit: u64, size: u64) -> Span {
        Span {
            bit,
            byte: bit / 8,
            size,
        }
    }

    /// One past the last byte the op touches.
    fn end_byte(&self) -> u64 {
        self.byte + (self.bit % 8 + self.size).div_ceil(8)
    }
}

fn resize(op: &BitOp, old: &[u8]) -> Result<Outcome, ResultCode> {
    let target = (op.size / 8) as usize;
    let refuse = || {
        if op.has(NO_FAIL) {
            Ok(Outcome::default())
        } else {
            Err(PARAMETER_ERROR)
        }
    };
    if target == old.len() {
        return Ok(Outcome::default());
    }
    if (target < old.len() && op.sub & GROW_ONLY != 0)
        || (target > old.len() && op.sub & SHRINK_ONLY != 0)
    {
        return refuse();
    }
    let front = op.sub & FROM_FRONT != 0;
    let v = if target < old.len() {
        let cut = old.len() - target;
        if front {
            old[cut..].to_vec()
        } else {
            old[..target].to_vec()
        }
    } else {
        let mut v = vec![0u8; target];
        let at = if front { target - old.len() } else { 0 };
        v[at..at + old.len()].copy_from_slice(old);
        v
    };
    Ok(Outcome {
        value: None,
        blob: Some(v),
    })
}

/// The bit edits (set, or, xor, and, not, shifts) on `size` bits at `off`.
fn edit(op: &BitOp, v: &mut [u8], off: u64, size: u64) {
    match op.code {
        code::SET => bitbuf::combine(v, off, size, &op.buf, |_, b| b),
        code::OR => bitbuf::combine(v, off, size, &op.buf, |a, b| a | b),
        code::XOR => bitbuf::combine(v, off, size, &op.buf, |a, b| a ^ b),
        code::AND => bitbuf::combine(v, off, size, &op.buf, |a, b| a & b),
        code::NOT => bitbuf::invert(v, off, size),
        code::LSHIFT => bitbuf::shift_left(v, off, size, op.value),
        _ => bitbuf::shift_right(v, off, size, op.value),
    }
}

fn mask(size: u64) -> u64 {
    u64::MAX >> (64 - size)
}

/// Sign-extends the low `size` bits of `v`.
fn signed(v: u64, size: u64) -> i64 {
    let lead = 64 - size;
    ((v << lead) as i64) >> lead
}

/// The new integer of add / subtract / set_int, or None when it overflows with "fail".
fn integer(op: &BitOp, v: &[u8], off: u64) -> Option<u64> {
    let m = mask(op.size);
    let operand = op.value & m;
    let load = bitbuf::load(v, off, op.size);
    let (mut result, addend) = match op.code {
        code::SET_INT => return Some(operand),
        code::ADD => (load.wrapping_add(operand) & m, operand),
        _ => (
            load.wrapping_sub(operand) & m,
            (operand as i64).wrapping_neg() as u64,
        ),
    };
    if op.sub & WRAP != 0 {
        return Some(result);
    }
    let saturate = op.sub & SATURATE != 0;
    if op.sub & SIGNED != 0 {
        let (l, a, r) = (
            signed(load, op.size),
            signed(addend, op.size),
            signed(result, op.size),
        );
        if l < 0 && a < 0 && r > 0 {
            result = (m >> (op.size - 1)) << (op.size - 1);
        } else if l > 0 && a > 0 && r < 0 {
            result = m >> 1;
        } else {
            return Some(result);
        }
        return saturate.then_some(result);
    }
    let overflow = if op.code == code::ADD {
        result < load
    } else {
        result > load
    };
    if !overflow {
        Some(result)
    } else if !saturate {
        None
    } else if op.code == code::ADD {
        Some(m)
    } else {
        Some(0)
    }
}

/// get, count, lscan, rscan, get_int on `op.size` bits at `off`.
fn read(op: &BitOp, v: &[u8], off: u64) -> Value {
    let size = op.size;
    match op.code {
        code::GET => Value::Bytes(pt::BLOB, bitbuf::extract(v, off, size)),
        code::COUNT => Value::Int(bitbuf::count(v, off, size) as i64),
        code::LSCAN => {
            let want = op.value == 1;
            let hit = (0..size).find(|&i| bitbuf::get(v, off + i) == want);
            Value::Int(hit.map_or(-1, |i| i as i64))
        }
        code::RSCAN => {
            // The server scans back to the start of the first byte, so a match just before
            // the offset gives a negative answer.
            let want = op.value == 1;
            let first = off / 8 * 8;
            let hit = (first..off + size)
                .rev()
                .find(|&i| bitbuf::get(v, i) == want);
            Value::Int(hit.map_or(-1, |i| i as i64 - off as i64))
        }
        _ => {
            let n = bitbuf::load(v, off, size);
            Value::Int(if op.sub & SIGNED != 0 {
                signed(n, size)
            } else {
                n as i64
            })
        }
    }
}

/// A bit op inside an expression: `args` are the evaluated arguments, `bin` the blob they
/// apply to. A modify returns the modified blob; errors are unknown (None).
pub fn eval_call(c: i64, args: &[Value], modify: bool, bin: &Value) -> Option<Value> {
    in_expression(modify, bin, pt::BLOB, |b| {
        exec(&parse::parse(c, args, modify)?, b)
    })
}
