//! Bit ops on blob bins (`bit_<fn>` tuples): `(name, bin, *args)` in the crate's order without
//! `bin`, the write flags last (bit ops take no CDT context: the server refuses one).

use aerospike::operations::bitwise::{self as b, BitPolicy, BitwiseResizeFlags, BitwiseWriteFlags};
use aerospike::operations::Operation;
use aerospike::Value;
use pyo3::prelude::*;

use super::{reads, writes};
use crate::convert::args::Args;

/// Argument `i` as a write-flags policy.
fn policy(a: &Args<'_, '_>, i: usize) -> PyResult<BitPolicy> {
    let flags = u8::try_from(a.int(i)?).map_err(|_| a.err("bit write flags out of range"))?;
    Ok(BitPolicy::new(BitwiseWriteFlags::from_bits(flags)))
}

/// Argument `i` as bytes (the operand of set, or, xor, and, insert).
fn blob(a: &Args<'_, '_>, i: usize) -> PyResult<Value> {
    let bytes = a.item(i)?;
    let v: Vec<u8> = bytes
        .extract()
        .map_err(|_| a.err(format!("argument {i} must be bytes")))?;
    Ok(Value::Blob(v))
}

/// `bit_<fn>`: args start at tuple index 2.
pub(super) fn op(f: &str, a: &Args<'_, '_>, bin: String) -> PyResult<(Operation, bool)> {
    let need = |k: usize| a.arity(k + 1);
    let int = |i: usize| a.int(i);
    match f {
        "resize" => {
            need(3)?;
            let flags = u8::try_from(int(3)?).map_err(|_| a.err("resize flags out of range"))?;
            let rf = BitwiseResizeFlags::from_bits(flags);
            writes(b::resize(bin, int(2)?, rf, &policy(a, 4)?))
        }
        "insert" => {
            need(3)?;
            writes(b::insert(bin, int(2)?, blob(a, 3)?, &policy(a, 4)?))
        }
        "remove" => {
            need(3)?;
            writes(b::remove(bin, int(2)?, int(3)?, &policy(a, 4)?))
        }
        "set" | "or" | "xor" | "and" => {
            need(4)?;
            let build = match f {
                "set" => b::set,
                "or" => b::or,
                "xor" => b::xor,
                _ => b::and,
            };
            writes(build(bin, int(2)?, int(3)?, blob(a, 4)?, &policy(a, 5)?))
        }
        "not" => {
            need(3)?;
            writes(b::not(bin, int(2)?, int(3)?, &policy(a, 4)?))
        }
        "lshift" | "rshift" => {
            need(4)?;
            let build = if f == "lshift" { b::lshift } else { b::rshift };
            writes(build(bin, int(2)?, int(3)?, int(4)?, &policy(a, 5)?))
        }
        "add" | "subtract" => {
            need(6)?;
            let build = if f == "add" { b::add } else { b::subtract };
            let (signed, action) = (a.bool(5)?, super::bit_overflow(a, 6)?);
            let p = policy(a, 7)?;
            writes(build(bin, int(2)?, int(3)?, int(4)?, signed, action, &p))
        }
        "set_int" => {
            need(4)?;
            writes(b::set_int(bin, int(2)?, int(3)?, int(4)?, &policy(a, 5)?))
        }
        "get" | "count" => {
            need(2)?;
            let build = if f == "get" { b::get } else { b::count };
            reads(build(bin, int(2)?, int(3)?))
        }
        "lscan" | "rscan" => {
            need(3)?;
            let build = if f == "lscan" { b::lscan } else { b::rscan };
            reads(build(bin, int(2)?, int(3)?, a.bool(4)?))
        }
        "get_int" => {
            need(3)?;
            reads(b::get_int(bin, int(2)?, int(3)?, a.bool(4)?))
        }
        _ => Err(a.err("unknown op")),
    }
}
