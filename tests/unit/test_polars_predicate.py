"""The polars predicate → server filter translation (no server): what is pushed, and how."""

from __future__ import annotations

import functools
import operator
from typing import Any

import polars as pl

from aerospike_fluent import polars as af_polars
from aerospike_fluent._polars_predicate import Column, _Walker

SCHEMA = {"id": pl.Int64, "i": pl.Int64, "f": pl.Float64, "s": pl.String, "b": pl.Boolean}


def _pushed(predicate: pl.Expr) -> Any:
    found = af_polars.server_filter(predicate, SCHEMA, key="id")
    return None if found is None else found.compile()


def _text(predicate: pl.Expr) -> str:
    return repr(_pushed(predicate))


def test_int_comparisons_read_int_bins_and_let_other_types_through() -> None:
    assert _pushed(pl.col("i") > 5) == (
        "or",
        ("gt", ("int_bin", "i"), ("int_val", 5)),
        ("not", ("in_list", ("bin_type", "i"), ("list_val", [0, 1]))),
    )
    flipped = _pushed(pl.lit(5) < pl.col("i"))
    assert flipped == _pushed(pl.col("i") > 5)


def test_the_key_column_compares_the_user_key() -> None:
    assert _pushed(pl.col("id") <= 3) == ("le", ("key", 2), ("int_val", 3))
    assert _pushed(pl.col("id").is_null()) == ("not", ("key_exists",))
    assert _pushed(pl.col("id") == "a") is None  # an int key column, a str literal


def test_floats_keep_both_zeros_ints_and_nan() -> None:
    text = _text(pl.col("f") == 0)
    assert "('float_val', 0.0)" in text and "('float_val', -0.0)" in text
    assert "to_float" in text and "inf" in text
    assert _pushed(pl.col("f") > float("nan")) is None


def test_negation_sends_the_complement() -> None:
    assert "'le'" in _text(~(pl.col("i") > 5))
    assert "'ne'" in _text(~pl.col("i").is_in([1, 2]))
    assert _pushed(~pl.col("b")) == _pushed(pl.col("b") == False)  # noqa: E712


def test_what_has_no_server_twin_constrains_nothing() -> None:
    contains = pl.col("s").str.contains("x")
    assert _pushed(contains) is None
    assert _pushed(contains | (pl.col("i") > 1)) is None
    assert _pushed(contains & (pl.col("i") > 1)) == _pushed(pl.col("i") > 1)
    assert _pushed(~(contains & (pl.col("i") > 1))) is None
    assert _pushed(pl.col("i") > pl.col("f")) is None
    assert _pushed(pl.col("nope") > 1) is None
    assert _pushed(pl.col("s").is_in([None])) is None


def test_unknown_tree_shapes_are_not_pushed() -> None:
    walker = _Walker({"i": Column("int")})
    for tree in (
        {"Weird": 1},
        {"BinaryExpr": {"op": "Gt"}},
        {"BinaryExpr": {"left": {"Column": "i"}, "op": "Gt", "right": {"Literal": "?"}}},
        {"Function": {"input": [], "function": {"Boolean": "Not"}}},
        [1, 2],
        "Column",
    ):
        assert walker.pos(tree, 0) is None and walker.neg(tree, 0) is None


def test_a_deep_predicate_still_pushes_what_it_can() -> None:
    leaves = [pl.col("i") != v for v in range(60)]
    deep = functools.reduce(operator.and_, leaves)
    assert _pushed(deep) is not None
