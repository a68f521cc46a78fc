from __future__ import annotations

import pytest

from aerospike_fluent import F, Return
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError


def test_untyped_bin_inferred_from_literal() -> None:
    assert (F.bin("age") > 25).compile() == ("gt", ("int_bin", "age"), ("int_val", 25))
    assert (F.bin("n") == "Ann").compile() == ("eq", ("string_bin", "n"), ("string_val", "Ann"))
    assert (F.bin("f") <= 1.5).compile() == ("le", ("float_bin", "f"), ("float_val", 1.5))
    assert (F.bin("b") != True).compile() == ("ne", ("bool_bin", "b"), ("bool_val", True))  # noqa: E712


def test_untyped_bin_defaults_to_int_and_reflected_comparison() -> None:
    assert (F.bin("a") == F.bin("b")).compile() == ("eq", ("int_bin", "a"), ("int_bin", "b"))
    assert (F.bin("age") > 25).compile() == ("gt", ("int_bin", "age"), ("int_val", 25))


def test_arithmetic_flattens_and_propagates_type() -> None:
    e = F.bin("a") + F.bin("b") + 1.0
    assert e.compile() == ("num_add", ("float_bin", "a"), ("float_bin", "b"), ("float_val", 1.0))
    assert ((F.bin("a") * F.bin("b")) > F.float_bin("x")).compile() == (
        "gt",
        ("num_mul", ("float_bin", "a"), ("float_bin", "b")),
        ("float_bin", "x"),
    )
    assert (10 - F.int_bin("a")).compile() == ("num_sub", ("int_val", 10), ("int_bin", "a"))
    assert (-F.int_bin("a")).compile() == ("num_sub", ("int_bin", "a"))
    assert (F.bin("a") % 3).compile() == ("num_mod", ("int_bin", "a"), ("int_val", 3))


def test_logic_flattens() -> None:
    a, b, c = F.bin("a") > 1, F.bin("b") > 2, F.bin("c") > 3
    assert (a & b & c).compile()[0] == "and"
    assert len((a & b & c).compile()) == 4
    assert (a | b).compile() == ("or", a.compile(), b.compile())
    assert (~a).compile() == ("not", a.compile())
    assert F.all_of(a, b).compile() == (a & b).compile()
    assert F.any_of(a, b, c).compile() == (a | b | c).compile()


def test_untyped_bin_in_logic_is_bool() -> None:
    assert (F.bin("x") & F.bin("y")).compile() == ("and", ("bool_bin", "x"), ("bool_bin", "y"))


def test_metadata() -> None:
    assert (F.ttl() < 60).compile() == ("lt", ("ttl",), ("int_val", 60))
    assert F.last_update().compile() == ("last_update",)
    assert (F.since_update() > 5).compile() == ("gt", ("since_update",), ("int_val", 5))
    assert F.key_exists().compile() == ("key_exists",)
    assert F.key("str").compile() == ("key", 3)
    assert F.digest_modulo(3).compile() == ("digest_modulo", 3)
    assert F.bin_exists("a").compile() == ("bin_exists", "a")


def test_cdt_read_expressions() -> None:
    assert (F.list_bin("tags").list.size() > 2).compile() == (
        "gt",
        ("lists.size", ("list_bin", "tags"), ()),
        ("int_val", 2),
    )
    e = F.map_bin("doc").map.at_key("a").list.get_by_index(0, "str") == "x"
    assert e.compile() == (
        "eq",
        (
            "lists.get_by_index",
            int(Return.VALUE),
            3,
            ("int_val", 0),
            ("map_bin", "doc"),
            (("map_key", "a"),),
        ),
        ("string_val", "x"),
    )
    count = F.list_bin("l").list.get_by_value(5)
    assert count.value_type == "int"
    assert count.compile()[1] == int(Return.COUNT)
    inverted = F.list_bin("l").list.get_by_value(5, Return.COUNT, inverted=True)
    assert inverted.compile()[1] == int(Return.COUNT) | 0x10000


def test_bad_input_raises_typed_errors_at_the_builder() -> None:
    with pytest.raises(InvalidArgumentError):
        F.bin("")
    with pytest.raises(InvalidArgumentError):
        F.bin("x" * 16)
    with pytest.raises(InvalidTypeError):
        _ = F.bin("a") > object()  # type: ignore[operator]
    with pytest.raises(InvalidArgumentError):
        F.str_bin("s") + 1
    with pytest.raises(InvalidArgumentError):
        F.val(2**63)
    with pytest.raises(InvalidArgumentError):
        F.int_bin("a") & (F.bin("b") > 1)
    with pytest.raises(InvalidArgumentError):
        F.list_bin("l").list.get_by_index(0, "nope")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        F.list_bin("l").list.get_by_value(1, Return.KEY)


def test_expression_has_no_truth_value() -> None:
    with pytest.raises(TypeError):
        bool(F.bin("a") > 1)
    with pytest.raises(TypeError):
        1 < F.bin("a") < 3  # noqa: B015


def test_a_chain_of_negations_too_deep_is_refused_when_built() -> None:
    e = F.bin("a") > 1
    with pytest.raises(InvalidArgumentError, match="nested too deeply"):
        for _ in range(1000):
            e = ~e


def test_nested_arithmetic_too_deep_is_refused_when_built() -> None:
    e = F.bin("a")
    with pytest.raises(InvalidArgumentError, match="nested too deeply"):
        for _ in range(1000):
            e = (e * 2) % 7


def test_long_flat_sums_are_not_deep() -> None:
    e = F.bin("a")
    for _ in range(1000):
        e = e + 1
    assert len(e.compile()) == 1002


def test_the_user_key_type_is_inferred_from_the_comparison() -> None:
    assert (F.key() == "a").compile() == ("eq", ("key", 3), ("string_val", "a"))
    assert (F.key() == 5).compile() == ("eq", ("key", 2), ("int_val", 5))
    assert (F.key() == b"x").compile() == ("eq", ("key", 6), ("blob_val", b"x"))
    with pytest.raises(InvalidTypeError, match="user key"):
        (F.key() == 1.5).compile()
