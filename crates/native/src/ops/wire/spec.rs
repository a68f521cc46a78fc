//! A CDT op as a table row: its code, whether it writes, and where each wire argument comes
//! from in the op tuple `(name, bin, ctx, *args)`. The wire order (return type first, then the
//! selectors) differs from the tuple's, which follows the Python builders.

use aerospike::Value;
use pyo3::prelude::*;

use super::pack;
use crate::convert::args::Args;

/// Where one wire argument comes from (tuple positions count from the op name at 0).
#[derive(Clone, Copy)]
pub(crate) enum Arg {
    /// An int.
    Int(usize),
    /// Any value.
    Val(usize),
    /// A value, left out when it is None (an open range end).
    OpenEnd(usize),
    /// A value other than None.
    NotNil(usize),
    /// A list of values.
    List(usize),
    /// A list of at least one value.
    Items(usize),
    /// The order byte of a `(order, flags)` policy.
    Order(usize),
    /// The flags byte of a `(order, flags)` policy.
    Flags(usize),
    /// An order given alone.
    OrderOnly(usize),
    /// An int of one byte.
    Byte(usize),
    /// Bytes, sent as a blob.
    Blob(usize),
    /// A bool.
    Bool(usize),
    /// A list of HLL sketches (bytes).
    Sketches(usize),
    /// A bit add's overflow action (at the second position) with its signed flag (the first).
    Overflow(usize, usize),
    /// `1` when the bool is true, else nothing (a signed bit read).
    Signed(usize),
}

impl Arg {
    /// The kind and tuple position, as the encoding tests read them.
    pub(crate) fn described(&self) -> (&'static str, usize) {
        match *self {
            Arg::Int(i) => ("int", i),
            Arg::Val(i) => ("val", i),
            Arg::OpenEnd(i) => ("open_end", i),
            Arg::NotNil(i) => ("not_nil", i),
            Arg::List(i) => ("list", i),
            Arg::Items(i) => ("items", i),
            Arg::Order(i) => ("order", i),
            Arg::Flags(i) => ("flags", i),
            Arg::OrderOnly(i) => ("order_only", i),
            Arg::Byte(i) => ("byte", i),
            Arg::Blob(i) => ("blob", i),
            Arg::Bool(i) => ("bool", i),
            Arg::Sketches(i) => ("sketches", i),
            Arg::Overflow(_, i) => ("overflow", i),
            Arg::Signed(i) => ("signed", i),
        }
    }
}

/// One op of a family table.
pub(crate) struct Spec {
    pub name: &'static str,
    pub code: u8,
    pub writes: bool,
    /// Wire arguments, in wire order.
    pub args: &'static [Arg],
    /// How many tuple items follow the bin and ctx.
    pub after_ctx: usize,
}

/// Shorthands for the tables: a read or a write op with `n` tuple args.
pub(crate) const fn read(name: &'static str, code: u8, n: usize, args: &'static [Arg]) -> Spec {
    Spec {
        name,
        code,
        writes: false,
        args,
        after_ctx: n,
    }
}

pub(crate) const fn write(name: &'static str, code: u8, n: usize, args: &'static [Arg]) -> Spec {
    Spec {
        name,
        code,
        writes: true,
        args,
        after_ctx: n,
    }
}

/// A policy tuple `(order, flags)` at `i`.
fn policy(a: &Args<'_, '_>, i: usize) -> PyResult<(i64, u8)> {
    a.item(i)?
        .extract()
        .map_err(|_| a.err(format!("argument {i} must be a policy (order, flags)")))
}

/// The wire arguments of `spec` taken from `a`, packed; `check_order` validates a policy's order.
pub(crate) fn pack_args(
    out: &mut Vec<u8>,
    a: &Args<'_, '_>,
    spec: &Spec,
    check_order: fn(i64) -> Result<u8, String>,
) -> PyResult<()> {
    for arg in spec.args {
        match *arg {
            Arg::Int(i) => pack::int(out, a.int(i)?),
            Arg::Val(i) => value(out, a, &a.value(i)?)?,
            Arg::OpenEnd(i) => {
                let v = a.value(i)?;
                if !matches!(v, Value::Nil) {
                    value(out, a, &v)?;
                }
            }
            Arg::NotNil(i) => {
                let v = a.value(i)?;
                if matches!(v, Value::Nil) {
                    return Err(a.err("the value must not be None (remove the item instead)"));
                }
                value(out, a, &v)?;
            }
            Arg::List(i) => list(out, a, &a.values(i)?)?,
            Arg::Items(i) => {
                let v = a.values(i)?;
                if v.is_empty() {
                    return Err(a.err("needs at least one item (the list is empty)"));
                }
                list(out, a, &v)?;
            }
            Arg::Order(i) => {
                let order = check_order(policy(a, i)?.0).map_err(|m| a.err(m))?;
                pack::int(out, i64::from(order));
            }
            Arg::Flags(i) => pack::int(out, i64::from(policy(a, i)?.1)),
            Arg::OrderOnly(i) => {
                let order = check_order(a.int(i)?).map_err(|m| a.err(m))?;
                pack::int(out, i64::from(order));
            }
            Arg::Byte(i) => {
                let b = u8::try_from(a.int(i)?)
                    .map_err(|_| a.err(format!("argument {i} must be a byte (0 to 255)")))?;
                pack::int(out, i64::from(b));
            }
            Arg::Blob(i) => value(out, a, &Value::Blob(bytes(a, i)?))?,
            Arg::Bool(i) => value(out, a, &Value::Bool(a.bool(i)?))?,
            Arg::Sketches(i) => {
                let v = a.values(i)?;
                pack::array_begin(out, v.len());
                for s in v {
                    match s {
                        Value::Blob(b) | Value::Hll(b) => value(out, a, &Value::Hll(b))?,
                        _ => return Err(a.err("HLL sketches must be bytes")),
                    }
                }
            }
            Arg::Overflow(signed, action) => {
                let action = match a.int(action)? {
                    v @ (0 | 2 | 4) => v,
                    v => return Err(a.err(format!("unknown overflow action {v}"))),
                };
                pack::int(out, action | i64::from(a.bool(signed)?));
            }
            Arg::Signed(i) => {
                if a.bool(i)? {
                    pack::int(out, 1);
                }
            }
        }
    }
    Ok(())
}

/// How many wire arguments `spec` packs for `a` (an open range end may be left out).
pub(crate) fn count_args(a: &Args<'_, '_>, spec: &Spec) -> PyResult<usize> {
    let mut n = 0;
    for arg in spec.args {
        n += match *arg {
            Arg::OpenEnd(i) => usize::from(!a.item(i)?.is_none()),
            Arg::Signed(i) => usize::from(a.bool(i)?),
            _ => 1,
        };
    }
    Ok(n)
}

pub(crate) fn value(out: &mut Vec<u8>, a: &Args<'_, '_>, v: &Value) -> PyResult<()> {
    pack::value(out, v).map_err(|m| a.err(m))
}

/// Argument `i` as bytes.
fn bytes(a: &Args<'_, '_>, i: usize) -> PyResult<Vec<u8>> {
    a.item(i)?
        .extract()
        .map_err(|_| a.err(format!("argument {i} must be bytes")))
}

fn list(out: &mut Vec<u8>, a: &Args<'_, '_>, v: &[Value]) -> PyResult<()> {
    pack::list(out, v).map_err(|m| a.err(m))
}
