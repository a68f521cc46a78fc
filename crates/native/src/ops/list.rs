//! List ops (`list_<fn>` tuples): args after the bin and ctx, in the crate's order.

use aerospike::operations::{lists as l, Operation};
use aerospike::ListSortFlags;
use pyo3::prelude::*;

use super::{args_after_ctx, lrt, non_empty, not_nil, reads, writes};
use crate::convert::args::{list_order, Args};

/// `list_<fn>`: args start at tuple index 3, in the crate's order without `bin`.
pub(super) fn op(f: &str, a: &Args<'_, '_>, b: String) -> PyResult<(Operation, bool)> {
    let need = |k: usize| args_after_ctx(a, k);
    let order = |i: usize| list_order(a.int(i)?).map_err(|e| a.err(e));
    match f {
        "create" => {
            need(2)?;
            writes(l::create(b, order(3)?, a.bool(4)?))
        }
        "set_order" => {
            need(1)?;
            writes(l::set_order(b, order(3)?))
        }
        "append" => {
            need(2)?;
            writes(l::append(&a.list_policy(3)?, b, a.value(4)?))
        }
        "append_items" => {
            need(2)?;
            writes(l::append_items(&a.list_policy(3)?, b, non_empty(a, 4)?))
        }
        "insert" => {
            need(3)?;
            writes(l::insert(&a.list_policy(3)?, b, a.int(4)?, a.value(5)?))
        }
        "insert_items" => {
            need(3)?;
            writes(l::insert_items(
                &a.list_policy(3)?,
                b,
                a.int(4)?,
                non_empty(a, 5)?,
            ))
        }
        "pop" => {
            need(1)?;
            writes(l::pop(b, a.int(3)?))
        }
        "pop_range" => {
            need(2)?;
            writes(l::pop_range(b, a.int(3)?, a.int(4)?))
        }
        "pop_range_from" => {
            need(1)?;
            writes(l::pop_range_from(b, a.int(3)?))
        }
        "remove" => {
            need(1)?;
            writes(l::remove(b, a.int(3)?))
        }
        "remove_range" => {
            need(2)?;
            writes(l::remove_range(b, a.int(3)?, a.int(4)?))
        }
        "remove_range_from" => {
            need(1)?;
            writes(l::remove_range_from(b, a.int(3)?))
        }
        "remove_by_value" => {
            need(2)?;
            writes(l::remove_by_value(b, a.value(3)?, lrt(a, 4)?))
        }
        "remove_by_value_list" => {
            need(2)?;
            writes(l::remove_by_value_list(b, a.values(3)?, lrt(a, 4)?))
        }
        "remove_by_value_range" => {
            need(3)?;
            writes(l::remove_by_value_range(
                b,
                lrt(a, 3)?,
                a.value(4)?,
                a.value(5)?,
            ))
        }
        "remove_by_value_relative_rank_range" => {
            need(3)?;
            writes(l::remove_by_value_relative_rank_range(
                b,
                lrt(a, 3)?,
                a.value(4)?,
                a.int(5)?,
            ))
        }
        "remove_by_value_relative_rank_range_count" => {
            need(4)?;
            writes(l::remove_by_value_relative_rank_range_count(
                b,
                lrt(a, 3)?,
                a.value(4)?,
                a.int(5)?,
                a.int(6)?,
            ))
        }
        "remove_by_index" => {
            need(2)?;
            writes(l::remove_by_index(b, a.int(3)?, lrt(a, 4)?))
        }
        "remove_by_index_range" => {
            need(2)?;
            writes(l::remove_by_index_range(b, a.int(3)?, lrt(a, 4)?))
        }
        "remove_by_index_range_count" => {
            need(3)?;
            writes(l::remove_by_index_range_count(
                b,
                a.int(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "remove_by_rank" => {
            need(2)?;
            writes(l::remove_by_rank(b, a.int(3)?, lrt(a, 4)?))
        }
        "remove_by_rank_range" => {
            need(2)?;
            writes(l::remove_by_rank_range(b, a.int(3)?, lrt(a, 4)?))
        }
        "remove_by_rank_range_count" => {
            need(3)?;
            writes(l::remove_by_rank_range_count(
                b,
                a.int(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "set" => {
            need(2)?;
            writes(l::set(b, a.int(3)?, not_nil(a, 4)?))
        }
        "set_with_policy" => {
            need(3)?;
            writes(l::set_with_policy(
                &a.list_policy(3)?,
                b,
                a.int(4)?,
                not_nil(a, 5)?,
            ))
        }
        "trim" => {
            need(2)?;
            writes(l::trim(b, a.int(3)?, a.int(4)?))
        }
        "clear" => {
            need(0)?;
            writes(l::clear(b))
        }
        "increment" => {
            need(3)?;
            writes(l::increment(&a.list_policy(3)?, b, a.int(4)?, a.int(5)?))
        }
        "sort" => {
            need(1)?;
            let flags = u8::try_from(a.int(3)?).map_err(|_| a.err("bad sort flags"))?;
            writes(l::sort(b, ListSortFlags::from_bits(flags)))
        }
        "size" => {
            need(0)?;
            reads(l::size(b))
        }
        "get" => {
            need(1)?;
            reads(l::get(b, a.int(3)?))
        }
        "get_range" => {
            need(2)?;
            reads(l::get_range(b, a.int(3)?, a.int(4)?))
        }
        "get_range_from" => {
            need(1)?;
            reads(l::get_range_from(b, a.int(3)?))
        }
        "get_by_value" => {
            need(2)?;
            reads(l::get_by_value(b, a.value(3)?, lrt(a, 4)?))
        }
        "get_by_value_list" => {
            need(2)?;
            reads(l::get_by_value_list(b, a.values(3)?, lrt(a, 4)?))
        }
        "get_by_value_range" => {
            need(3)?;
            reads(l::get_by_value_range(
                b,
                a.value(3)?,
                a.value(4)?,
                lrt(a, 5)?,
            ))
        }
        "get_by_index" => {
            need(2)?;
            reads(l::get_by_index(b, a.int(3)?, lrt(a, 4)?))
        }
        "get_by_index_range" => {
            need(2)?;
            reads(l::get_by_index_range(b, a.int(3)?, lrt(a, 4)?))
        }
        "get_by_index_range_count" => {
            need(3)?;
            reads(l::get_by_index_range_count(
                b,
                a.int(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "get_by_rank" => {
            need(2)?;
            reads(l::get_by_rank(b, a.int(3)?, lrt(a, 4)?))
        }
        "get_by_rank_range" => {
            need(2)?;
            reads(l::get_by_rank_range(b, a.int(3)?, lrt(a, 4)?))
        }
        "get_by_rank_range_count" => {
            need(3)?;
            reads(l::get_by_rank_range_count(
                b,
                a.int(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "get_by_value_relative_rank_range" => {
            need(3)?;
            reads(l::get_by_value_relative_rank_range(
                b,
                a.value(3)?,
                a.int(4)?,
                lrt(a, 5)?,
            ))
        }
        "get_by_value_relative_rank_range_count" => {
            need(4)?;
            reads(l::get_by_value_relative_rank_range_count(
                b,
                a.value(3)?,
                a.int(4)?,
                a.int(5)?,
                lrt(a, 6)?,
            ))
        }
        _ => Err(a.err("unknown list op")),
    }
}
