//! Path expressions (server 8.1): the select op (code 0xfe) walks a bin's nested lists and
//! maps along a context and answers the matching tree or the selected leaves; with the apply
//! flag it replaces (or removes) each selected leaf with a modify expression's result.
//!
//! Payload `[0xfe, [ctx_type, value, ...], flags, modify exp?]`. Besides the plain steps (list
//! index, rank, value; map index, rank, key, value), a step may be 0x04 (every child: value
//! `true`, or the children a filter expression passes), 0x2a (the map entries whose key is in a
//! list) or 0x204 (an extra filter on the step before it). Filters and the modify expression
//! read the element through loop variables. Flags: the select type in the low nibble (0 tree,
//! 1 values, 2 map keys, 3 keys and values, 4 apply) and 0x10, no-fail.

mod walk;

use rmpv::Value as Mp;

use super::{BinChange, CdtResult};
use crate::exp::ElementExp;
use crate::pack::{from_mp, from_particle, to_particle};
use crate::particle_type as pt;
use crate::result::{BIN_TYPE_ERROR, PARAMETER_ERROR};
use crate::value::Value;
use crate::{Particle, ResultCode};

/// Op code of a path select (and apply).
pub const SELECT: i64 = 0xfe;

const MAX_LEVELS: usize = 64;
const NO_FAIL: i64 = 0x10;
/// Context step types (`ctx_type & 0x0f`) and the flag that joins a filter to the step before.
const BY_INDEX: u64 = 0;
const BY_RANK: u64 = 1;
const BY_KEY: u64 = 2;
const BY_VALUE: u64 = 3;
const BY_EXP: u64 = 4;
const BY_KEY_LIST: u64 = 10;
const AND: u64 = 0x200;

/// What a path op answers (or does).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The bin's tree cut down to the selected branches.
    Tree,
    /// A flat list of the selected leaves' values.
    Values,
    /// A flat list of the selected leaves' map keys.
    Keys,
    /// A flat list of key, value, key, value...
    KeysValues,
    /// The modify expression's result replaces each selected leaf.
    Apply,
}

impl Mode {
    fn keys(self) -> bool {
        matches!(self, Mode::Keys | Mode::KeysValues)
    }
    fn values(self) -> bool {
        matches!(self, Mode::Values | Mode::KeysValues)
    }
}

/// How a level picks among a container's children.
enum Pick {
    Index(i64),
    Rank(i64),
    Key(Value),
    Value(Value),
    KeysIn(Value),
    /// Every child, or those the filter passes.
    Children(Option<ElementExp>),
}

/// One level of the walk.
struct Level {
    ctx_type: u64,
    pick: Pick,
    /// A filter joined by an AND step.
    and: Option<ElementExp>,
    anded: bool,
}

/// A parsed path op.
pub struct Path {
    levels: Vec<Level>,
    mode: Mode,
    no_fail: bool,
    modify: Option<ElementExp>,
}

impl Path {
    /// Parses `[0xfe, ctx, flags, modify exp?]`; `modify_op` says whether the op may write
    /// (the apply flag is refused in a read).
    fn parse(op: &[Mp], modify_op: bool) -> Result<Path, ResultCode> {
        let Some(Mp::Array(ctx)) = op.get(1) else {
            return Err(PARAMETER_ERROR);
        };
        let levels = levels(ctx)?;
        let flags = op.get(2).and_then(int).ok_or(PARAMETER_ERROR)?;
        let mode = match flags & 0xf {
            0 => Mode::Tree,
            1 => Mode::Values,
            2 => Mode::Keys,
            3 => Mode::KeysValues,
            4 => Mode::Apply,
            _ => return Err(PARAMETER_ERROR),
        };
        let apply = mode == Mode::Apply;
        if op.len() != 3 + usize::from(apply) || (apply && !modify_op) {
            return Err(PARAMETER_ERROR);
        }
        let modify = match op.get(3) {
            Some(exp) => Some(ElementExp::new(exp.clone())?),
            None => None,
        };
        Ok(Path {
            levels,
            mode,
            no_fail: flags & NO_FAIL != 0,
            modify,
        })
    }
}

fn int(m: &Mp) -> Option<i64> {
    m.as_i64().or_else(|| m.as_u64().map(|u| u as i64))
}

/// Parses the flat `[ctx_type, value, ...]` context into levels (AND steps join the level
/// before them).
fn levels(ctx: &[Mp]) -> Result<Vec<Level>, ResultCode> {
    if ctx.is_empty() || !ctx.len().is_multiple_of(2) || ctx.len() / 2 > MAX_LEVELS {
        return Err(PARAMETER_ERROR);
    }
    let mut out: Vec<Level> = Vec::with_capacity(ctx.len() / 2);
    for pair in ctx.chunks(2) {
        let ctx_type = pair[0].as_u64().ok_or(PARAMETER_ERROR)?;
        let value = &pair[1];
        if ctx_type & AND != 0 {
            let prev = out.last_mut().ok_or(PARAMETER_ERROR)?;
            if ctx_type != AND | BY_EXP || prev.anded || prev.ctx_type & 0x0f == BY_EXP {
                return Err(PARAMETER_ERROR);
            }
            prev.anded = true;
            prev.and = filter(value)?;
            continue;
        }
        let pick = match ctx_type & 0x0f {
            BY_INDEX => Pick::Index(value.as_i64().ok_or(PARAMETER_ERROR)?),
            BY_RANK => Pick::Rank(value.as_i64().ok_or(PARAMETER_ERROR)?),
            BY_KEY => Pick::Key(from_mp(value.clone())?),
            BY_VALUE => Pick::Value(from_mp(value.clone())?),
            BY_KEY_LIST => Pick::KeysIn(from_mp(value.clone())?),
            BY_EXP => Pick::Children(filter(value)?),
            _ => return Err(PARAMETER_ERROR),
        };
        out.push(Level {
            ctx_type,
            pick,
            and: None,
            anded: false,
        });
    }
    Ok(out)
}

/// A filter step's value: `true` (no filter) or an expression.
fn filter(value: &Mp) -> Result<Option<ElementExp>, ResultCode> {
    match value {
        Mp::Boolean(true) => Ok(None),
        Mp::Array(_) => ElementExp::new(value.clone()).map(Some),
        _ => Err(PARAMETER_ERROR),
    }
}

fn items(op: &Mp) -> &[Mp] {
    match op {
        Mp::Array(items) => items,
        _ => &[],
    }
}

/// Whether a CDT op payload is a path op.
pub fn is_path(op: &Mp) -> bool {
    items(op).first().and_then(Mp::as_i64) == Some(SELECT)
}

/// Whether a path op may run in a read (a select, not an apply) and is well formed.
pub fn readable(op: &Mp) -> bool {
    is_path(op) && Path::parse(items(op), false).is_ok()
}

/// Runs a path op from the wire (`modify` for a `CDT_MODIFY`) on a bin. A read of a missing
/// bin answers nothing; anything but a list or map bin (a missing one included, for a modify)
/// is a bin type error. A select answers its result and leaves the bin; an apply rewrites
/// the bin and answers nothing.
pub fn apply_op(modify: bool, bin: Option<&Particle>, op: &Mp) -> Result<CdtResult, ResultCode> {
    let unchanged = |value| CdtResult {
        bin: BinChange::Unchanged,
        value,
    };
    let bin = match bin {
        None if !modify => return Ok(unchanged(None)),
        Some(b) if matches!(b.ptype, pt::LIST | pt::MAP) => b,
        _ => return Err(BIN_TYPE_ERROR),
    };
    let path = Path::parse(items(op), modify)?;
    let mut root = from_particle(bin)?;
    if path.mode != Mode::Apply {
        return Ok(unchanged(to_particle(&path.select(&root)?)));
    }
    path.apply(&mut root)?;
    Ok(CdtResult {
        bin: BinChange::Set(to_particle(&root).ok_or(PARAMETER_ERROR)?),
        value: None,
    })
}

/// A path op called from an expression on `target`: a select's result, or (a modify call) the
/// container after the apply. None (unknown) when the op fails.
pub fn eval_call(op: &Mp, target: Value, modify: bool) -> Option<Value> {
    if !matches!(target, Value::List(_) | Value::Map(_)) {
        return None;
    }
    let path = Path::parse(items(op), modify).ok()?;
    if path.mode == Mode::Apply {
        let mut root = target;
        path.apply(&mut root).ok()?;
        return Some(root);
    }
    let out = path.select(&target).ok()?;
    Some(if modify { target } else { out })
}
