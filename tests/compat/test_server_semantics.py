"""Answers a real server gives to the official client, checked on the server under test.

Each expectation comes from the official client's own suite, run against a real CE server:
result orders, unsigned counts, key/value results, wildcards, expression typing and flags.
"""

from __future__ import annotations

from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers import cdt_ctx  # type: ignore[import-untyped]
from aerospike_helpers import expressions as xp
from aerospike_helpers.operations import (  # type: ignore[import-untyped]
    expression_operations as eo,
)
from aerospike_helpers.operations import list_operations as lo
from aerospike_helpers.operations import map_operations as mo

pytestmark = pytest.mark.compat


def _op(client: Any, key: tuple[str, str, str], *ops: Any) -> Any:
    return client.operate(key, list(ops))[2]


def test_list_rank_range_values_come_in_the_servers_order(client: Any, set_name: str) -> None:
    key = ("test", set_name, "rank")
    client.put(key, {"l": [7, 6, 5, 8, 9, 10]})
    # ranks from the low end come highest rank first, from the high end in rank order
    low = lo.list_get_by_rank_range("l", 0, aerospike.LIST_RETURN_VALUE, 3)
    assert _op(client, key, low) == {"l": [7, 6, 5]}
    high = lo.list_get_by_rank_range("l", 2, aerospike.LIST_RETURN_VALUE)
    assert _op(client, key, high) == {"l": [7, 8, 9, 10]}
    ranks = lo.list_get_by_rank_range("l", 0, aerospike.LIST_RETURN_RANK, 3)
    assert _op(client, key, ranks) == {"l": [0, 1, 2]}
    # a value interval answers in index order
    interval = lo.list_get_by_value_range("l", aerospike.LIST_RETURN_VALUE, 6, 9)
    assert _op(client, key, interval) == {"l": [7, 6, 8]}


def test_negative_counts_run_to_the_end(client: Any, set_name: str) -> None:
    key = ("test", set_name, "trim")
    client.put(key, {"l": [1, 2, 3, 4]})
    client.operate(key, [{"op": aerospike.OP_LIST_TRIM, "bin": "l", "index": 1, "val": -9}])
    assert client.get(key)[2] == {"l": [2, 3, 4]}


def test_value_list_ranks_follow_the_values_asked_for(client: Any, set_name: str) -> None:
    key = ("test", set_name, "vlist")
    client.put(key, {"l": ["numbers", [1, 2, 3]]})
    op = lo.list_get_by_value_list("l", [[1, 2, 3], "numbers"], aerospike.LIST_RETURN_RANK)
    assert _op(client, key, op) == {"l": [1, 0]}


def test_map_key_value_results_are_pairs_in_order(client: Any, set_name: str) -> None:
    key = ("test", set_name, "kv")
    client.put(key, {"m": {"a": 1, "b": 2, "c": 3}})
    op = mo.map_remove_by_key("m", "c", aerospike.MAP_RETURN_KEY_VALUE)
    assert _op(client, key, op) == {"m": ["c", 3]}


def test_inverted_map_rank_range_that_leaves_a_head_is_in_rank_order(
    client: Any, set_name: str
) -> None:
    key = ("test", set_name, "inv")
    client.put(key, {"m": {"cat": "dog", "barn": {"horse": "shoe"}, "cage": ["bird"]}})
    op = mo.map_get_by_value_rank_range_relative(
        "m", {"horse": "shoe"}, 0, aerospike.MAP_RETURN_VALUE, 2, True
    )
    assert _op(client, key, op) == {"m": ["dog", ["bird"]]}


def test_out_of_range_map_index_and_bad_return_type_are_not_applicable(
    client: Any, set_name: str
) -> None:
    key = ("test", set_name, "oob")
    client.put(key, {"m": {"a": {"x": 1}}, "l": [[1, 2], [3]]})
    ctx = [cdt_ctx.cdt_ctx_map_index(0)]
    with pytest.raises(ex.OpNotApplicable):
        client.operate(key, [mo.map_get_by_index("m", 200, aerospike.MAP_RETURN_VALUE, ctx)])
    with pytest.raises(ex.OpNotApplicable):
        client.operate(key, [lo.list_get_by_index_range("l", 1, 42, 1, False)])


def test_list_wildcard_matches_the_rest_of_a_list(client: Any, set_name: str) -> None:
    key = ("test", set_name, "wild")
    client.put(key, {"l": [[0, "a"], [1, "b"], [1, "d", "e"], [2, "f"]]})
    op = lo.list_get_by_value("l", [1, aerospike.CDTWildcard()], aerospike.LIST_RETURN_VALUE)
    assert _op(client, key, op) == {"l": [[1, "b"], [1, "d", "e"]]}


def test_mistyped_expressions_are_invalid_requests(client: Any, set_name: str) -> None:
    key = ("test", set_name, "typed")
    client.put(key, {"i": 5, "f": 5.0})
    for bad in (
        xp.Eq(xp.Add(xp.IntBin("i"), 5.0), 10),
        xp.Eq(xp.Pow(xp.IntBin("i"), 2), 25),
        xp.Eq(xp.Mod(xp.FloatBin("f"), 2.0), 1.0),
        xp.Eq(xp.IntBin("i"), 5.0),
    ):
        with pytest.raises(ex.InvalidRequest):
            client.get(key, policy={"expressions": bad.compile()})
    # a missing record is not found: a server builds the filter only against a record
    with pytest.raises(ex.RecordNotFound):
        client.get(("test", set_name, "absent"), policy={"expressions": xp.IntBin("i").compile()})
    # the same expressions well typed: matched, or filtered out
    client.get(key, policy={"expressions": xp.Eq(xp.Add(xp.IntBin("i"), 5), 10).compile()})
    with pytest.raises(ex.FilteredOut):
        client.get(key, policy={"expressions": xp.Eq(xp.Add(xp.IntBin("i"), 5), 11).compile()})
    others = [("test", set_name, f"typed{i}") for i in range(3)]
    for k in others:
        client.put(k, {"i": 5})
    bad = xp.Eq(xp.Add(xp.IntBin("i"), 5.0), 10).compile()
    assert client.batch_read([key, *others], policy={"expressions": bad}).result == 4


def test_expression_read_of_unknown_is_not_applicable(client: Any, set_name: str) -> None:
    key = ("test", set_name, "unk")
    client.put(key, {"balance": 100})
    unknown = xp.Let(
        xp.Def("bal", xp.IntBin("balance")),
        xp.Cond(xp.LT(xp.Var("bal"), 50), xp.Add(xp.Var("bal"), 50), xp.Unknown()),
    ).compile()
    with pytest.raises(ex.OpNotApplicable):
        client.operate(key, [eo.expression_read("r", unknown)])
    _, _, res = client.operate(
        key, [eo.expression_read("r", unknown, aerospike.EXP_READ_EVAL_NO_FAIL)]
    )
    assert res.get("r") is None


def test_digest_modulo_uses_the_digests_last_bytes(client: Any, set_name: str) -> None:
    keys = [("test", set_name, f"d{i}") for i in range(40)]
    for k in keys:
        client.put(k, {"v": 1})
    expected = set()
    for k in keys:
        digest = aerospike.calc_digest(k[0], k[1], k[2])
        if int.from_bytes(bytes(digest[16:20]), "little") % 3 == 0:
            expected.add(k[2])
    expr = xp.Eq(xp.DigestMod(3), 0).compile()
    matched = {k[2] for k in keys if _matches(client, k, expr)}
    assert matched == expected


def _matches(client: Any, key: tuple[str, str, str], expr: Any) -> bool:
    try:
        client.get(key, policy={"expressions": expr})
    except ex.FilteredOut:
        return False
    return True
