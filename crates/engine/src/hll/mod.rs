//! HyperLogLog operations on HLL bins: the value of an `HLL_READ` (15) / `HLL_MODIFY` (16) wire
//! op, `[code, args...]`, with the server's checks and result codes.
//!
//! Index bits -1 / MinHash bits -1 mean "unset" (taken from the bin when it exists). Adding to or
//! initialising a missing bin needs the index bits (26 without); count refresh and fold need the
//! bin (17); a set union that would lose bits needs `ALLOW_FOLD` (26).

mod murmur;
pub mod sketch;

use self::sketch::{valid_bits, valid_index_bits, valid_minhash_bits, Sketch};
use crate::blob_op::{in_expression, on_wire, Bin, Outcome};
use crate::cdt::CdtResult;
use crate::pack::encode;
use crate::particle_type as pt;
use crate::result::{
    BIN_EXISTS, BIN_NOT_FOUND, BIN_TYPE_ERROR, OP_NOT_APPLICABLE, PARAMETER_ERROR, SERVER_ERROR,
};
use crate::value::{List, Value};
use crate::{Particle, ResultCode};

/// Wire op type of an HLL read.
pub const HLL_READ: u8 = 15;
/// Wire op type of an HLL modify.
pub const HLL_MODIFY: u8 = 16;

/// Write flags.
pub const CREATE_ONLY: u64 = 1;
pub const UPDATE_ONLY: u64 = 2;
pub const NO_FAIL: u64 = 4;
pub const ALLOW_FOLD: u64 = 8;

/// Op codes.
pub mod code {
    pub const INIT: i64 = 0;
    pub const ADD: i64 = 1;
    pub const SET_UNION: i64 = 2;
    pub const REFRESH_COUNT: i64 = 3;
    pub const FOLD: i64 = 4;
    pub const COUNT: i64 = 50;
    pub const UNION: i64 = 51;
    pub const UNION_COUNT: i64 = 52;
    pub const INTERSECT_COUNT: i64 = 53;
    pub const SIMILARITY: i64 = 54;
    pub const DESCRIBE: i64 = 55;
    pub const MAY_CONTAIN: i64 = 56;
}

#[derive(Clone, Copy)]
enum Arg {
    IndexBits,
    MinhashBits,
    Flags,
    Elements,
    Sketches,
    /// Sketches for intersect / similarity: more than two must share non-zero MinHash bits.
    SameSketches,
}

/// A parsed HLL op (`None` bits = unset).
#[derive(Default)]
struct HllOp {
    code: i64,
    p: Option<u8>,
    m: Option<u8>,
    flags: u64,
    elements: Vec<Vec<u8>>,
    sketches: Vec<Sketch>,
}

fn shape(c: i64) -> Option<(usize, usize, &'static [Arg], u64)> {
    use Arg::*;
    Some(match c {
        code::INIT => (
            0,
            3,
            &[IndexBits, MinhashBits, Flags],
            CREATE_ONLY | UPDATE_ONLY | NO_FAIL,
        ),
        code::ADD => (
            1,
            4,
            &[Elements, IndexBits, MinhashBits, Flags],
            CREATE_ONLY | NO_FAIL,
        ),
        code::SET_UNION => (
            1,
            2,
            &[Sketches, Flags],
            CREATE_ONLY | UPDATE_ONLY | ALLOW_FOLD | NO_FAIL,
        ),
        code::REFRESH_COUNT | code::COUNT | code::DESCRIBE => (0, 0, &[], 0),
        code::FOLD => (1, 1, &[IndexBits], 0),
        code::UNION | code::UNION_COUNT => (1, 1, &[Sketches], 0),
        code::INTERSECT_COUNT | code::SIMILARITY => (1, 1, &[SameSketches], 0),
        code::MAY_CONTAIN => (1, 1, &[Elements], 0),
        _ => return None,
    })
}

fn parse(c: i64, args: &[Value], modify: bool) -> Result<HllOp, ResultCode> {
    let (min, max, kinds, allowed) = shape(c).ok_or(PARAMETER_ERROR)?;
    if (c < code::COUNT) != modify || args.len() < min || args.len() > max {
        return Err(PARAMETER_ERROR);
    }
    let mut op = HllOp {
        code: c,
        ..HllOp::default()
    };
    for (kind, v) in kinds.iter().zip(args) {
        parse_arg(&mut op, *kind, v, allowed).ok_or(PARAMETER_ERROR)?;
    }
    Ok(op)
}

fn parse_arg(op: &mut HllOp, kind: Arg, v: &Value, allowed: u64) -> Option<()> {
    match kind {
        Arg::IndexBits => match v.as_int()? {
            -1 => {}
            p if valid_index_bits(p) => op.p = Some(p as u8),
            _ => return None,
        },
        Arg::MinhashBits => match v.as_int()? {
            -1 => {}
            m if valid_minhash_bits(m) => {
                if op.p.is_some_and(|p| !valid_bits(i64::from(p), m)) {
                    return None;
                }
                op.m = Some(m as u8);
            }
            _ => return None,
        },
        Arg::Flags => {
            op.flags = v.as_int()? as u64;
            let both = CREATE_ONLY | UPDATE_ONLY;
            (op.flags & !allowed == 0 && op.flags & both != both).then_some(())?;
        }
        Arg::Elements => {
            let Value::List(l) = v else { return None };
            if l.items.is_empty()
                || l.items
                    .iter()
                    .any(|e| matches!(e, Value::List(_) | Value::Map(_)))
            {
                return None;
            }
            op.elements = l.items.iter().map(encode).collect();
        }
        Arg::Sketches | Arg::SameSketches => {
            let items = match v {
                Value::List(l) if !l.items.is_empty() => l.items.as_slice(),
                Value::List(_) => return None,
                one => std::slice::from_ref(one),
            };
            for item in items {
                let Value::Bytes(_, b) = item else {
                    return None;
                };
                op.sketches.push(Sketch::parse(b)?);
            }
            if matches!(kind, Arg::SameSketches) && op.sketches.len() > 2 {
                let m = op.sketches[0].m;
                (m != 0 && op.sketches.iter().all(|s| s.m == m)).then_some(())?;
            }
        }
    }
    Some(())
}

/// Applies one HLL op to `bin` (None when the record has no such bin).
pub fn apply(op_type: u8, bin: Option<&Particle>, payload: &[u8]) -> Result<CdtResult, ResultCode> {
    let modify = op_type == HLL_MODIFY;
    on_wire(modify, bin, payload, pt::HLL, |c, args, bin| {
        exec(c, args, modify, bin)
    })
}

/// Runs op `c` with decoded `args` on a bin given as (particle type, bytes).
pub fn exec(c: i64, args: &[Value], modify: bool, bin: Bin<'_>) -> Result<Outcome, ResultCode> {
    let current = match bin {
        Some((t, _)) if t != pt::HLL => return Err(BIN_TYPE_ERROR),
        Some((_, data)) => Some(Sketch::parse(data).ok_or(SERVER_ERROR)?),
        None => None,
    };
    let mut op = parse(c, args, modify)?;
    if !modify {
        let Some(cur) = current else {
            return Ok(Outcome::default());
        };
        return read(&op, &cur).map(|v| Outcome {
            value: Some(v),
            blob: None,
        });
    }
    let refused = match &current {
        Some(_) if op.flags & CREATE_ONLY != 0 => Some(BIN_EXISTS),
        None if op.flags & UPDATE_ONLY != 0 => Some(BIN_NOT_FOUND),
        _ => None,
    };
    if let Some(e) = refused {
        return if op.flags & NO_FAIL != 0 {
            Ok(Outcome::default())
        } else {
            Err(e)
        };
    }
    let (sketch, value) = write(&mut op, current)?;
    Ok(Outcome {
        value,
        blob: Some(sketch.to_bytes()),
    })
}

/// A modify op: the new sketch and the op's result.
fn write(op: &mut HllOp, cur: Option<Sketch>) -> Result<(Sketch, Option<Value>), ResultCode> {
    match op.code {
        code::INIT | code::ADD => {
            let (p, m) = match &cur {
                None => (op.p.ok_or(OP_NOT_APPLICABLE)?, op.m.unwrap_or(0)),
                Some(s) if op.code == code::ADD => (s.p, s.m),
                Some(s) => (op.p.unwrap_or(s.p), op.m.unwrap_or(s.m)),
            };
            if !valid_bits(i64::from(p), i64::from(m)) {
                return Err(OP_NOT_APPLICABLE);
            }
            if op.code == code::INIT {
                return Ok((Sketch::new(p, m), None));
            }
            let mut s = cur.unwrap_or_else(|| Sketch::new(p, m));
            let added = op.elements.iter().filter(|e| s.add(e)).count();
            Ok((s, Some(Value::Int(added as i64))))
        }
        code::SET_UNION => {
            let given: Vec<&Sketch> = op.sketches.iter().collect();
            let (p, m) = sketch::template(&given);
            let (p, m) = match &cur {
                None => (p, m),
                Some(s) if op.flags & ALLOW_FOLD != 0 => (s.p.min(p), if s.m == m { m } else { 0 }),
                Some(s) if s.p > p || (s.m != 0 && s.m != m) => return Err(OP_NOT_APPLICABLE),
                Some(s) => (s.p, s.m),
            };
            let mut out = Sketch::new(p, m);
            for s in given.iter().copied().chain(cur.as_ref()) {
                sketch::union_into(&mut out, s);
            }
            Ok((out, None))
        }
        code::REFRESH_COUNT => {
            let mut s = cur.ok_or(BIN_NOT_FOUND)?;
            s.cache = s.estimate();
            let n = s.cache as i64;
            Ok((s, Some(Value::Int(n))))
        }
        _ => {
            let s = cur.ok_or(BIN_NOT_FOUND)?;
            let p = op.p.unwrap_or(u8::MAX);
            if s.m > 0 || s.p < p {
                return Err(OP_NOT_APPLICABLE);
            }
            if s.p == p {
                return Ok((s, None));
            }
            let mut out = Sketch::new(p, 0);
            sketch::union_into(&mut out, &s);
            Ok((out, None))
        }
    }
}

/// A read op on the bin's sketch.
fn read(op: &HllOp, cur: &Sketch) -> Result<Value, ResultCode> {
    let mut all: Vec<&Sketch> = op.sketches.iter().collect();
    all.push(cur);
    Ok(match op.code {
        code::COUNT => Value::Int(cur.estimate() as i64),
        code::DESCRIBE => Value::List(List {
            flags: 0,
            items: vec![Value::Int(i64::from(cur.p)), Value::Int(i64::from(cur.m))],
        }),
        code::UNION => Value::Bytes(pt::HLL, sketch::union(&all).to_bytes()),
        code::UNION_COUNT => Value::Int(sketch::union(&all).estimate() as i64),
        code::MAY_CONTAIN => Value::Int(i64::from(op.elements.iter().all(|e| cur.may_contain(e)))),
        _ => {
            if op.sketches.len() > 2 && (cur.m == 0 || cur.m != op.sketches[0].m) {
                return Err(OP_NOT_APPLICABLE);
            }
            if op.code == code::INTERSECT_COUNT {
                Value::Int(sketch::intersect_count(&all) as i64)
            } else {
                Value::Float(sketch::similarity(&all))
            }
        }
    })
}

/// An HLL op inside an expression: a modify returns the new sketch; errors are unknown.
pub fn eval_call(c: i64, args: &[Value], modify: bool, bin: &Value) -> Option<Value> {
    in_expression(modify, bin, pt::HLL, |b| exec(c, args, modify, b))
}
