//! `hlls.<fn>` expressions on an HLL bin: the list (if any) then the HLL expression. Reads
//! return a value; `init` and `add` return the changed HLL (their bit counts and write flags
//! are plain ints, -1 for a count left unset).

use aerospike::expressions::{hll as xh, Expression};
use aerospike::operations::hll::{HllPolicy, HllWriteFlags};
use pyo3::prelude::*;

use super::core::sub;
use crate::convert::args::Args;

fn policy(a: &Args<'_, '_>, i: usize) -> PyResult<HllPolicy> {
    let flags = u8::try_from(a.int(i)?).map_err(|_| a.err("HLL write flags out of range"))?;
    Ok(HllPolicy::new(HllWriteFlags::from_bits(flags)))
}

/// `hlls.<fn>`: every argument is an expression but the modifies' counts and flags.
pub(super) fn node(f: &str, a: &Args<'_, '_>, depth: usize) -> PyResult<Expression> {
    let s = |i: usize| sub(a, i, depth);
    match f {
        "get_count" | "describe" => {
            a.arity(1)?;
            let build = if f == "get_count" {
                xh::get_count
            } else {
                xh::describe
            };
            Ok(build(s(1)?))
        }
        "get_union"
        | "get_union_count"
        | "get_intersect_count"
        | "get_similarity"
        | "may_contain" => {
            a.arity(2)?;
            let build = match f {
                "get_union" => xh::get_union,
                "get_union_count" => xh::get_union_count,
                "get_intersect_count" => xh::get_intersect_count,
                "get_similarity" => xh::get_similarity,
                _ => xh::may_contain,
            };
            Ok(build(s(1)?, s(2)?))
        }
        // (index_bits, minhash_bits, flags, hll)
        "init" => {
            a.arity(4)?;
            let p = policy(a, 3)?;
            Ok(xh::init_with_min_hash(p, s(1)?, s(2)?, s(4)?))
        }
        // (values, index_bits, minhash_bits, flags, hll)
        "add" => {
            a.arity(5)?;
            let p = policy(a, 4)?;
            Ok(xh::add_with_index_and_min_hash(
                p,
                s(1)?,
                s(2)?,
                s(3)?,
                s(5)?,
            ))
        }
        _ => Err(a.err("unknown HLL expression")),
    }
}
