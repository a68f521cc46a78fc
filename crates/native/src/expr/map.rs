//! `maps.<fn>` read expressions; args in the crate's order, `ctx` last.

use aerospike::expressions::{maps as xm, Expression};
use aerospike::MapReturnType;
use pyo3::prelude::*;

use super::core::{exp_type, optional_sub, sub, trailing_ctx};
use crate::args::Args;

fn map_rt(a: &Args<'_, '_>, i: usize) -> PyResult<MapReturnType> {
    Ok(MapReturnType::from_bits(a.int(i)?))
}

/// `maps.<fn>` read expressions; args in the crate's order, `ctx` last.
pub(super) fn node(f: &str, a: &Args<'_, '_>, depth: usize) -> PyResult<Expression> {
    let s = |i: usize| sub(a, i, depth);
    let o = |i: usize| optional_sub(a, i, depth);
    let ctx = trailing_ctx(a)?;
    match f {
        "size" => {
            a.arity(2)?;
            Ok(xm::size(s(1)?, &ctx))
        }
        "get_by_key" => {
            a.arity(5)?;
            Ok(xm::get_by_key(
                map_rt(a, 1)?,
                exp_type(a, 2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_key_range" => {
            a.arity(5)?;
            Ok(xm::get_by_key_range(
                map_rt(a, 1)?,
                o(2)?,
                o(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_key_list" => {
            a.arity(4)?;
            Ok(xm::get_by_key_list(map_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_value" => {
            a.arity(4)?;
            Ok(xm::get_by_value(map_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_value_range" => {
            a.arity(5)?;
            Ok(xm::get_by_value_range(
                map_rt(a, 1)?,
                o(2)?,
                o(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_value_list" => {
            a.arity(4)?;
            Ok(xm::get_by_value_list(map_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_index" => {
            a.arity(5)?;
            Ok(xm::get_by_index(
                map_rt(a, 1)?,
                exp_type(a, 2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_index_range" => {
            a.arity(4)?;
            Ok(xm::get_by_index_range(map_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_index_range_count" => {
            a.arity(5)?;
            Ok(xm::get_by_index_range_count(
                map_rt(a, 1)?,
                s(2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_rank" => {
            a.arity(5)?;
            Ok(xm::get_by_rank(
                map_rt(a, 1)?,
                exp_type(a, 2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "get_by_rank_range" => {
            a.arity(4)?;
            Ok(xm::get_by_rank_range(map_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "get_by_rank_range_count" => {
            a.arity(5)?;
            Ok(xm::get_by_rank_range_count(
                map_rt(a, 1)?,
                s(2)?,
                s(3)?,
                s(4)?,
                &ctx,
            ))
        }
        _ => Err(a.err("unknown map expression")),
    }
}
