//! `bits.<fn>` expressions on a blob: args in the crate's order, the blob expression last. Reads
//! return a value; modifies return the changed blob. Offsets, sizes and operands are
//! expressions; write, resize and overflow flags and `signed` are plain values.

use aerospike::expressions::{bitwise as xb, Expression};
use aerospike::operations::bitwise::{BitPolicy, BitwiseResizeFlags, BitwiseWriteFlags};
use pyo3::prelude::*;

use super::core::sub;
use crate::convert::args::Args;

/// Argument `i` as a flags byte.
fn flags(a: &Args<'_, '_>, i: usize) -> PyResult<u8> {
    u8::try_from(a.int(i)?).map_err(|_| a.err("bit flags out of range"))
}

fn policy(a: &Args<'_, '_>, i: usize) -> PyResult<BitPolicy> {
    Ok(BitPolicy::new(BitwiseWriteFlags::from_bits(flags(a, i)?)))
}

/// `bits.<fn>`.
pub(super) fn node(f: &str, a: &Args<'_, '_>, depth: usize) -> PyResult<Expression> {
    let s = |i: usize| sub(a, i, depth);
    match f {
        "get" | "count" => {
            a.arity(3)?;
            let build = if f == "get" { xb::get } else { xb::count };
            Ok(build(s(1)?, s(2)?, s(3)?))
        }
        "lscan" | "rscan" => {
            a.arity(4)?;
            let build = if f == "lscan" { xb::lscan } else { xb::rscan };
            Ok(build(s(1)?, s(2)?, s(3)?, s(4)?))
        }
        "get_int" => {
            a.arity(4)?;
            Ok(xb::get_int(s(1)?, s(2)?, a.bool(3)?, s(4)?))
        }
        _ => modify(f, a, depth),
    }
}

/// The modify expressions: `(size | offset, ..., flags, blob)`.
fn modify(f: &str, a: &Args<'_, '_>, depth: usize) -> PyResult<Expression> {
    let s = |i: usize| sub(a, i, depth);
    match f {
        "resize" => {
            a.arity(4)?;
            let resize = BitwiseResizeFlags::from_bits(flags(a, 2)?);
            Ok(xb::resize(&policy(a, 3)?, s(1)?, resize, s(4)?))
        }
        "insert" | "remove" | "not" => {
            a.arity(4)?;
            let build = match f {
                "insert" => xb::insert,
                "remove" => xb::remove,
                _ => xb::not,
            };
            Ok(build(&policy(a, 3)?, s(1)?, s(2)?, s(4)?))
        }
        "set" | "or" | "xor" | "and" | "lshift" | "rshift" | "set_int" => {
            a.arity(5)?;
            let build = match f {
                "set" => xb::set,
                "or" => xb::or,
                "xor" => xb::xor,
                "and" => xb::and,
                "lshift" => xb::lshift,
                "rshift" => xb::rshift,
                _ => xb::set_int,
            };
            Ok(build(&policy(a, 4)?, s(1)?, s(2)?, s(3)?, s(5)?))
        }
        "add" | "subtract" => {
            a.arity(7)?;
            let build = if f == "add" { xb::add } else { xb::subtract };
            let (signed, action) = (a.bool(4)?, crate::ops::bit_overflow(a, 5)?);
            Ok(build(
                &policy(a, 6)?,
                s(1)?,
                s(2)?,
                s(3)?,
                signed,
                action,
                s(7)?,
            ))
        }
        _ => Err(a.err("unknown bit expression")),
    }
}
