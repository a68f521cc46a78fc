"""The plan contract: the tuples the fluent layer hands the native core.

An operation is ``(name, bin, *args)``; a list or map operation also carries its CDT context:
``("list_<name>", bin, ctx, *args)``; a bit or HLL operation is ``("bit_<name>" |
"hll_<name>", bin, *args)`` (no context). An expression node is ``(name, *args)``, with list, map,
bit and HLL reads named ``lists.<name>`` / ``maps.<name>`` / ``bits.<name>`` / ``hlls.<name>``.
Each family's names are declared here once; ``tests/unit/test_plan_contract.py`` checks them
against the native files that convert them, and mypy checks every builder against them.
"""

from __future__ import annotations

from typing import Any, Literal, NewType, get_args

from aerospike_fluent._types import Op

ScalarOp = Literal[
    "add",
    "append",
    "delete",
    "exp_read",
    "exp_write",
    "prepend",
    "read",
    "read_all",
    "read_header",
    "touch",
    "write",
]
"""Ops on bins and records (``crates/native/src/ops/scalar.rs``)."""

CdtRemove = Literal[
    "remove_by_index",
    "remove_by_index_range",
    "remove_by_index_range_count",
    "remove_by_rank",
    "remove_by_rank_range",
    "remove_by_rank_range_count",
    "remove_by_value",
    "remove_by_value_list",
    "remove_by_value_range",
    "remove_by_value_relative_rank_range",
    "remove_by_value_relative_rank_range_count",
]
"""The remove-by selectors lists and maps share (operations and modify expressions)."""

ListOp = Literal[
    "append",
    "append_items",
    "clear",
    "create",
    "get",
    "get_by_index",
    "get_by_index_range",
    "get_by_index_range_count",
    "get_by_rank",
    "get_by_rank_range",
    "get_by_rank_range_count",
    "get_by_value",
    "get_by_value_list",
    "get_by_value_range",
    "get_by_value_relative_rank_range",
    "get_by_value_relative_rank_range_count",
    "get_range",
    "get_range_from",
    "increment",
    "insert",
    "insert_items",
    "pop",
    "pop_range",
    "pop_range_from",
    "remove",
    CdtRemove,
    "remove_range",
    "remove_range_from",
    "set",
    "set_order",
    "set_with_policy",
    "size",
    "sort",
    "trim",
]
"""List ops, sent as ``list_<name>`` (``crates/native/src/ops/list.rs``)."""

MapOp = Literal[
    "clear",
    "create",
    "decrement_value",
    "get_by_index",
    "get_by_index_range",
    "get_by_index_range_from",
    "get_by_key",
    "get_by_key_list",
    "get_by_key_range",
    "get_by_key_relative_index_range",
    "get_by_key_relative_index_range_count",
    "get_by_rank",
    "get_by_rank_range",
    "get_by_rank_range_from",
    "get_by_value",
    "get_by_value_list",
    "get_by_value_range",
    "get_by_value_relative_rank_range",
    "get_by_value_relative_rank_range_count",
    "increment_value",
    "put",
    "put_items",
    "remove_by_index",
    "remove_by_index_range",
    "remove_by_index_range_from",
    "remove_by_key",
    "remove_by_key_list",
    "remove_by_key_range",
    "remove_by_key_relative_index_range",
    "remove_by_key_relative_index_range_count",
    "remove_by_rank",
    "remove_by_rank_range",
    "remove_by_rank_range_from",
    "remove_by_value",
    "remove_by_value_list",
    "remove_by_value_range",
    "remove_by_value_relative_rank_range",
    "remove_by_value_relative_rank_range_count",
    "set_policy",
    "size",
]
"""Map ops, sent as ``map_<name>`` (``crates/native/src/ops/map.rs``)."""

BitOp = Literal[
    "add",
    "and",
    "count",
    "get",
    "get_int",
    "insert",
    "lscan",
    "lshift",
    "not",
    "or",
    "remove",
    "resize",
    "rscan",
    "rshift",
    "set",
    "set_int",
    "subtract",
    "xor",
]
"""Bit ops on blobs, sent as ``bit_<name>`` (``crates/native/src/ops/bit.rs``)."""

HllOp = Literal[
    "add",
    "describe",
    "fold",
    "get_count",
    "get_intersect_count",
    "get_similarity",
    "get_union",
    "get_union_count",
    "init",
    "refresh_count",
    "set_union",
]
"""HyperLogLog ops, sent as ``hll_<name>`` (``crates/native/src/ops/hll.rs``)."""

CoreNode = Literal[
    "and",
    "bin",
    "bin_exists",
    "bin_type",
    "blob_bin",
    "blob_val",
    "bool_bin",
    "bool_val",
    "cond",
    "def",
    "digest_modulo",
    "eq",
    "exclusive",
    "exp_let",
    "float_bin",
    "float_val",
    "ge",
    "geo_bin",
    "geo_compare",
    "geo_val",
    "gt",
    "hll_bin",
    "in_list",
    "infinity",
    "int_and",
    "int_arshift",
    "int_bin",
    "int_count",
    "int_lscan",
    "int_lshift",
    "int_not",
    "int_or",
    "int_rscan",
    "int_rshift",
    "int_val",
    "int_xor",
    "is_tombstone",
    "key",
    "key_exists",
    "last_update",
    "le",
    "let",
    "list_bin",
    "list_val",
    "lt",
    "map_bin",
    "map_keys",
    "map_val",
    "map_values",
    "max",
    "min",
    "ne",
    "nil",
    "not",
    "num_abs",
    "num_add",
    "num_ceil",
    "num_div",
    "num_floor",
    "num_log",
    "num_mod",
    "num_mul",
    "num_pow",
    "num_sub",
    "or",
    "record_size",
    "regex_compare",
    "set_name",
    "since_update",
    "string_bin",
    "string_val",
    "to_float",
    "to_int",
    "ttl",
    "unknown",
    "var",
    "void_time",
    "wildcard",
    "xor",
]
"""Expression nodes: values, bins, metadata, logic, arithmetic (``expr/core.rs``)."""

ListNode = Literal[
    "get_by_index",
    "get_by_index_range",
    "get_by_index_range_count",
    "get_by_rank",
    "get_by_rank_range",
    "get_by_rank_range_count",
    "get_by_value",
    "get_by_value_list",
    "get_by_value_range",
    "get_by_value_relative_rank_range",
    "size",
]
"""List read expressions, sent as ``lists.<name>`` (``crates/native/src/expr/list.rs``)."""

MapNode = Literal[
    "get_by_index",
    "get_by_index_range",
    "get_by_index_range_count",
    "get_by_key",
    "get_by_key_list",
    "get_by_key_range",
    "get_by_rank",
    "get_by_rank_range",
    "get_by_rank_range_count",
    "get_by_value",
    "get_by_value_list",
    "get_by_value_range",
    "size",
]
"""Map read expressions, sent as ``maps.<name>`` (``crates/native/src/expr/map.rs``)."""

ListModifyNode = Literal[
    "append",
    "append_items",
    "clear",
    "increment",
    "insert",
    "insert_items",
    CdtRemove,
    "set",
    "sort",
]
"""List modify expressions (the changed bin), sent as ``lists.<name>`` too."""

MapModifyNode = Literal[
    CdtRemove,
    "clear",
    "increment",
    "put",
    "put_items",
    "remove_by_key",
    "remove_by_key_list",
    "remove_by_key_range",
    "remove_by_key_relative_index_range",
    "remove_by_key_relative_index_range_count",
]
"""Map modify expressions (the changed bin), sent as ``maps.<name>`` too."""


BitNode = Literal["count", "get", "get_int", "lscan", "rscan"]
"""Bit read expressions, sent as ``bits.<name>`` (``crates/native/src/expr/bit.rs``)."""

BitModifyNode = Literal[
    "add",
    "and",
    "insert",
    "lshift",
    "not",
    "or",
    "remove",
    "resize",
    "rshift",
    "set",
    "set_int",
    "subtract",
    "xor",
]
"""Bit modify expressions (the changed blob), sent as ``bits.<name>`` too."""


HllNode = Literal[
    "describe",
    "get_count",
    "get_intersect_count",
    "get_similarity",
    "get_union",
    "get_union_count",
    "may_contain",
]
"""HLL read expressions, sent as ``hlls.<name>`` (``crates/native/src/expr/hll.rs``)."""

HllModifyNode = Literal["add", "init"]
"""HLL modify expressions (the changed HLL), sent as ``hlls.<name>`` too."""

BIT_READS = frozenset(get_args(BitNode))
"""The bit ops that only read: the ones that are also read expressions."""
HLL_READS = frozenset(get_args(HllNode)) - {"may_contain"}
"""The HLL ops that only read: the read expressions but ``may_contain`` (no such op)."""


def scalar_op(name: ScalarOp, bin_name: str | None, *args: Any) -> Op:
    """``(name, bin, *args)`` (no bin for the record-wide reads)."""
    return (name, bin_name, *args)


_SCALAR_READS = frozenset({"read", "read_all", "read_header", "exp_read"})
_FAMILY_READS = frozenset(f"bit_{name}" for name in BIT_READS) | frozenset(
    f"hll_{name}" for name in HLL_READS
)


def reads(op: Op) -> bool:
    """Whether an op returns something (a bin read or a collection selector)."""
    name = op[0]
    return (
        name in _SCALAR_READS
        or name.startswith(("list_get", "map_get", "list_size", "map_size"))
        or name in _FAMILY_READS
    )


def list_op(name: ListOp, bin_name: str, ctx: tuple[Any, ...], *args: Any) -> Op:
    """``("list_<name>", bin, ctx, *args)``."""
    return (f"list_{name}", bin_name, ctx, *args)


def map_op(name: MapOp, bin_name: str, ctx: tuple[Any, ...], *args: Any) -> Op:
    """``("map_<name>", bin, ctx, *args)``."""
    return (f"map_{name}", bin_name, ctx, *args)


def bit_op(name: BitOp, bin_name: str, *args: Any) -> Op:
    """``("bit_<name>", bin, *args)``."""
    return (f"bit_{name}", bin_name, *args)


def hll_op(name: HllOp, bin_name: str, *args: Any) -> Op:
    """``("hll_<name>", bin, *args)``."""
    return (f"hll_{name}", bin_name, *args)


CdtNode = NewType("CdtNode", str)
"""A qualified list, map, bit or HLL read expression name (``lists.<name>``, ``maps.<name>``,
``bits.<name>``, ``hlls.<name>``)."""

Node = CoreNode | CdtNode
"""Any expression node name."""


def list_node(name: ListNode | ListModifyNode) -> CdtNode:
    """Qualify a list read or modify expression's name."""
    return CdtNode(f"lists.{name}")


def map_node(name: MapNode | MapModifyNode) -> CdtNode:
    """Qualify a map read or modify expression's name."""
    return CdtNode(f"maps.{name}")


def bit_node(name: BitNode | BitModifyNode) -> CdtNode:
    """Qualify a bit read expression's name."""
    return CdtNode(f"bits.{name}")


def hll_node(name: HllNode | HllModifyNode) -> CdtNode:
    """Qualify an HLL read expression's name."""
    return CdtNode(f"hlls.{name}")


FAMILIES: dict[str, frozenset[str]] = {
    "ops/scalar.rs": frozenset(get_args(ScalarOp)),
    "ops/list.rs": frozenset(get_args(ListOp)),
    "ops/map.rs": frozenset(get_args(MapOp)),
    "ops/bit.rs": frozenset(get_args(BitOp)),
    "ops/hll.rs": frozenset(get_args(HllOp)),
    "expr/core.rs": frozenset(get_args(CoreNode)),
    "expr/list.rs": frozenset(get_args(ListNode) + get_args(ListModifyNode)),
    "expr/map.rs": frozenset(get_args(MapNode) + get_args(MapModifyNode)),
    "expr/bit.rs": frozenset(get_args(BitNode) + get_args(BitModifyNode)),
    "expr/hll.rs": frozenset(get_args(HllNode) + get_args(HllModifyNode)),
}
"""Each family's names, by the native file (under ``crates/native/src/``) that converts them."""
