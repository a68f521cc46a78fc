//! Op tuples `(name, bin, *args)` written as the wire's operations, for requests the SDK
//! sends itself (`request::operate`): scalar, expression, list, map, bit and HLL ops.

mod bits;
mod cdt;
mod list;
mod map;
pub(crate) mod pack;
mod spec;

use aerospike::Value;
use base64::Engine;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert::args::{list_order, map_order, Args};
use crate::convert::values::{to_value, Ctx};
use crate::expr::to_expression;
use pack::particle;
use spec::Spec;

/// Operation types of the wire.
mod kind {
    pub const READ: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const CDT_READ: u8 = 3;
    pub const CDT_WRITE: u8 = 4;
    pub const INCR: u8 = 5;
    pub const EXP_READ: u8 = 7;
    pub const EXP_WRITE: u8 = 8;
    pub const APPEND: u8 = 9;
    pub const PREPEND: u8 = 10;
    pub const TOUCH: u8 = 11;
    pub const BIT_READ: u8 = 12;
    pub const BIT_WRITE: u8 = 13;
    pub const DELETE: u8 = 14;
    pub const HLL_READ: u8 = 15;
    pub const HLL_WRITE: u8 = 16;
}

const INFO1_READ: u8 = 1;
const INFO1_GET_ALL: u8 = 1 << 1;
const INFO1_NOBINDATA: u8 = 1 << 5;
const INFO2_WRITE: u8 = 1;
const INFO2_DELETE: u8 = 1 << 1;
const INFO2_RESPOND_ALL_OPS: u8 = 1 << 7;

/// Longest bin name a server takes.
const MAX_BIN_NAME: usize = 15;

/// An op list as the wire carries it, and the header bits it asks for.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct WireOps {
    /// The ops, each with its size, type, particle type and bin name.
    pub bytes: Vec<u8>,
    pub count: u16,
    /// `info1` bits: read, get all, no bin data.
    pub read_attr: u8,
    /// `info2` bits: write.
    pub write_attr: u8,
    /// Whether an op needs the server to answer every op in its own slot.
    pub respond_all: bool,
    /// A put or a delete, not an operate: no read flags, nothing answered per op.
    pub record_write: bool,
    /// A delete: "not found" is its answer (the record was not there), not a failure.
    pub delete: bool,
}

impl WireOps {
    /// A lone `touch`.
    pub fn touch() -> Self {
        let mut ops = WireOps {
            count: 1,
            write_attr: INFO2_WRITE,
            respond_all: true,
            ..WireOps::default()
        };
        ops.bytes
            .extend_from_slice(&[0, 0, 0, 4, kind::TOUCH, particle::NULL, 0, 0]);
        ops
    }

    /// A put of `bins` (each `(name, value)`): a write op each.
    pub fn puts(bins: &[aerospike::Bin]) -> Result<Self, String> {
        let mut ops = WireOps {
            write_attr: INFO2_WRITE,
            record_write: true,
            ..WireOps::default()
        };
        for bin in bins {
            if bin.name.len() > MAX_BIN_NAME {
                return Err(format!(
                    "bin name {:?} is {} bytes long; a server takes at most {MAX_BIN_NAME}",
                    bin.name,
                    bin.name.len()
                ));
            }
            let start = ops.bytes.len();
            ops.bytes
                .extend_from_slice(&[0, 0, 0, 0, kind::WRITE, 0, 0, bin.name.len() as u8]);
            ops.bytes.extend_from_slice(bin.name.as_bytes());
            ops.bytes[start + 5] = pack::particle_of(&mut ops.bytes, &bin.value)?;
            let size = u32::try_from(ops.bytes.len() - start - 4)
                .map_err(|_| "a bin larger than a message can carry".to_owned())?;
            ops.bytes[start..start + 4].copy_from_slice(&size.to_be_bytes());
            ops.count = ops
                .count
                .checked_add(1)
                .ok_or("more bins than one request can carry (65,535)")?;
        }
        Ok(ops)
    }

    /// The header bits of a background job's `count` write ops (or its UDF): a write,
    /// answered as a whole.
    pub fn background(count: u16) -> Self {
        WireOps {
            count,
            write_attr: INFO2_WRITE,
            record_write: true,
            ..WireOps::default()
        }
    }

    /// A delete of the record.
    pub fn delete() -> Self {
        WireOps {
            write_attr: INFO2_WRITE | INFO2_DELETE,
            record_write: true,
            delete: true,
            ..WireOps::default()
        }
    }

    /// Whether an op writes.
    pub fn writes(&self) -> bool {
        self.write_attr & INFO2_WRITE != 0
    }

    /// The `info2` bits, with "respond to every op" when an op or the caller asks for it (it
    /// is left out with "get all", which answers whole bins).
    pub fn info2(&self, respond_all: bool) -> u8 {
        let respond_all = (respond_all || self.respond_all) && !self.record_write;
        if respond_all && self.read_attr & INFO1_GET_ALL == 0 {
            self.write_attr | INFO2_RESPOND_ALL_OPS
        } else {
            self.write_attr
        }
    }

    /// Append the op in tuple `t`; whether it only reads.
    pub(crate) fn push(&mut self, t: &Bound<'_, PyTuple>) -> PyResult<bool> {
        let a = Args::new(t, "op")?;
        let name = a.name();
        let start = self.bytes.len();
        let (op, respond_all) = if let Some(f) = name.strip_prefix("list_") {
            (self.list(f, &a)?, false)
        } else if let Some(f) = name.strip_prefix("map_") {
            (self.map(f, &a)?, true)
        } else if let Some(f) = name.strip_prefix("bit_") {
            let op = (kind::BIT_READ, kind::BIT_WRITE);
            (self.flat(f, &a, bits::BIT_OPS, op)?, true)
        } else if let Some(f) = name.strip_prefix("hll_") {
            let op = (kind::HLL_READ, kind::HLL_WRITE);
            (self.flat(f, &a, bits::HLL_OPS, op)?, true)
        } else {
            self.scalar(name, &a)?
        };
        let size = u32::try_from(self.bytes.len() - start - 4)
            .map_err(|_| a.err("the operation is larger than a message can carry"))?;
        self.bytes[start..start + 4].copy_from_slice(&size.to_be_bytes());
        self.count = self
            .count
            .checked_add(1)
            .ok_or_else(|| a.err("more operations than one request can carry (65,535)"))?;
        let reads = matches!(
            op,
            kind::READ | kind::CDT_READ | kind::EXP_READ | kind::BIT_READ | kind::HLL_READ
        );
        if reads {
            self.read_attr |= INFO1_READ;
        } else {
            self.write_attr |= INFO2_WRITE;
        }
        self.respond_all |= respond_all || !matches!(op, kind::READ | kind::CDT_READ);
        Ok(reads)
    }

    /// The op's header (its size is written once the payload is): type, particle, bin name.
    fn head(&mut self, a: &Args<'_, '_>, op: u8, ptype: u8, bin: &str) -> PyResult<()> {
        if bin.len() > MAX_BIN_NAME {
            return Err(a.err(format!(
                "bin name {bin:?} is {} bytes long; a server takes at most {MAX_BIN_NAME}",
                bin.len()
            )));
        }
        self.bytes.extend_from_slice(&[0, 0, 0, 0, op, ptype, 0]);
        #[allow(clippy::cast_possible_truncation)]
        self.bytes.push(bin.len() as u8);
        self.bytes.extend_from_slice(bin.as_bytes());
        Ok(())
    }

    /// A scalar op: its type, and whether it needs "respond to every op" of itself.
    fn scalar(&mut self, name: &str, a: &Args<'_, '_>) -> PyResult<(u8, bool)> {
        let op = match name {
            "read" => {
                a.arity(1)?;
                self.head(a, kind::READ, particle::NULL, &bin_name(a)?)?;
                kind::READ
            }
            "read_all" | "read_header" => {
                self.read_attr |= if name == "read_all" {
                    INFO1_GET_ALL
                } else {
                    INFO1_NOBINDATA
                };
                self.head(a, kind::READ, particle::NULL, "")?;
                kind::READ
            }
            "touch" | "delete" => {
                let op = if name == "touch" {
                    kind::TOUCH
                } else {
                    kind::DELETE
                };
                self.head(a, op, particle::NULL, "")?;
                op
            }
            "write" | "add" | "append" | "prepend" => {
                a.arity(2)?;
                let bin = bin_name(a)?;
                let v = to_value(&a.item(2)?, Ctx::bin(&bin))?;
                let op = match (name, &v) {
                    ("write", _) => kind::WRITE,
                    ("add", Value::Int(_) | Value::Float(_)) => kind::INCR,
                    ("append", Value::String(_) | Value::Blob(_)) => kind::APPEND,
                    ("prepend", Value::String(_) | Value::Blob(_)) => kind::PREPEND,
                    _ => return Err(a.err(format!("bin {bin:?}: wrong value type for {name}"))),
                };
                let at = self.bytes.len() + 5;
                self.head(a, op, 0, &bin)?;
                let ptype = pack::particle_of(&mut self.bytes, &v).map_err(|m| a.err(m))?;
                self.bytes[at] = ptype;
                op
            }
            "exp_read" | "exp_write" => {
                a.arity(3)?;
                let op = if name == "exp_read" {
                    kind::EXP_READ
                } else {
                    kind::EXP_WRITE
                };
                let exp = expression_bytes(&to_expression(&a.item(2)?)?).map_err(|m| a.err(m))?;
                self.head(a, op, particle::BLOB, &a.str(1)?)?;
                pack::array_begin(&mut self.bytes, 2);
                self.bytes.extend_from_slice(&exp);
                pack::int(&mut self.bytes, a.int(3)?);
                op
            }
            _ => return Err(a.err("unknown op")),
        };
        Ok((op, false))
    }

    /// The CDT op header, then the payload's start (context and op code).
    fn cdt_begin(
        &mut self,
        a: &Args<'_, '_>,
        writes: bool,
        (code, n_args, create_flag): (u8, usize, u16),
    ) -> PyResult<u8> {
        let op = if writes {
            kind::CDT_WRITE
        } else {
            kind::CDT_READ
        };
        let ctx = cdt::steps(&a.item(2)?)?;
        self.head(a, op, particle::BLOB, &bin_name(a)?)?;
        cdt::begin(&mut self.bytes, &ctx, create_flag, code, n_args).map_err(|m| a.err(m))?;
        Ok(op)
    }

    fn table_op(
        &mut self,
        a: &Args<'_, '_>,
        spec: &Spec,
        check_order: fn(i64) -> Result<u8, String>,
    ) -> PyResult<u8> {
        args_after_ctx(a, spec.after_ctx)?;
        let n = spec::count_args(a, spec)?;
        let op = self.cdt_begin(a, spec.writes, (spec.code, n, 0))?;
        spec::pack_args(&mut self.bytes, a, spec, check_order)?;
        Ok(op)
    }

    /// A bit or HLL op of `table`: no context, its args right after the bin.
    fn flat(
        &mut self,
        f: &str,
        a: &Args<'_, '_>,
        table: &[Spec],
        (read_op, write_op): (u8, u8),
    ) -> PyResult<u8> {
        let Some(spec) = table.iter().find(|s| s.name == f) else {
            return Err(a.err("unknown op"));
        };
        a.arity(spec.after_ctx + 1)?;
        let op = if spec.writes { write_op } else { read_op };
        self.head(a, op, particle::BLOB, &bin_name(a)?)?;
        let n = spec::count_args(a, spec)?;
        pack::array_begin(&mut self.bytes, n + 1);
        pack::int(&mut self.bytes, i64::from(spec.code));
        spec::pack_args(&mut self.bytes, a, spec, list_order_byte)?;
        Ok(op)
    }

    fn list(&mut self, f: &str, a: &Args<'_, '_>) -> PyResult<u8> {
        if f == "create" {
            args_after_ctx(a, 2)?;
            let order = list_order_byte(a.int(3)?).map_err(|m| a.err(m))?;
            let flag = cdt::list_create_flag(order == 1, a.bool(4)?);
            return self.create(a, 0, order, flag);
        }
        match list::OPS.iter().find(|s| s.name == f) {
            Some(spec) => self.table_op(a, spec, list_order_byte),
            None => Err(a.err("unknown list op")),
        }
    }

    fn map(&mut self, f: &str, a: &Args<'_, '_>) -> PyResult<u8> {
        match f {
            "create" => {
                args_after_ctx(a, 1)?;
                let order = map_order_byte(a.int(3)?).map_err(|m| a.err(m))?;
                self.create(a, map::SET_TYPE, order, cdt::map_create_flag(order))
            }
            "set_policy" => {
                args_after_ctx(a, 1)?;
                let (order, _) = map_policy(a, 3)?;
                let op = self.cdt_begin(a, true, (map::SET_TYPE, 1, 0))?;
                pack::int(&mut self.bytes, i64::from(order));
                Ok(op)
            }
            "put" => {
                args_after_ctx(a, 3)?;
                let (order, flags) = map_policy(a, 3)?;
                let (key, val) = (a.value(4)?, a.value(5)?);
                let with_flags = flags != 0;
                let with_val = with_flags || !matches!(val, Value::Nil);
                let n = 2 + usize::from(with_val) + usize::from(with_flags);
                let op = self.cdt_begin(a, true, (map::PUT, n, 0))?;
                spec::value(&mut self.bytes, a, &key)?;
                if with_val {
                    spec::value(&mut self.bytes, a, &val)?;
                }
                pack::int(&mut self.bytes, i64::from(order));
                if with_flags {
                    pack::int(&mut self.bytes, i64::from(flags));
                }
                Ok(op)
            }
            "put_items" => {
                args_after_ctx(a, 2)?;
                let (order, flags) = map_policy(a, 3)?;
                let value = a.value(4)?;
                let items: Vec<(&Value, &Value)> = match &value {
                    Value::OrderedMap(items) => items.iter().collect(),
                    Value::HashMap(items) => items.iter().collect(),
                    _ => return Err(a.err("items must be a dict")),
                };
                let n = 2 + usize::from(flags != 0);
                let op = self.cdt_begin(a, true, (map::PUT_ITEMS, n, 0))?;
                let packed = if order == 0 {
                    pack::entries(&mut self.bytes, items.len(), false, items.iter().copied())
                } else {
                    let mut sorted = items.clone();
                    sorted.sort_by(|x, y| x.0.cmp(y.0));
                    pack::entries(&mut self.bytes, sorted.len(), true, sorted.into_iter())
                };
                packed.map_err(|m| a.err(m))?;
                pack::int(&mut self.bytes, i64::from(order));
                if flags != 0 {
                    pack::int(&mut self.bytes, i64::from(flags));
                }
                Ok(op)
            }
            _ => match map::OPS.iter().find(|s| s.name == f) {
                Some(spec) => self.table_op(a, spec, map_order_byte),
                None => Err(a.err("unknown map op")),
            },
        }
    }

    /// A list or map `create`: under a context the create flag rides on the last step and
    /// the order byte follows the code; with none it is a plain "set type".
    fn create(&mut self, a: &Args<'_, '_>, code: u8, order: u8, flag: u16) -> PyResult<u8> {
        let has_ctx = !a.item(2)?.is_none();
        let op = self.cdt_begin(a, true, (code, 1, if has_ctx { flag } else { 0 }))?;
        pack::int(&mut self.bytes, i64::from(order));
        Ok(op)
    }
}

fn bin_name(a: &Args<'_, '_>) -> PyResult<String> {
    a.str(1).map_err(|_| a.err("bin name must be a str"))
}

/// Check that a CDT op tuple has `k` arguments after its bin and ctx.
fn args_after_ctx(a: &Args<'_, '_>, k: usize) -> PyResult<()> {
    super::args_after_ctx(a, k)
}

fn list_order_byte(order: i64) -> Result<u8, String> {
    list_order(order).map(|o| o as u8)
}

fn map_order_byte(order: i64) -> Result<u8, String> {
    map_order(order).map(|o| o as u8)
}

/// A map policy tuple `(order, flags)` at `i`, its order checked.
fn map_policy(a: &Args<'_, '_>, i: usize) -> PyResult<(u8, u8)> {
    let (order, flags): (i64, u8) = a
        .item(i)?
        .extract()
        .map_err(|_| a.err(format!("argument {i} must be a map policy (order, flags)")))?;
    Ok((map_order_byte(order).map_err(|m| a.err(m))?, flags))
}

/// One table row as the tests read it: `(family, name, args after ctx, [(kind, position)])`.
type SpecRow = (
    &'static str,
    &'static str,
    usize,
    Vec<(&'static str, usize)>,
);

/// The op tables, for the tests that compare this encoding with the crate's.
#[pyfunction]
fn _wire_op_specs() -> Vec<SpecRow> {
    let family = |f: &'static str, table: &'static [Spec]| {
        table.iter().map(move |s| {
            (
                f,
                s.name,
                s.after_ctx,
                s.args.iter().map(spec::Arg::described).collect(),
            )
        })
    };
    family("list", list::OPS)
        .chain(family("map", map::OPS))
        .chain(family("bit", bits::BIT_OPS))
        .chain(family("hll", bits::HLL_OPS))
        .collect()
}

pub(crate) fn register(m: &Bound<'_, pyo3::types::PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_wire_op_specs, m)?)
}

/// An expression as the wire carries it.
pub(crate) fn expression_bytes(e: &aerospike::expressions::Expression) -> Result<Vec<u8>, String> {
    let text = e.base64().map_err(|e| e.to_string())?;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| e.to_string())
}
