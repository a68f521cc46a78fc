"""AEL paths into lists and maps, parameters, let/when, ``in``, bitwise operators and
constants: each parses to what the builder makes, and ``to_ael`` writes it back."""

from __future__ import annotations

import pytest

from aerospike_fluent import F, Return
from aerospike_fluent.errors import AelSyntaxError, InvalidArgumentError
from aerospike_fluent.exp import Exp


def same(text: str, built: Exp) -> None:
    assert F.parse(text).compile() == built.compile(), text


def round_trip(e: Exp) -> str:
    text = F.to_ael(e)
    assert F.parse(text).compile() == e.compile(), text
    return text


def test_map_keys_and_list_indexes_are_typed_by_use() -> None:
    m, lst = F.map_bin("m"), F.list_bin("l")
    same("$.m.name == 'Ann'", m.map.get_by_key("name", "str") == "Ann")
    same("$.m.a.b > 5", m.map.at_key("a").map.get_by_key("b", "int") > 5)
    same("$.m.'odd key' == 1.5", m.map.get_by_key("odd key", "float") == 1.5)
    same("$.l.[0] == 'x'", lst.list.get_by_index(0, "str") == "x")
    same("$.l[0] == 'x'", lst.list.get_by_index(0, "str") == "x")
    same("$.a.b[0] > 1", F.map_bin("a").map.at_key("b").list.get_by_index(0, "int") > 1)
    same("$.l.[-1].[#0] < 3", lst.list.at_index(-1).list.get_by_rank(0, "int") < 3)
    same("$.m.{0} == 1", m.map.get_by_index(0, "int") == 1)
    same("$.m.{#-1} == 1", m.map.get_by_rank(-1, "int") == 1)
    same("$.m.5 == 'v'", m.map.get_by_key(5, "str") == "v")
    same("$.m.k + 1 > 2", m.map.get_by_key("k", "int") + 1 > 2)


def test_explicit_types_return_types_counts_and_exists() -> None:
    m, lst = F.map_bin("m"), F.list_bin("l")
    same("$.m.k.get(type: FLOAT) > 1.0", m.map.get_by_key("k", "float") > 1.0)
    same(
        "$.m.k.get(type: INT, return: RANK) == 0",
        m.map.get_by_key("k", "int", Return.RANK) == 0,
    )
    same("$.l.[=5].count() == 2", lst.list.get_by_value(5, Return.COUNT) == 2)
    same("$.m.{=5}.exists()", m.map.get_by_value(5, Return.EXISTS))
    same("$.l.[0].[].count() > 1", lst.list.at_index(0).list.size() > 1)
    same("$.m.a.{}.count() == 0", m.map.at_key("a").map.size() == 0)


def test_ranges_lists_and_inversion() -> None:
    lst, m = F.list_bin("l"), F.map_bin("m")
    same("$.l.[1:3].count() == 2", lst.list.get_by_index_range(1, 2, Return.COUNT) == 2)
    same("$.l.[2:].count() > 0", lst.list.get_by_index_range(2, None, Return.COUNT) > 0)
    same("$.l.[#0:2] == [1, 2]", lst.list.get_by_rank_range(0, 2) == [1, 2])
    same(
        "$.l.[!=1:5].count() == 0",
        lst.list.get_by_value_range(1, 5, Return.COUNT, inverted=True) == 0,
    )
    same("$.l.[=1,2].count() == 2", lst.list.get_by_value_list([1, 2], Return.COUNT) == 2)
    same(
        "$.l.[#-1:~10] == [9]",
        lst.list.get_by_value_relative_rank_range(10, -1) == [9],
    )
    same("$.m.{a,b}.count() == 2", m.map.get_by_key_list(["a", "b"], Return.COUNT) == 2)
    same("$.m.{a-c}.count() == 2", m.map.get_by_key_range("a", "c", Return.COUNT) == 2)
    open_end = m.map.get_by_key_range("a", None, Return.COUNT, inverted=True)
    same("$.m.{!a-}.count() == 2", open_end == 2)


def test_parameters_are_values_never_text() -> None:
    built = F.parse("$.name == ?0 and $.age > ?1", "x' or true", 3)
    assert built.compile() == ((F.bin("name") == "x' or true") & (F.bin("age") > 3)).compile()
    named = F.parse("$.age > ?min", min=18)
    assert named.compile() == (F.bin("age") > 18).compile()
    assert F.parse("$.tags in ?0", ["a"]).compile() == F.in_list(F.bin("tags"), ["a"]).compile()
    with pytest.raises(InvalidArgumentError):
        F.parse("$.a > ?1", 5)
    with pytest.raises(InvalidArgumentError):
        F.parse("$.a > ?nope")


def test_let_when_in_and_bitwise() -> None:
    same(
        "let(b = $.balance, c = ${b} * 2) then (${c} > 10)",
        F.let(b=F.bin("balance"), c=F.var("b") * 2).then(F.var("c") > 10),
    )
    same(
        "when($.a > 1 => 'big', $.a > 0 => 'small', default => 'none') == 'big'",
        F.cond(F.bin("a") > 1, "big", F.bin("a") > 0, "small", "none") == "big",
    )
    same("$.a in [1, 2, 3]", F.in_list(F.bin("a"), [1, 2, 3]))
    same("$.m == {1: 'a', 'k': [1, 2.5]}", F.bin("m") == {1: "a", "k": [1, 2.5]})
    same("$.f & 0xff | 0b1 == 1", F.int_or(F.int_and(F.bin("f"), 0xFF), 1) == 1)
    same("$.f & 1 & 2 == 0", F.int_and(F.bin("f"), 1, 2) == 0)
    same("$.f ^ 3 == 0", F.int_xor(F.bin("f"), 3) == 0)
    same("$.f << 2 >> 1 == 2", F.arshift(F.lshift(F.bin("f"), 2), 1) == 2)
    same("$.f >>> 60 == 15", F.rshift(F.bin("f"), 60) == 15)
    same("~$.f == -1", F.int_not(F.bin("f")) == -1)
    same("+$.f == 1", F.bin("f") == 1)
    same("exclusive($.a == 1, $.b == 2)", F.exclusive(F.bin("a") == 1, F.bin("b") == 2))
    same("int_count($.f) == 2", F.int_count(F.bin("f")) == 2)
    same("not($.a == 1)", ~(F.bin("a") == 1))
    same("$.deviceSize() > 0", F.device_size() > 0)


@pytest.mark.parametrize(
    "e",
    [
        F.map_bin("m").map.at_key("a").map.get_by_key("b", "str") == "x",
        F.list_bin("l").list.at_rank(0).list.get_by_index(1, "float") > 1.5,
        F.map_bin("m").map.at_index(0).map.get_by_rank(-1, "int") == 2,
        F.list_bin("l").list.get_by_value(3, Return.COUNT) > 1,
        F.list_bin("l").list.get_by_index_range(1, 2, Return.COUNT) == 2,
        F.list_bin("l").list.get_by_rank_range(0, None, Return.VALUE, inverted=True) == [1],
        F.map_bin("m").map.get_by_value_range(1, 5, Return.COUNT) == 2,
        F.map_bin("m").map.get_by_key_list(["a", "b"], Return.KEY) == ["a"],
        F.list_bin("l").list.get_by_value_list([1, 2], Return.INDEX) == [0],
        F.map_bin("m").map.at_value(7).map.get_by_key("z", "bool") == True,  # noqa: E712
        F.list_bin("l").list.get_by_value_relative_rank_range(5, -1, Return.COUNT) == 1,
        F.let(x=F.int_bin("a")).then(F.cond(F.var("x", "int") > 1, F.var("x", "int"), 0)) > 0,
        F.in_list(F.str_bin("s"), ["a", "b"]),
        (F.int_and(F.bin("f"), 7) << 1) == F.int_count(F.bin("g")),
        F.exclusive(F.bin("a") == 1, F.bin("b") == 1, F.bin("c") == 1),
        F.bin("m") == {"k": [1, "x", 2.5, True]},
    ],
)
def test_builder_expressions_round_trip(e: Exp) -> None:
    round_trip(e)


def test_path_errors_carry_positions() -> None:
    for text in ("$.l.[1:", "$.l.[#]", "$.m.{a} == 1", "$.l.[3:1] == 1", "$.l.[] == 1"):
        with pytest.raises(AelSyntaxError):
            F.parse(text)
    with pytest.raises(InvalidArgumentError):
        F.to_ael(F.list_bin("l").list.get_by_index(0, "int", inverted=True) == 1)
