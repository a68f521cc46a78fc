from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aerospike_fluent import F
from aerospike_fluent.errors import AelSyntaxError, InvalidArgumentError
from aerospike_fluent.exp import Exp


def same(text: str, built: Exp) -> None:
    assert F.parse(text).compile() == built.compile()


def test_comparisons_and_logic() -> None:
    same("$.age > 25 and $.country == 'US'", (F.bin("age") > 25) & (F.bin("country") == "US"))
    same("$.a >= 1 or not $.b < 2", (F.bin("a") >= 1) | ~(F.bin("b") < 2))
    same('$.a != "x"', F.bin("a") != "x")
    same("($.a > 1 || $.b > 2) && $.c", ((F.bin("a") > 1) | (F.bin("b") > 2)) & F.bin("c"))


def test_precedence_and_arithmetic() -> None:
    same("$.a + $.b * 2 > 10", F.bin("a") + F.bin("b") * 2 > 10)
    same("($.a + $.b) * 2 > 10", (F.bin("a") + F.bin("b")) * 2 > 10)
    same("$.a - 1 - 2 == 0", F.bin("a") - 1 - 2 == 0)
    same("-$.a < -1.5", -F.bin("a") < -1.5)
    same("$.a % 3 == 1", F.bin("a") % 3 == 1)
    same("abs($.a) > max($.b, 3)", abs(F.bin("a")) > F.max_(F.bin("b"), 3))


def test_literals_and_escapes() -> None:
    same("$.s == 'it\\'s'", F.bin("s") == "it's")
    same("$.f == 1e3", F.bin("f") == 1000.0)
    same("$.b == true", F.bin("b") == True)  # noqa: E712
    same("$.'odd name' == 1", F.bin("odd name") == 1)


def test_typed_bins_and_bin_methods() -> None:
    same("$.a.get(type: FLOAT) > 1", F.float_bin("a") > 1)
    same("$.a.get(type: STRING) == 'x'", F.str_bin("a") == "x")
    same("$.a.exists() and $.b.type() == 1", F.bin_exists("a") & (F.bin_type("b") == 1))


def test_metadata_functions() -> None:
    same("$.ttl() < 60", F.ttl() < 60)
    same("ttl() < 60", F.ttl() < 60)
    same("$.lastUpdate() > 0", F.last_update() > 0)
    same("last_update() > 0", F.last_update() > 0)
    same("$.sinceUpdate() > 5 and $.keyExists()", (F.since_update() > 5) & F.key_exists())
    same("$.setName() == 'users'", F.set_name() == "users")
    same("$.digestModulo(3) == 0", F.digest_modulo(3) == 0)
    same("$.ttl > 1", F.bin("ttl") > 1)  # without parentheses it is a bin


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("", 0),
        ("$.age >> ", 9),
        ("$.age > ", 8),
        ("($.a > 1", 8),
        ("$.a > 1 $.b", 8),
        ("1 < $.a < 3", 8),
        ("$.a.get(type: DATE) > 1", 14),
        ("foo() > 1", 0),
        ("$.a > 'x", 6),
        ("$.a ^ ^ 2", 6),
        ("$.n.get(type: STRING) + 1 > 2", 22),
        ("$.a.bogus()", 4),
        ("$.a > 99999999999999999999", 6),
        # in a chain of one operator, an operand's error points at the operator before it
        ("$.a == 1 and 2 and $.b == 1", 9),
        ("$.a == 1 and $.b == 1 and 2", 22),
        ("$.a + 1 + 'x' > 1", 8),
        ("$.a & 1 & 'x' == 1", 8),
    ],
)
def test_syntax_errors_carry_a_position(text: str, position: int) -> None:
    with pytest.raises(AelSyntaxError) as info:
        F.parse(text)
    assert info.value.position == position, str(info.value)
    assert isinstance(info.value, InvalidArgumentError)


def test_where_accepts_ael_or_expressions() -> None:
    from aerospike_fluent._chain import filter_exp

    assert filter_exp("$.a > 1") == (F.bin("a") > 1).compile()
    with pytest.raises(InvalidArgumentError):
        filter_exp("$.a + 1")  # not boolean


# --------------------------------------------------------------------- round trip

names = st.sampled_from(["a", "b", "age", "ttl", "and", "x_1", "odd name"])
ints = st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1)
floats = st.floats(allow_nan=False, allow_infinity=False)
texts = st.text(max_size=8)


def _num_leaf() -> st.SearchStrategy[Exp]:
    return st.one_of(
        ints.map(F.val),
        names.map(F.bin),
        names.map(F.int_bin),
        st.sampled_from([F.ttl(), F.since_update(), F.last_update(), F.void_time()]),
    )


def _extend_num(children: st.SearchStrategy[Exp]) -> st.SearchStrategy[Exp]:
    ops: list[Any] = [Exp.__add__, Exp.__sub__, Exp.__mul__, Exp.__truediv__, Exp.__mod__]
    return st.one_of(
        st.tuples(st.sampled_from(ops), children, children).map(lambda t: t[0](t[1], t[2])),
        children.map(lambda e: -e),
        children.map(abs),
    )


num = st.recursive(_num_leaf(), _extend_num, max_leaves=6)
cmp_ops: list[Any] = [Exp.__eq__, Exp.__ne__, Exp.__lt__, Exp.__le__, Exp.__gt__, Exp.__ge__]
comparison = st.one_of(
    st.tuples(st.sampled_from(cmp_ops), num, num).map(lambda t: t[0](t[1], t[2])),
    st.tuples(st.sampled_from(cmp_ops), names.map(F.bin), floats).map(lambda t: t[0](t[1], t[2])),
    st.tuples(names.map(F.str_bin), texts).map(lambda t: t[0] == t[1]),
    names.map(F.bin_exists),
    st.just(F.key_exists()),
)


def _extend_bool(children: st.SearchStrategy[Exp]) -> st.SearchStrategy[Exp]:
    return st.one_of(
        st.tuples(children, children).map(lambda t: t[0] & t[1]),
        st.tuples(children, children).map(lambda t: t[0] | t[1]),
        children.map(lambda e: ~e),
    )


boolean = st.recursive(comparison, _extend_bool, max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(boolean)
def test_render_then_parse_round_trips(e: Exp) -> None:
    text = F.to_ael(e)
    assert F.parse(text).compile() == e.compile(), text


@pytest.mark.parametrize(
    "text",
    [
        "(" * 150 + "$.a > 1" + ")" * 150,
        "not " * 400 + "$.a > 1",
        "$.a > " + "-" * 400 + "1",
    ],
)
def test_deep_nesting_is_a_syntax_error_not_a_recursion_error(text: str) -> None:
    with pytest.raises(AelSyntaxError, match="nested too deeply"):
        F.parse(text)


def test_nesting_within_the_limit_parses() -> None:
    assert F.parse("(" * 60 + "$.a > 1" + ")" * 60).compile() == F.parse("$.a > 1").compile()
