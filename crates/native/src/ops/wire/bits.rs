//! Bit ops (`bit_<fn>` tuples) and HyperLogLog ops (`hll_<fn>` tuples) as wire payloads.
//! Tuple args start at index 2, after the bin: these ops take no context.

use super::spec::{read, write, Arg::*, Spec};

/// Bit ops on blob bins.
pub(crate) static BIT_OPS: &[Spec] = &[
    write("resize", 0, 3, &[Int(2), Byte(4), Byte(3)]),
    write("insert", 1, 3, &[Int(2), Blob(3), Byte(4)]),
    write("remove", 2, 3, &[Int(2), Int(3), Byte(4)]),
    write("set", 3, 4, &[Int(2), Int(3), Blob(4), Byte(5)]),
    write("or", 4, 4, &[Int(2), Int(3), Blob(4), Byte(5)]),
    write("xor", 5, 4, &[Int(2), Int(3), Blob(4), Byte(5)]),
    write("and", 6, 4, &[Int(2), Int(3), Blob(4), Byte(5)]),
    write("not", 7, 3, &[Int(2), Int(3), Byte(4)]),
    write("lshift", 8, 4, &[Int(2), Int(3), Int(4), Byte(5)]),
    write("rshift", 9, 4, &[Int(2), Int(3), Int(4), Byte(5)]),
    write(
        "add",
        10,
        6,
        &[Int(2), Int(3), Int(4), Byte(7), Overflow(5, 6)],
    ),
    write(
        "subtract",
        11,
        6,
        &[Int(2), Int(3), Int(4), Byte(7), Overflow(5, 6)],
    ),
    write("set_int", 12, 4, &[Int(2), Int(3), Int(4), Byte(5)]),
    read("get", 50, 2, &[Int(2), Int(3)]),
    read("count", 51, 2, &[Int(2), Int(3)]),
    read("lscan", 52, 3, &[Int(2), Int(3), Bool(4)]),
    read("rscan", 53, 3, &[Int(2), Int(3), Bool(4)]),
    read("get_int", 54, 3, &[Int(2), Int(3), Signed(4)]),
];

/// HyperLogLog ops.
pub(crate) static HLL_OPS: &[Spec] = &[
    write("init", 0, 3, &[Int(2), Int(3), Byte(4)]),
    write("add", 1, 4, &[List(2), Int(3), Int(4), Byte(5)]),
    write("set_union", 2, 2, &[Sketches(2), Byte(3)]),
    write("refresh_count", 3, 0, &[]),
    write("fold", 4, 1, &[Int(2)]),
    read("get_count", 50, 0, &[]),
    read("get_union", 51, 1, &[Sketches(2)]),
    read("get_union_count", 52, 1, &[Sketches(2)]),
    read("get_intersect_count", 53, 1, &[Sketches(2)]),
    read("get_similarity", 54, 1, &[Sketches(2)]),
    read("describe", 55, 0, &[]),
];
