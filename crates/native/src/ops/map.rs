//! Map ops (`map_<fn>` tuples): args after the bin and ctx, in the crate's order.

use aerospike::operations::{self as o, maps as m, Operation};
use aerospike::Value;
use pyo3::prelude::*;

use super::{args_after_ctx, mrt, reads, writes};
use crate::convert::args::{map_order, Args};

/// `map_<fn>`: args start at tuple index 3, in the crate's order without `bin`.
pub(super) fn op(
    f: &str,
    a: &Args<'_, '_>,
    b: String,
    ctx: &[o::cdt_context::CdtContext],
) -> PyResult<(Operation, bool)> {
    let need = |k: usize| args_after_ctx(a, k);
    match f {
        "create" => {
            need(1)?;
            let order = map_order(a.int(3)?).map_err(|e| a.err(e))?;
            writes(m::create(b, order, ctx.to_vec()))
        }
        "set_policy" => {
            need(1)?;
            writes(m::set_policy(&a.map_policy(3)?, b, ctx.to_vec()))
        }
        "put" => {
            need(3)?;
            writes(m::put(&a.map_policy(3)?, b, a.value(4)?, a.value(5)?))
        }
        "put_items" => {
            need(2)?;
            match a.value(4)? {
                Value::OrderedMap(items) => writes(m::put_items(&a.map_policy(3)?, b, items)),
                Value::HashMap(items) => writes(m::put_items(&a.map_policy(3)?, b, items)),
                _ => Err(a.err("items must be a dict")),
            }
        }
        "increment_value" => {
            need(3)?;
            writes(m::increment_value(
                &a.map_policy(3)?,
                b,
                a.value(4)?,
                a.value(5)?,
            ))
        }
        "decrement_value" => {
            need(3)?;
            writes(m::decrement_value(
                &a.map_policy(3)?,
                b,
                a.value(4)?,
                a.value(5)?,
            ))
        }
        "clear" => {
            need(0)?;
            writes(m::clear(b))
        }
        "remove_by_key" => {
            need(2)?;
            writes(m::remove_by_key(b, a.value(3)?, mrt(a, 4)?))
        }
        "remove_by_key_list" => {
            need(2)?;
            writes(m::remove_by_key_list(b, a.values(3)?, mrt(a, 4)?))
        }
        "remove_by_key_range" => {
            need(3)?;
            writes(m::remove_by_key_range(
                b,
                a.value(3)?,
                a.value(4)?,
                mrt(a, 5)?,
            ))
        }
        "remove_by_value" => {
            need(2)?;
            writes(m::remove_by_value(b, a.value(3)?, mrt(a, 4)?))
        }
        "remove_by_value_list" => {
            need(2)?;
            writes(m::remove_by_value_list(b, a.values(3)?, mrt(a, 4)?))
        }
        "remove_by_value_range" => {
            need(3)?;
            writes(m::remove_by_value_range(
                b,
                a.value(3)?,
                a.value(4)?,
                mrt(a, 5)?,
            ))
        }
        "remove_by_index" => {
            need(2)?;
            writes(m::remove_by_index(b, a.int(3)?, mrt(a, 4)?))
        }
        "remove_by_index_range" => {
            need(3)?;
            writes(m::remove_by_index_range(
                b,
                a.int(3)?,
                a.int(4)?,
                mrt(a, 5)?,
            ))
        }
        "remove_by_index_range_from" => {
            need(2)?;
            writes(m::remove_by_index_range_from(b, a.int(3)?, mrt(a, 4)?))
        }
        "remove_by_rank" => {
            need(2)?;
            writes(m::remove_by_rank(b, a.int(3)?, mrt(a, 4)?))
        }
        "remove_by_rank_range" => {
            need(3)?;
            writes(m::remove_by_rank_range(b, a.int(3)?, a.int(4)?, mrt(a, 5)?))
        }
        "remove_by_rank_range_from" => {
            need(2)?;
            writes(m::remove_by_rank_range_from(b, a.int(3)?, mrt(a, 4)?))
        }
        "remove_by_key_relative_index_range" => {
            need(3)?;
            writes(m::remove_by_key_relative_index_range(
                b,
                a.value(3)?,
                a.int(4)?,
                mrt(a, 5)?,
            ))
        }
        "remove_by_key_relative_index_range_count" => {
            need(4)?;
            writes(m::remove_by_key_relative_index_range_count(
                b,
                a.value(3)?,
                a.int(4)?,
                a.int(5)?,
                mrt(a, 6)?,
            ))
        }
        "remove_by_value_relative_rank_range" => {
            need(3)?;
            writes(m::remove_by_value_relative_rank_range(
                b,
                a.value(3)?,
                a.int(4)?,
                mrt(a, 5)?,
            ))
        }
        "remove_by_value_relative_rank_range_count" => {
            need(4)?;
            writes(m::remove_by_value_relative_rank_range_count(
                b,
                a.value(3)?,
                a.int(4)?,
                a.int(5)?,
                mrt(a, 6)?,
            ))
        }
        "size" => {
            need(0)?;
            reads(m::size(b))
        }
        "get_by_key" => {
            need(2)?;
            reads(m::get_by_key(b, a.value(3)?, mrt(a, 4)?))
        }
        "get_by_key_range" => {
            need(3)?;
            reads(m::get_by_key_range(b, a.value(3)?, a.value(4)?, mrt(a, 5)?))
        }
        "get_by_key_list" => {
            need(2)?;
            reads(m::get_by_key_list(b, a.values(3)?, mrt(a, 4)?))
        }
        "get_by_value" => {
            need(2)?;
            reads(m::get_by_value(b, a.value(3)?, mrt(a, 4)?))
        }
        "get_by_value_range" => {
            need(3)?;
            reads(m::get_by_value_range(
                b,
                a.value(3)?,
                a.value(4)?,
                mrt(a, 5)?,
            ))
        }
        "get_by_value_list" => {
            need(2)?;
            reads(m::get_by_value_list(b, a.values(3)?, mrt(a, 4)?))
        }
        "get_by_index" => {
            need(2)?;
            reads(m::get_by_index(b, a.int(3)?, mrt(a, 4)?))
        }
        "get_by_index_range" => {
            need(3)?;
            reads(m::get_by_index_range(b, a.int(3)?, a.int(4)?, mrt(a, 5)?))
        }
        "get_by_index_range_from" => {
            need(2)?;
            reads(m::get_by_index_range_from(b, a.int(3)?, mrt(a, 4)?))
        }
        "get_by_rank" => {
            need(2)?;
            reads(m::get_by_rank(b, a.int(3)?, mrt(a, 4)?))
        }
        "get_by_rank_range" => {
            need(3)?;
            reads(m::get_by_rank_range(b, a.int(3)?, a.int(4)?, mrt(a, 5)?))
        }
        "get_by_rank_range_from" => {
            need(2)?;
            reads(m::get_by_rank_range_from(b, a.int(3)?, mrt(a, 4)?))
        }
        "get_by_key_relative_index_range" => {
            need(3)?;
            reads(m::get_by_key_relative_index_range(
                b,
                a.value(3)?,
                a.int(4)?,
                mrt(a, 5)?,
            ))
        }
        "get_by_key_relative_index_range_count" => {
            need(4)?;
            reads(m::get_by_key_relative_index_range_count(
                b,
                a.value(3)?,
                a.int(4)?,
                a.int(5)?,
                mrt(a, 6)?,
            ))
        }
        "get_by_value_relative_rank_range" => {
            need(3)?;
            reads(m::get_by_value_relative_rank_range(
                b,
                a.value(3)?,
                a.int(4)?,
                mrt(a, 5)?,
            ))
        }
        "get_by_value_relative_rank_range_count" => {
            need(4)?;
            reads(m::get_by_value_relative_rank_range_count(
                b,
                a.value(3)?,
                a.int(4)?,
                a.int(5)?,
                mrt(a, 6)?,
            ))
        }
        _ => Err(a.err("unknown map op")),
    }
}
