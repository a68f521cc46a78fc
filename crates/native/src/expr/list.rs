//! `lists.<fn>` expressions; args in the crate's order, `ctx` last. Reads return the selection;
//! modifies (`append`, ..., `remove_by_*`) return the changed bin, their policy a plain
//! `(order, flags)` pair and their return type NONE or INVERTED.

use aerospike::expressions::{lists as xl, Expression};
use aerospike::operations::lists::ListSortFlags;
use aerospike::ListReturnType;
use pyo3::prelude::*;

use super::core::{exp_type, optional_sub, sub, trailing_ctx};
use crate::convert::args::Args;

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
        _ => modify(f, a, depth),
    }
}

/// The modify expressions: the changed list (or the bin holding it).
fn modify(f: &str, a: &Args<'_, '_>, depth: usize) -> PyResult<Expression> {
    let s = |i: usize| sub(a, i, depth);
    let o = |i: usize| optional_sub(a, i, depth);
    let ctx = trailing_ctx(a)?;
    match f {
        "append" | "append_items" => {
            a.arity(4)?;
            let build = if f == "append" {
                xl::append
            } else {
                xl::append_items
            };
            Ok(build(a.list_policy(1)?, s(2)?, s(3)?, &ctx))
        }
        "insert" | "insert_items" | "increment" | "set" => {
            a.arity(5)?;
            let build = match f {
                "insert" => xl::insert,
                "insert_items" => xl::insert_items,
                "increment" => xl::increment,
                _ => xl::set,
            };
            Ok(build(a.list_policy(1)?, s(2)?, s(3)?, s(4)?, &ctx))
        }
        "clear" => {
            a.arity(2)?;
            Ok(xl::clear(s(1)?, &ctx))
        }
        "sort" => {
            a.arity(3)?;
            let flags = u8::try_from(a.int(1)?).map_err(|_| a.err("sort flags out of range"))?;
            Ok(xl::sort(ListSortFlags::from_bits(flags), s(2)?, &ctx))
        }
        "remove_by_value"
        | "remove_by_value_list"
        | "remove_by_index"
        | "remove_by_index_range"
        | "remove_by_rank"
        | "remove_by_rank_range" => {
            a.arity(4)?;
            let build = match f {
                "remove_by_value" => xl::remove_by_value,
                "remove_by_value_list" => xl::remove_by_value_list,
                "remove_by_index" => xl::remove_by_index,
                "remove_by_index_range" => xl::remove_by_index_range,
                "remove_by_rank" => xl::remove_by_rank,
                _ => xl::remove_by_rank_range,
            };
            Ok(build(list_rt(a, 1)?, s(2)?, s(3)?, &ctx))
        }
        "remove_by_value_range" => {
            a.arity(5)?;
            Ok(xl::remove_by_value_range(
                list_rt(a, 1)?,
                o(2)?,
                o(3)?,
                s(4)?,
                &ctx,
            ))
        }
        "remove_by_value_relative_rank_range"
        | "remove_by_index_range_count"
        | "remove_by_rank_range_count" => {
            a.arity(5)?;
            let build = match f {
                "remove_by_value_relative_rank_range" => xl::remove_by_value_relative_rank_range,
                "remove_by_index_range_count" => xl::remove_by_index_range_count,
                _ => xl::remove_by_rank_range_count,
            };
            Ok(build(list_rt(a, 1)?, s(2)?, s(3)?, s(4)?, &ctx))
        }
        "remove_by_value_relative_rank_range_count" => {
            a.arity(6)?;
            Ok(xl::remove_by_value_relative_rank_range_count(
                list_rt(a, 1)?,
                s(2)?,
                s(3)?,
                s(4)?,
                s(5)?,
                &ctx,
            ))
        }
        _ => Err(a.err("unknown list expression")),
    }
}
