//! CDT (list/map) operations: the value bytes of a `CDT_READ`/`CDT_MODIFY` wire op applied to a bin.
//!
//! Payload: `[op, args...]`, or `[0xff, [ctx...], [op, args...]]` for nested contexts, or a
//! path op `[0xfe, [ctx...], flags, ...]` (see [`path`]). List op codes are below 64, map op
//! codes 64 and above (see the `aerospike` crate).

mod args;
pub mod ctx;
pub mod list;
pub mod map;
pub mod path;
mod rank_heap;
pub mod select;
mod value_list;

use rmpv::Value as Mp;

use self::args::Args;
use self::ctx::Kind;
use crate::pack::{from_mp, from_particle, read_mp, to_particle};
use crate::result::{BIN_TYPE_ERROR, PARAMETER_ERROR};
use crate::value::{List, Map, Value};
use crate::{Particle, ResultCode};

/// Wire op type of a CDT read.
pub const CDT_READ: u8 = 3;
/// Wire op type of a CDT modify.
pub const CDT_MODIFY: u8 = 4;

/// What an operation does to its bin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BinChange {
    /// The bin is left as it was.
    Unchanged,
    /// The bin takes this new value.
    Set(Particle),
    /// The bin is removed.
    Remove,
}

/// Outcome of one CDT operation: the bin change and the value returned to the client (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CdtResult {
    pub bin: BinChange,
    pub value: Option<Particle>,
}

/// A parsed CDT op.
pub struct Op {
    pub code: i64,
    pub args: Args,
    pub ctx: Vec<ctx::Step>,
}

impl Op {
    /// Builds an op from its decoded msgpack form.
    pub fn from_mp(mp: Mp) -> Result<Op, ResultCode> {
        let Mp::Array(mut top) = mp else {
            return Err(PARAMETER_ERROR);
        };
        let mut steps = Vec::new();
        if top.len() == 3 && top.first().and_then(Mp::as_i64) == Some(0xff) {
            let inner = top.pop().ok_or(PARAMETER_ERROR)?;
            let ctx_items = match from_mp(top.pop().ok_or(PARAMETER_ERROR)?)? {
                Value::List(l) => l.items,
                _ => return Err(PARAMETER_ERROR),
            };
            steps = ctx::parse(ctx_items)?;
            let Mp::Array(t) = inner else {
                return Err(PARAMETER_ERROR);
            };
            top = t;
        }
        let mut it = top.into_iter();
        let code = it.next().and_then(|m| m.as_i64()).ok_or(PARAMETER_ERROR)?;
        Ok(Op {
            code,
            args: Args(it.collect()),
            ctx: steps,
        })
    }

    fn kind(&self) -> Kind {
        if self.code >= 64 {
            Kind::Map
        } else {
            Kind::List
        }
    }
    /// Whether the op only reads (a `CDT_READ` may carry nothing else).
    pub fn is_read(&self) -> bool {
        list::is_read(self.code) || map::is_read(self.code)
    }
    fn creates(&self) -> bool {
        list::creates(self.code) || map::creates(self.code)
    }
    /// The order attribute for a container this op creates.
    fn create_flags(&self) -> Result<u8, ResultCode> {
        let pos = match self.code {
            0 => Some(0),
            1 | 2 => Some(1),
            12 => Some(2),
            c => map::attr_arg(c),
        };
        let attr = match pos {
            Some(p) => self.args.opt_int(p)?.unwrap_or(0),
            None => 0,
        };
        Ok(match self.kind() {
            Kind::List => (attr & 0x11) as u8,
            Kind::Map => (attr & 0x13) as u8,
        })
    }
}

/// Whether a `CDT_READ` may carry this payload: a read op or a path select.
pub fn readable(payload: &[u8]) -> bool {
    match read_mp(&mut &payload[..]) {
        Ok(mp) if path::is_path(&mp) => path::readable(&mp),
        Ok(mp) => Op::from_mp(mp).is_ok_and(|o| o.is_read()),
        Err(_) => false,
    }
}

/// Applies one CDT op. `op_type` is the wire op (3 = CDT_READ, 4 = CDT_MODIFY), `bin` the current
/// bin (None when absent), `payload` the op's value bytes exactly as the client sent them.
pub fn apply(op_type: u8, bin: Option<&Particle>, payload: &[u8]) -> Result<CdtResult, ResultCode> {
    let mp = read_mp(&mut &payload[..])?;
    let modify = op_type == CDT_MODIFY;
    if path::is_path(&mp) {
        return path::apply_op(modify, bin, &mp);
    }
    let op = Op::from_mp(mp)?;
    if !modify && !op.is_read() {
        return Err(PARAMETER_ERROR);
    }
    let current = bin.map(from_particle).transpose()?;
    let (value, new_root) = apply_value(&op, current, modify)?;
    let change = match new_root {
        Some(v) if modify && !op.is_read() => {
            BinChange::Set(to_particle(&v).ok_or(PARAMETER_ERROR)?)
        }
        _ => BinChange::Unchanged,
    };
    Ok(CdtResult {
        bin: change,
        value: value.as_ref().and_then(to_particle),
    })
}

/// Applies a parsed op to a decoded bin value; returns (client result, new bin value). The new
/// bin value is None when the bin stays absent.
pub fn apply_value(
    op: &Op,
    current: Option<Value>,
    modify: bool,
) -> Result<(Option<Value>, Option<Value>), ResultCode> {
    let first_kind = op.ctx.first().map_or(op.kind(), ctx::Step::kind);
    let mut root = match current {
        Some(v @ (Value::List(_) | Value::Map(_))) => v,
        Some(_) => return Err(BIN_TYPE_ERROR),
        None if modify && (op.creates() || op.ctx.first().is_some_and(|s| s.create != 0)) => {
            if op.ctx.is_empty() {
                new_top(op.kind(), op.create_flags()?)
            } else {
                ctx::new_container(first_kind, 0)
            }
        }
        // Reads and non-creating ops on a missing bin return nothing.
        None => return Ok((None, None)),
    };
    let out = {
        let target = ctx::walk(&mut root, &op.ctx, op.kind(), modify)?;
        if target.is_nil() && modify && op.creates() {
            *target = new_top(op.kind(), op.create_flags()?);
        }
        match (target, op.kind()) {
            (Value::List(l), Kind::List) => list::apply(l, op.code, &op.args)?,
            (Value::Map(m), Kind::Map) => map::apply(m, op.code, &op.args)?,
            _ => return Err(BIN_TYPE_ERROR),
        }
    };
    if !op.ctx.is_empty() {
        ctx::normalize(&mut root);
    }
    Ok((out, Some(root)))
}

fn new_top(kind: Kind, flags: u8) -> Value {
    match kind {
        Kind::List => Value::List(List {
            flags,
            items: vec![],
        }),
        Kind::Map => Value::Map(Map {
            flags,
            entries: vec![],
        }),
    }
}
