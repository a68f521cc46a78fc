//! `hlls.<fn>` read expressions on an HLL bin: the list (if any) then the HLL expression.

use aerospike::expressions::{hll as xh, Expression};
use pyo3::prelude::*;

use super::core::sub;
use crate::args::Args;

/// `hlls.<fn>`: every argument is an expression.
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
        _ => Err(a.err("unknown HLL expression")),
    }
}
