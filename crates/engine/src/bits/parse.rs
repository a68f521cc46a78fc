//! Bit op arguments: `[code, args...]` checked the way the server checks them (a bad argument
//! is a parameter error, before the bin is looked at).

use crate::result::PARAMETER_ERROR;
use crate::value::Value;
use crate::ResultCode;

/// Largest blob, offset or size in bytes (the server's message size limit).
pub const MAX_BYTES: u64 = 128 * 1024 * 1024;

/// Write flags.
pub const CREATE_ONLY: u64 = 1;
pub const UPDATE_ONLY: u64 = 2;
pub const NO_FAIL: u64 = 4;
pub const PARTIAL: u64 = 8;

/// Resize flags.
pub const FROM_FRONT: u64 = 1;
pub const GROW_ONLY: u64 = 2;
pub const SHRINK_ONLY: u64 = 4;

/// Integer flags: signed, and the overflow actions.
pub const SIGNED: u64 = 1;
pub const SATURATE: u64 = 2;
pub const WRAP: u64 = 4;

/// Op codes.
pub mod code {
    pub const RESIZE: i64 = 0;
    pub const INSERT: i64 = 1;
    pub const REMOVE: i64 = 2;
    pub const SET: i64 = 3;
    pub const OR: i64 = 4;
    pub const XOR: i64 = 5;
    pub const AND: i64 = 6;
    pub const NOT: i64 = 7;
    pub const LSHIFT: i64 = 8;
    pub const RSHIFT: i64 = 9;
    pub const ADD: i64 = 10;
    pub const SUBTRACT: i64 = 11;
    pub const SET_INT: i64 = 12;
    pub const GET: i64 = 50;
    pub const COUNT: i64 = 51;
    pub const LSCAN: i64 = 52;
    pub const RSCAN: i64 = 53;
    pub const GET_INT: i64 = 54;
}

/// One argument's kind, in the order the op takes them.
#[derive(Clone, Copy)]
enum Arg {
    /// Byte offset (stored in bits), may be negative.
    ByteOffset,
    /// Bit offset, may be negative.
    Offset,
    /// Byte count > 0 (stored in bits).
    ByteSize,
    /// Byte count >= 0 (stored in bits).
    ByteSizeOrZero,
    /// Integer width in bits, 1..=64.
    IntSize,
    /// Bit count > 0.
    Size,
    /// The bit value a scan looks for.
    Bool,
    /// A shift distance in bits.
    Shift,
    /// An integer operand (any 64-bit pattern).
    Int,
    /// Bytes: the operand of set/or/xor/and/insert.
    Bytes,
    /// Write flags.
    Flags,
    /// Resize flags.
    ResizeFlags,
    /// Signed + overflow action.
    ArithFlags,
    /// Signed only.
    SignFlags,
}

/// A parsed bit op. Offsets and sizes are in bits.
#[derive(Clone, Debug, Default)]
pub struct BitOp {
    pub code: i64,
    pub offset: i64,
    pub size: u64,
    pub value: u64,
    pub buf: Vec<u8>,
    pub flags: u64,
    pub sub: u64,
}

impl BitOp {
    pub fn has(&self, flag: u64) -> bool {
        self.flags & flag != 0
    }

    /// Whether this op is a read (codes 50 and up).
    pub fn is_read(&self) -> bool {
        self.code >= code::GET
    }
}

/// (min args, max args, argument kinds, write flags allowed) for an op code.
fn shape(c: i64) -> Option<(usize, usize, &'static [Arg], u64)> {
    use Arg::*;
    const BOTH: u64 = CREATE_ONLY | UPDATE_ONLY | NO_FAIL;
    const EDIT: u64 = UPDATE_ONLY | NO_FAIL | PARTIAL;
    const INT: u64 = UPDATE_ONLY | NO_FAIL;
    Some(match c {
        code::RESIZE => (1, 3, &[ByteSizeOrZero, Flags, ResizeFlags], BOTH),
        code::INSERT => (2, 3, &[ByteOffset, Bytes, Flags], BOTH),
        code::REMOVE => (2, 3, &[ByteOffset, ByteSize, Flags], EDIT),
        code::SET | code::OR | code::XOR | code::AND => (3, 4, &[Offset, Size, Bytes, Flags], EDIT),
        code::NOT => (2, 3, &[Offset, Size, Flags], EDIT),
        code::LSHIFT | code::RSHIFT => (3, 4, &[Offset, Size, Shift, Flags], EDIT),
        code::ADD | code::SUBTRACT => (3, 5, &[Offset, IntSize, Int, Flags, ArithFlags], INT),
        code::SET_INT => (3, 4, &[Offset, IntSize, Int, Flags], INT),
        code::GET | code::COUNT => (2, 2, &[Offset, Size], 0),
        code::LSCAN | code::RSCAN => (3, 3, &[Offset, Size, Bool], 0),
        code::GET_INT => (2, 3, &[Offset, IntSize, SignFlags], 0),
        _ => return None,
    })
}

/// Parses `code` and its arguments; `modify` says which family the wire op type allows.
pub fn parse(code: i64, args: &[Value], modify: bool) -> Result<BitOp, ResultCode> {
    let (min, max, kinds, allowed) = shape(code).ok_or(PARAMETER_ERROR)?;
    if (code < code::GET) != modify || args.len() < min || args.len() > max {
        return Err(PARAMETER_ERROR);
    }
    let mut op = BitOp {
        code,
        ..BitOp::default()
    };
    for (kind, v) in kinds.iter().zip(args) {
        parse_arg(&mut op, *kind, v, allowed).ok_or(PARAMETER_ERROR)?;
    }
    Ok(op)
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        _ => None,
    }
}

/// An unsigned argument (a negative int reads as its 64-bit pattern, as the server's parser does).
fn uint(v: &Value) -> Option<u64> {
    int(v).map(|i| i as u64)
}

fn parse_arg(op: &mut BitOp, kind: Arg, v: &Value, allowed: u64) -> Option<()> {
    let max_bits = MAX_BYTES * 8;
    match kind {
        Arg::ByteOffset => {
            let o = int(v)?;
            (o.unsigned_abs() <= MAX_BYTES).then_some(())?;
            op.offset = o * 8;
        }
        Arg::Offset => {
            let o = int(v)?;
            (o.unsigned_abs() <= max_bits).then_some(())?;
            op.offset = o;
        }
        Arg::ByteSize | Arg::ByteSizeOrZero => {
            let s = uint(v)?;
            (s <= MAX_BYTES && (s > 0 || matches!(kind, Arg::ByteSizeOrZero))).then_some(())?;
            op.size = s * 8;
        }
        Arg::IntSize => {
            let s = uint(v)?;
            (1..=64).contains(&s).then_some(())?;
            op.size = s;
        }
        Arg::Size => {
            let s = uint(v)?;
            (1..=max_bits).contains(&s).then_some(())?;
            op.size = s;
        }
        Arg::Bool => match v {
            Value::Bool(b) => op.value = u64::from(*b),
            _ => return None,
        },
        Arg::Shift => {
            op.value = uint(v)?;
            (op.value <= max_bits).then_some(())?;
        }
        Arg::Int => op.value = uint(v)?,
        Arg::Bytes => {
            let Value::Bytes(_, b) = v else { return None };
            let bits = b.len() as u64 * 8;
            if b.is_empty() || (op.size != 0 && bits < op.size) {
                return None;
            }
            if op.size == 0 {
                op.size = bits;
            }
            op.buf.clone_from(b);
        }
        Arg::Flags => {
            op.flags = uint(v)?;
            let both = CREATE_ONLY | UPDATE_ONLY;
            (op.flags & !allowed == 0 && op.flags & both != both).then_some(())?;
        }
        Arg::ResizeFlags => {
            op.sub = uint(v)?;
            let both = GROW_ONLY | SHRINK_ONLY;
            let all = FROM_FRONT | both;
            (op.sub & !all == 0 && op.sub & both != both).then_some(())?;
        }
        Arg::ArithFlags => {
            op.sub = uint(v)?;
            let both = SATURATE | WRAP;
            (op.sub & !(SIGNED | both) == 0 && op.sub & both != both).then_some(())?;
        }
        Arg::SignFlags => {
            op.sub = uint(v)?;
            (op.sub & !SIGNED == 0).then_some(())?;
        }
    }
    Some(())
}
