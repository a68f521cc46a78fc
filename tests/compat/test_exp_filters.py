"""Filter expressions and expression operations of the official client against the server."""

from __future__ import annotations

from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers import expressions as exp  # type: ignore[import-untyped]
from aerospike_helpers.operations import expression_operations as eo  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat


def _get(client: Any, key: tuple[Any, ...], expr: Any) -> dict[str, Any] | None:
    try:
        _, _, bins = client.get(key, policy={"expressions": expr.compile()})
        return dict(bins)
    except ex.FilteredOut:
        return None


def test_filter_on_get(client: Any, set_name: str) -> None:
    key = ("test", set_name, "e1")
    client.put(key, {"age": 30, "name": "Ann Lee", "tags": ["a", "b"], "score": 2.5})
    assert _get(client, key, exp.GT(exp.IntBin("age"), 25)) is not None
    assert _get(client, key, exp.LT(exp.IntBin("age"), 25)) is None
    both = exp.And(exp.Eq(exp.StrBin("name"), "Ann Lee"), exp.BinExists("tags"))
    assert _get(client, key, both) is not None
    assert _get(client, key, exp.Not(exp.BinExists("tags"))) is None
    assert _get(client, key, exp.GT(exp.FloatBin("score"), 2.0)) is not None


@pytest.mark.filterwarnings("ignore:CmpRegex:DeprecationWarning")
def test_filter_arithmetic_and_regex(client: Any, set_name: str) -> None:
    key = ("test", set_name, "e2")
    client.put(key, {"a": 6, "b": 7, "name": "Ann Lee"})
    assert _get(client, key, exp.Eq(exp.Add(exp.IntBin("a"), exp.IntBin("b")), 13)) is not None
    assert _get(client, key, exp.Eq(exp.Mul(exp.IntBin("a"), 2), 13)) is None
    icase = aerospike.REGEX_ICASE
    assert _get(client, key, exp.CmpRegex(icase, "^ann", exp.StrBin("name"))) is not None
    assert _get(client, key, exp.CmpRegex(aerospike.REGEX_NONE, "^ann", exp.StrBin("name"))) is None


def test_filter_list_and_map_reads(client: Any, set_name: str) -> None:
    key = ("test", set_name, "e3")
    client.put(key, {"tags": ["a", "b", "c"], "m": {"x": 1, "y": 2}})
    size = exp.ListSize(None, exp.ListBin("tags"))
    assert _get(client, key, exp.Eq(size, 3)) is not None
    val = exp.MapGetByKey(
        None, aerospike.MAP_RETURN_VALUE, exp.ResultType.INTEGER, "y", exp.MapBin("m")
    )
    assert _get(client, key, exp.Eq(val, 2)) is not None
    assert _get(client, key, exp.Eq(val, 3)) is None


def test_filter_metadata(client: Any, set_name: str) -> None:
    key = ("test", set_name, "e4")
    client.put(key, {"a": 1})
    assert _get(client, key, exp.Eq(exp.SetName(), set_name)) is not None
    assert _get(client, key, exp.GT(exp.LastUpdateTime(), 0)) is not None


def test_filter_on_query(client: Any, set_name: str) -> None:
    for i in range(10):
        client.put(("test", set_name, i), {"n": i})
    q = client.query("test", set_name)
    expr = exp.GE(exp.IntBin("n"), 7).compile()
    got = sorted(bins["n"] for _, _, bins in q.results(policy={"expressions": expr}))
    assert got == [7, 8, 9]


def test_expression_read_and_write_ops(client: Any, set_name: str) -> None:
    key = ("test", set_name, "e5")
    client.put(key, {"a": 4})
    doubled = exp.Mul(exp.IntBin("a"), 2).compile()
    _, _, res = client.operate(key, [eo.expression_read("out", doubled)])
    assert res == {"out": 8}
    client.operate(key, [eo.expression_write("b", doubled)])
    _, _, got = client.get(key)
    assert got == {"a": 4, "b": 8}
