"""AEL text past its bounds is refused at once with an ``AelSyntaxError`` (issue 55).

Brackets nested past the limit (a ``RecursionError`` before), number literals past Python's int
digit limit (a ``ValueError``), text and token counts past the limits; chains of one operator
build one node, in time linear in their length."""

from __future__ import annotations

from typing import Any

import pytest

from aerospike_fluent import F
from aerospike_fluent._exec import Sync
from aerospike_fluent.errors import AelSyntaxError
from aerospike_fluent.exp import _ael_limits as limits
from aerospike_fluent.scopes import RecordSet


@pytest.mark.parametrize("opening", ["[", "{", "[" * 30 + "{1: " * 40])
def test_deeply_nested_constants_are_refused_with_a_position(opening: str) -> None:
    text = "$.a in " + opening * (2000 // len(opening))
    with pytest.raises(AelSyntaxError, match="nested too deeply") as info:
        F.parse(text)
    assert 0 < info.value.position < len(text)


def test_opening_brackets_alone_are_a_syntax_error() -> None:
    for text in ("[" * 2000, "{" * 2000, "(" * 2000):
        with pytest.raises(AelSyntaxError, match="nested too deeply"):
            F.parse(text)


def test_constants_nest_up_to_the_limit() -> None:
    inner = "[" * (limits.MAX_NESTING - 2) + "1" + "]" * (limits.MAX_NESTING - 2)
    assert F.parse(f"$.a in [{inner}]").compile()[0] == "in_list"
    parentheses = "(" * (limits.MAX_NESTING - 1) + "$.a == 1" + ")" * (limits.MAX_NESTING - 1)
    assert F.parse(parentheses).compile() == (F.bin("a") == 1).compile()


@pytest.mark.parametrize(
    "text",
    [
        "$.a == " + "9" * 4301,
        "$.a == " + "1" * 4300,
        "$.m." + "9" * 5000 + " == 1",
        "$.l.[" + "9" * 5000 + "] == 1",
        "$.a == 0x" + "f" * 5000,
    ],
)
def test_long_number_literals_are_syntax_errors(text: str) -> None:
    with pytest.raises(AelSyntaxError, match="number literal") as info:
        F.parse(text)
    assert text[info.value.position] in "0123456789."


def test_numbers_just_past_64_bits_are_refused_as_before() -> None:
    with pytest.raises(AelSyntaxError, match="out of range"):
        F.parse("$.a == " + "9" * 30)


def test_text_past_the_size_limit_is_refused_before_tokenizing() -> None:
    text = "$.a == '" + "x" * limits.MAX_TEXT + "'"
    with pytest.raises(AelSyntaxError, match="characters, more than") as info:
        F.parse(text)
    assert len(str(info.value)) < 500  # the message shows an excerpt, not the whole text


def test_token_count_past_the_limit_is_refused() -> None:
    terms = limits.MAX_TOKENS // 4 + 1
    text = " and ".join(["$.a"] * terms)
    with pytest.raises(AelSyntaxError, match="tokens"):
        F.parse(text)
    with pytest.raises(AelSyntaxError, match="tokens"):
        F.parse("$.a==1" + "+1" * (limits.MAX_TOKENS // 2))


def test_the_sum_that_ran_past_95_seconds_is_refused_at_once() -> None:
    with pytest.raises(AelSyntaxError, match="more than"):
        F.parse("$.a == 1" + " + 1" * 50_000)


def test_long_chains_within_the_limits_build_one_node() -> None:
    terms = limits.MAX_TOKENS // 8
    e = F.parse(" and ".join(f"$.a{i % 10} == {i}" for i in range(terms)))
    assert e.compile()[0] == "and"
    assert len(e.compile()) == terms + 1
    total = F.parse("$.a == 1" + " + 1" * (limits.MAX_TOKENS // 2 - 4)).compile()
    assert total[0] == "eq" and total[2][0] == "num_add"


@pytest.mark.parametrize(
    ("text", "built"),
    [
        ("$.a and $.b or $.c and $.d", (F.bin("a") & F.bin("b")) | (F.bin("c") & F.bin("d"))),
        ("($.a and $.b) and $.c", F.bin("a") & F.bin("b") & F.bin("c")),
        ("$.a + 1 - 2 + 3 == 0", F.bin("a") + 1 - 2 + 3 == 0),
        ("$.a * 2 / 3 % 4 % 5 == 0", F.bin("a") * 2 / 3 % 4 % 5 == 0),
        ("$.a & 1 & 2 | 3 == 0", F.int_or(F.int_and(F.bin("a"), 1, 2), 3) == 0),
        ("($.a & 1) & 2 == 0", F.int_and(F.int_and(F.bin("a"), 1), 2) == 0),
    ],
)
def test_chains_build_what_the_operators_build(text: str, built: Any) -> None:
    assert F.parse(text).compile() == built.compile()


def test_where_refuses_hostile_text_with_the_typed_error(users: RecordSet[Sync]) -> None:
    for text in ("[" * 2000, "$.a == " + "9" * 4301, "$.a == 1" + " + 1" * 50_000):
        with pytest.raises(AelSyntaxError):
            users.query().where(text)
