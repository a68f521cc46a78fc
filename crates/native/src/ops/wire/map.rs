//! Map ops (`map_<fn>` tuples) as wire payloads. Tuple args start at index 3, after the bin
//! and the ctx.

use super::spec::{read, write, Arg::*, Spec};

pub(crate) const SET_TYPE: u8 = 64;
pub(crate) const PUT: u8 = 67;
pub(crate) const PUT_ITEMS: u8 = 68;

/// Every map op but `create`, `set_policy`, `put` and `put_items` (`super::map_write`).
pub(crate) static OPS: &[Spec] = &[
    write("increment_value", 73, 3, &[Val(4), OpenEnd(5), Order(3)]),
    write("decrement_value", 74, 3, &[Val(4), OpenEnd(5), Order(3)]),
    write("clear", 75, 0, &[]),
    write("remove_by_key", 76, 2, &[Int(4), Val(3)]),
    write("remove_by_index", 77, 2, &[Int(4), Int(3)]),
    write("remove_by_rank", 79, 2, &[Int(4), Int(3)]),
    write("remove_by_key_list", 81, 2, &[Int(4), List(3)]),
    write("remove_by_value", 82, 2, &[Int(4), Val(3)]),
    write("remove_by_value_list", 83, 2, &[Int(4), List(3)]),
    write("remove_by_key_range", 84, 3, &[Int(5), Val(3), OpenEnd(4)]),
    write("remove_by_index_range", 85, 3, &[Int(5), Int(3), Int(4)]),
    write("remove_by_index_range_from", 85, 2, &[Int(4), Int(3)]),
    write(
        "remove_by_value_range",
        86,
        3,
        &[Int(5), Val(3), OpenEnd(4)],
    ),
    write("remove_by_rank_range", 87, 3, &[Int(5), Int(3), Int(4)]),
    write("remove_by_rank_range_from", 87, 2, &[Int(4), Int(3)]),
    write(
        "remove_by_key_relative_index_range",
        88,
        3,
        &[Int(5), Val(3), Int(4)],
    ),
    write(
        "remove_by_key_relative_index_range_count",
        88,
        4,
        &[Int(6), Val(3), Int(4), Int(5)],
    ),
    write(
        "remove_by_value_relative_rank_range",
        89,
        3,
        &[Int(5), Val(3), Int(4)],
    ),
    write(
        "remove_by_value_relative_rank_range_count",
        89,
        4,
        &[Int(6), Val(3), Int(4), Int(5)],
    ),
    read("size", 96, 0, &[]),
    read("get_by_key", 97, 2, &[Int(4), Val(3)]),
    read("get_by_index", 98, 2, &[Int(4), Int(3)]),
    read("get_by_rank", 100, 2, &[Int(4), Int(3)]),
    read("get_by_value", 102, 2, &[Int(4), Val(3)]),
    read("get_by_key_range", 103, 3, &[Int(5), Val(3), OpenEnd(4)]),
    read("get_by_index_range", 104, 3, &[Int(5), Int(3), Int(4)]),
    read("get_by_index_range_from", 104, 2, &[Int(4), Int(3)]),
    read("get_by_value_range", 105, 3, &[Int(5), Val(3), OpenEnd(4)]),
    read("get_by_rank_range", 106, 3, &[Int(5), Int(3), Int(4)]),
    read("get_by_rank_range_from", 106, 2, &[Int(4), Int(3)]),
    read("get_by_key_list", 107, 2, &[Int(4), List(3)]),
    read("get_by_value_list", 108, 2, &[Int(4), List(3)]),
    read(
        "get_by_key_relative_index_range",
        109,
        3,
        &[Int(5), Val(3), Int(4)],
    ),
    read(
        "get_by_key_relative_index_range_count",
        109,
        4,
        &[Int(6), Val(3), Int(4), Int(5)],
    ),
    read(
        "get_by_value_relative_rank_range",
        110,
        3,
        &[Int(5), Val(3), Int(4)],
    ),
    read(
        "get_by_value_relative_rank_range_count",
        110,
        4,
        &[Int(6), Val(3), Int(4), Int(5)],
    ),
];
