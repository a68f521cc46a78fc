//! `lists.<fn>` read expressions; args in the crate's order, `ctx` last.

use aerospike::expressions::{lists as xl, Expression};
use aerospike::ListReturnType;
use pyo3::prelude::*;

use super::core::{exp_type, optional_sub, sub, trailing_ctx};
use crate::args::Args;

fn list_rt(a: &Args<'_, '_>, i: usize) -> PyResult<ListReturnType> {
    Ok(ListReturnType::from_bits(a.int(i)?))
}

/// `lists.<fn>` read expressions; args in the crate's order, `ctx` last.
pub(super) fn node(f: &str, a: &Args<'_, '_>, depth: usize) -> PyResult<Expression> {
    let s = |i: usize| sub(a, i, depth);
    let o = |i: usize| optional_sub(a, i, depth);
    let ctx = trailing_ctx(a)?;
    match f {
        "size" => {
            a.arity(2)?;
            Ok(xl::size(s(1)?, &ctx))
        }
        "get_by_value" => {
            a.arity(4)?;
            Ok(xl::get_by_value(list_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_value_range" => {
            a.arity(5)?;
            Ok(xl::get_by_value_range(
                list_rt(a, 1)?,
                o(2)?,
                o(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_value_list" => {
            a.arity(4)?;
            Ok(xl::get_by_value_list(list_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_value_relative_rank_range" => {
            a.arity(5)?;
            Ok(xl::get_by_value_relative_rank_range(
                list_rt(a, 1)?,
                s(2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_index" => {
            a.arity(5)?;
            Ok(xl::get_by_index(
                list_rt(a, 1)?,
                exp_type(a, 2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_index_range" => {
            a.arity(4)?;
            Ok(xl::get_by_index_range(list_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_index_range_count" => {
            a.arity(5)?;
            Ok(xl::get_by_index_range_count(
                list_rt(a, 1)?,
                s(2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_rank" => {
            a.arity(5)?;
            Ok(xl::get_by_rank(
                list_rt(a, 1)?,
                exp_type(a, 2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_rank_range" => {
            a.arity(4)?;
            Ok(xl::get_by_rank_range(list_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_rank_range_count" => {
            a.arity(5)?;
            Ok(xl::get_by_rank_range_count(
                list_rt(a, 1)?,
                s(2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        _ => Err(a.err("unknown list expression")),
    }
}
