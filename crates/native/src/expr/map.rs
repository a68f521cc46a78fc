//! `maps.<fn>` expressions; args in the crate's order, `ctx` last. Reads return the selection;
//! modifies (`put`, ..., `remove_by_*`) return the changed bin, their policy a plain
//! `(order, flags)` pair and their return type NONE or INVERTED.

use aerospike::expressions::{maps as xm, Expression};
use aerospike::MapReturnType;
use pyo3::prelude::*;

use super::core::{exp_type, optional_sub, sub, trailing_ctx};
use crate::convert::args::Args;

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
        _ => modify(f, a, depth),
    }
}

/// The modify expressions: the changed map (or the bin holding it).
fn modify(f: &str, a: &Args<'_, '_>, depth: usize) -> PyResult<Expression> {
    let s = |i: usize| sub(a, i, depth);
    let o = |i: usize| optional_sub(a, i, depth);
    let ctx = trailing_ctx(a)?;
    match f {
        "put" | "increment" => {
            a.arity(5)?;
            let p = a.map_policy(1)?;
            let build = if f == "put" { xm::put } else { xm::increment };
            Ok(build(&p, s(2)?, s(3)?, s(4)?, &ctx))
        }
        "put_items" => {
            a.arity(4)?;
            Ok(xm::put_items(&a.map_policy(1)?, s(2)?, s(3)?, &ctx))
        }
        "clear" => {
            a.arity(2)?;
            Ok(xm::clear(s(1)?, &ctx))
        }
        "remove_by_key"
        | "remove_by_key_list"
        | "remove_by_value"
        | "remove_by_value_list"
        | "remove_by_index"
        | "remove_by_index_range"
        | "remove_by_rank"
        | "remove_by_rank_range" => {
            a.arity(4)?;
            let build = match f {
                "remove_by_key" => xm::remove_by_key,
                "remove_by_key_list" => xm::remove_by_key_list,
                "remove_by_value" => xm::remove_by_value,
                "remove_by_value_list" => xm::remove_by_value_list,
                "remove_by_index" => xm::remove_by_index,
                "remove_by_index_range" => xm::remove_by_index_range,
                "remove_by_rank" => xm::remove_by_rank,
                _ => xm::remove_by_rank_range,
            };
            Ok(build(map_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "remove_by_key_range" | "remove_by_value_range" => {
            a.arity(5)?;
            let build = if f == "remove_by_key_range" {
                xm::remove_by_key_range
            } else {
                xm::remove_by_value_range
            };
            Ok(build(map_rt(a, 1)?, o(2)?, o(3)?, s(4)?, &ctx))
        }
        "remove_by_key_relative_index_range"
        | "remove_by_value_relative_rank_range"
        | "remove_by_index_range_count"
        | "remove_by_rank_range_count" => {
            a.arity(5)?;
            let build = match f {
                "remove_by_key_relative_index_range" => xm::remove_by_key_relative_index_range,
                "remove_by_value_relative_rank_range" => xm::remove_by_value_relative_rank_range,
                "remove_by_index_range_count" => xm::remove_by_index_range_count,
                _ => xm::remove_by_rank_range_count,
            };
            Ok(build(map_rt(a, 1)?, s(2)?, s(3)?, s(4)?, &ctx))
        }
        "remove_by_key_relative_index_range_count"
        | "remove_by_value_relative_rank_range_count" => {
            a.arity(6)?;
            let build = if f == "remove_by_key_relative_index_range_count" {
                xm::remove_by_key_relative_index_range_count
            } else {
                xm::remove_by_value_relative_rank_range_count
            };
            Ok(build(map_rt(a, 1)?, s(2)?, s(3)?, s(4)?, s(5)?, &ctx))
        }
        _ => Err(a.err("unknown map expression")),
    }
}
