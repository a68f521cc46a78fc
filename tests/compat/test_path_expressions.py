"""Path expressions of the official client against the server (Aerospike 8.1.2): select_by_path
with each flag, filters on loop variables, no-fail, modify_by_path, projections of queries and
batches, and the SelectByPath / ModifyByPath expressions."""

from __future__ import annotations

import time
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers import cdt_ctx as cc  # type: ignore[import-untyped]
from aerospike_helpers import expressions as e
from aerospike_helpers.expressions import base as xb  # type: ignore[import-untyped]
from aerospike_helpers.expressions.resources import ResultType  # type: ignore[import-untyped]
from aerospike_helpers.operations import expression_operations as eo  # type: ignore[import-untyped]
from aerospike_helpers.operations import list_operations as lo
from aerospike_helpers.operations import operations as op

pytestmark = pytest.mark.compat

TREE = aerospike.EXP_PATH_SELECT_MATCHING_TREE
VALUE = aerospike.EXP_PATH_SELECT_VALUE
KEYS = aerospike.EXP_PATH_SELECT_MAP_KEY
KEYS_VALUES = aerospike.EXP_PATH_SELECT_MAP_KEY_VALUE
NO_FAIL = aerospike.EXP_PATH_SELECT_NO_FAIL
MODIFY_NO_FAIL = aerospike.EXP_PATH_MODIFY_NO_FAIL
LOOP_KEY, LOOP_VALUE, LOOP_INDEX = (
    aerospike.EXP_LOOPVAR_KEY,
    aerospike.EXP_LOOPVAR_VALUE,
    aerospike.EXP_LOOPVAR_INDEX,
)

SPEND = {
    "mon": {"bus": 2.5, "lunch": 12.0},
    "tue": {"bus": 2.5, "dinner": 31.0},
    "wed": {"cinema": 9.5, "taxi": 22.0},
}
BOOKS = [
    {"price": 9.0, "title": "Dune"},
    {"price": 14.5, "title": "Emma"},
    {"price": 7.25, "title": "Ulysses"},
]
GRID = [[1, 2, 3], [4, 5], [6]]
MIXED = {"n": 1, "m": {"x": 5, "y": 7}}

ALL = cc.cdt_ctx_all_children()


def only(filter_exp: Any) -> Any:
    """The children the compiled filter passes."""
    return cc.cdt_ctx_all_children_with_filter(filter_exp.compile())


def float_at_least(v: float) -> Any:
    return e.GE(xb.LoopVarFloat(LOOP_VALUE), v)


def cheap_book(limit: float) -> Any:
    """A book (a map loop variable) whose price is at most `limit`."""
    price = e.MapGetByKey(
        None, aerospike.MAP_RETURN_VALUE, ResultType.FLOAT, "price", xb.LoopVarMap(LOOP_VALUE)
    )
    return e.LE(price, limit)


@pytest.fixture
def key(client: Any, set_name: str) -> tuple[str, str, str]:
    k = ("test", set_name, "path")
    client.put(k, {"spend": SPEND, "books": BOOKS, "grid": GRID, "mixed": MIXED, "n": 3})
    return k


def select(client: Any, key: Any, bin_name: str, ctx: list[Any], flags: int) -> Any:
    _, _, bins = client.operate(key, [op.select_by_path(bin_name, ctx, flags)])
    return bins[bin_name]


def error_code(client: Any, key: Any, ops: list[Any]) -> int:
    with pytest.raises(ex.AerospikeError) as err:
        client.operate(key, ops)
    code = err.value.code
    assert code is not None
    return code


def test_values_of_each_level(client: Any, key: Any) -> None:
    assert select(client, key, "grid", [ALL], VALUE) == GRID
    assert select(client, key, "grid", [ALL, ALL], VALUE) == [1, 2, 3, 4, 5, 6]
    assert select(client, key, "spend", [ALL], VALUE) == list(SPEND.values())
    flat = [2.5, 12.0, 2.5, 31.0, 9.5, 22.0]
    assert select(client, key, "spend", [ALL, ALL], aerospike.EXP_PATH_SELECT_LIST_VALUE) == flat
    assert select(client, key, "spend", [ALL, ALL], aerospike.EXP_PATH_SELECT_MAP_VALUE) == flat


def test_map_keys_and_flat_pairs(client: Any, key: Any) -> None:
    keys = ["bus", "lunch", "bus", "dinner", "cinema", "taxi"]
    assert select(client, key, "spend", [ALL, ALL], KEYS) == keys
    pairs = ["bus", 2.5, "lunch", 12.0, "bus", 2.5, "dinner", 31.0, "cinema", 9.5, "taxi", 22.0]
    assert select(client, key, "spend", [ALL, ALL], KEYS_VALUES) == pairs


def test_matching_tree_keeps_the_path_to_each_selected_leaf(client: Any, key: Any) -> None:
    ctx = [ALL, only(float_at_least(20.0))]
    assert select(client, key, "spend", ctx, TREE) == {
        "mon": {},
        "tue": {"dinner": 31.0},
        "wed": {"taxi": 22.0},
    }
    assert select(client, key, "spend", ctx, VALUE) == [31.0, 22.0]
    assert select(client, key, "spend", [ALL, ALL], TREE) == SPEND


def test_filters_read_the_key_and_the_index(client: Any, key: Any) -> None:
    by_key = only(e.Eq(xb.LoopVarStr(LOOP_KEY), "bus"))
    assert select(client, key, "spend", [ALL, by_key], TREE) == {
        "mon": {"bus": 2.5},
        "tue": {"bus": 2.5},
        "wed": {},
    }
    first = only(e.Eq(xb.LoopVarInt(LOOP_INDEX), 0))
    assert select(client, key, "grid", [first], TREE) == [[1, 2, 3]]
    assert select(client, key, "grid", [ALL, first], VALUE) == [1, 4, 6]
    long_rows = only(e.GE(e.ListSize(None, xb.LoopVarList(LOOP_VALUE)), 2))
    assert select(client, key, "grid", [long_rows], VALUE) == [[1, 2, 3], [4, 5]]


def test_filters_on_maps_inside_a_list(client: Any, key: Any) -> None:
    ctx = [only(cheap_book(10.0)), cc.cdt_ctx_map_key("title")]
    assert select(client, key, "books", ctx, VALUE) == ["Dune", "Ulysses"]
    assert select(client, key, "books", ctx, KEYS_VALUES) == ["title", "Dune", "title", "Ulysses"]
    assert select(client, key, "books", ctx, TREE) == [{"title": "Dune"}, {"title": "Ulysses"}]


def test_plain_contexts_mix_with_path_contexts(client: Any, key: Any) -> None:
    assert select(client, key, "spend", [cc.cdt_ctx_map_key("tue"), ALL], VALUE) == [2.5, 31.0]
    assert select(client, key, "spend", [cc.cdt_ctx_map_key("tue"), ALL], TREE) == {
        "tue": SPEND["tue"]
    }
    assert select(client, key, "grid", [ALL, cc.cdt_ctx_list_index(-1)], VALUE) == [3, 5, 6]
    assert select(client, key, "grid", [cc.cdt_ctx_list_rank(-1), ALL], VALUE) == [6]
    # an index past the end picks nothing
    assert select(client, key, "grid", [ALL, cc.cdt_ctx_list_index(2)], TREE) == [[3], [], []]


def test_keys_in_and_an_and_filter(client: Any, key: Any) -> None:
    keys_in = cc.cdt_ctx_map_keys_in(["wed", "mon", "sun"])
    assert select(client, key, "spend", [keys_in, ALL], TREE) == {
        "mon": SPEND["mon"],
        "wed": SPEND["wed"],
    }
    big = cc.cdt_ctx_and_filter(e.GT(e.MapSize(None, xb.LoopVarMap(LOOP_VALUE)), 1).compile())
    assert select(client, key, "spend", [keys_in, big], KEYS) == ["mon", "wed"]
    # an AND filter needs a plain step before it
    assert error_code(client, key, [op.select_by_path("spend", [big], VALUE)]) == 4


def test_scalars_above_the_leaves_stay_in_the_tree_only(client: Any, key: Any) -> None:
    ctx = [ALL, only(e.GT(xb.LoopVarInt(LOOP_VALUE), 5))]
    assert select(client, key, "mixed", ctx, TREE) == {"n": 1, "m": {"y": 7}}
    assert select(client, key, "mixed", ctx, VALUE) == [7]


def test_unknown_filter_results_fail_unless_no_fail(client: Any, key: Any) -> None:
    named = only(e.Eq(xb.LoopVarStr(LOOP_VALUE), "x"))
    strict = op.select_by_path("grid", [ALL, named], VALUE)
    assert error_code(client, key, [strict]) == 4
    assert select(client, key, "grid", [ALL, named], VALUE | NO_FAIL) == []
    mixed_ints = only(e.GE(xb.LoopVarInt(LOOP_VALUE), 5))
    assert error_code(client, key, [op.select_by_path("mixed", [mixed_ints], VALUE)]) == 4
    assert select(client, key, "mixed", [ALL, mixed_ints], VALUE | NO_FAIL) == [5, 7]


def test_map_keys_of_list_leaves_fail_unless_no_fail(client: Any, key: Any) -> None:
    assert error_code(client, key, [op.select_by_path("grid", [ALL], KEYS)]) == 12
    assert select(client, key, "grid", [ALL], KEYS | NO_FAIL) == []
    assert select(client, key, "books", [ALL, ALL], KEYS | NO_FAIL) == ["price", "title"] * 3


def test_bins_a_path_cannot_walk(client: Any, key: Any) -> None:
    assert error_code(client, key, [op.select_by_path("n", [ALL], VALUE)]) == 12
    _, _, bins = client.operate(key, [op.select_by_path("nothing", [ALL], VALUE)])
    assert "nothing" not in bins
    plus_one = e.Add(xb.LoopVarInt(LOOP_VALUE), 1).compile()
    assert error_code(client, key, [op.modify_by_path("nothing", [ALL], plus_one, 0)]) == 12


def test_modify_by_path_replaces_each_leaf(client: Any, key: Any) -> None:
    less_five = e.Sub(xb.LoopVarFloat(LOOP_VALUE), 5.0).compile()
    ops = [
        op.modify_by_path("spend", [ALL, ALL], less_five, 0),
        op.select_by_path("spend", [ALL, ALL], VALUE),
    ]
    _, meta, bins = client.operate(key, ops)
    assert bins == {"spend": [-2.5, 7.0, -2.5, 26.0, 4.5, 17.0]}
    assert meta["gen"] == 2
    _, _, stored = client.get(key)
    assert stored["spend"]["tue"] == {"bus": -2.5, "dinner": 26.0}


def test_modify_by_path_removes_leaves(client: Any, key: Any) -> None:
    remove = xb.RemoveResult().compile()
    client.operate(key, [op.modify_by_path("books", [only(cheap_book(10.0))], remove, 0)])
    client.operate(key, [op.modify_by_path("spend", [ALL, only(float_at_least(10.0))], remove, 0)])
    _, _, bins = client.get(key)
    assert bins["books"] == [BOOKS[1]]
    assert bins["spend"] == {"mon": {"bus": 2.5}, "tue": {"bus": 2.5}, "wed": {"cinema": 9.5}}


def test_modify_by_path_unknown_results(client: Any, key: Any) -> None:
    plus_one = e.Add(xb.LoopVarInt(LOOP_VALUE), 1).compile()
    assert error_code(client, key, [op.modify_by_path("mixed", [ALL], plus_one, 0)]) == 1
    client.operate(key, [op.modify_by_path("mixed", [ALL], plus_one, MODIFY_NO_FAIL)])
    assert client.get(key)[2]["mixed"] == {"n": 2, "m": {"x": 5, "y": 7}}


def test_modify_by_path_keeps_an_ordered_list_ordered(client: Any, key: Any) -> None:
    client.operate(
        key,
        [
            lo.list_append_items("ranked", [3, 1, 2]),
            lo.list_set_order("ranked", aerospike.LIST_ORDERED),
        ],
    )
    negate = e.Mul(xb.LoopVarInt(LOOP_VALUE), -1).compile()
    client.operate(key, [op.modify_by_path("ranked", [ALL], negate, 0)])
    assert client.get(key)[2]["ranked"] == [-3, -2, -1]


def test_query_projects_path_selections(client: Any, set_name: str) -> None:
    for i in range(4):
        client.put(("test", set_name, i), {"i": i, "grid": [[i, i + 1], [i + 10]]})
    q = client.query("test", set_name)
    q.add_ops(
        [
            op.read("i"),
            op.select_by_path("grid", [ALL, only(e.GT(xb.LoopVarInt(LOOP_VALUE), 1))], VALUE),
        ]
    )
    rows = q.results()
    assert len(rows) == 4
    for _, _, bins in rows:
        i = bins["i"]
        assert bins == {"i": i, "grid": [v for v in (i, i + 1, i + 10) if v > 1]}, bins


def test_background_query_modifies_by_path(client: Any, set_name: str) -> None:
    for i in range(3):
        client.put(("test", set_name, i), {"grid": [[i, -i], [5]]})
    q = client.query("test", set_name)
    positive = only(e.GT(xb.LoopVarInt(LOOP_VALUE), 0))
    q.add_ops([op.modify_by_path("grid", [ALL, positive], xb.RemoveResult().compile(), 0)])
    job = q.execute_background()
    for _ in range(100):
        if client.job_info(job, aerospike.JOB_QUERY)["status"] == aerospike.JOB_STATUS_COMPLETED:
            break
        time.sleep(0.1)
    grids = sorted(client.get(("test", set_name, i))[2]["grid"] for i in range(3))
    assert grids == [[[-2], []], [[-1], []], [[0, 0], []]]


def test_batches_select_and_modify_by_path(client: Any, set_name: str) -> None:
    keys = [("test", set_name, i) for i in range(3)]
    for i, k in enumerate(keys):
        client.put(k, {"grid": [[i], [i, i]]})
    read = client.batch_operate(keys, [op.select_by_path("grid", [ALL, ALL], VALUE)])
    assert [r.record[2] for r in read.batch_records] == [{"grid": [i, i, i]} for i in range(3)]
    double = e.Mul(xb.LoopVarInt(LOOP_VALUE), 2).compile()
    written = client.batch_operate(keys, [op.modify_by_path("grid", [ALL, ALL], double, 0)])
    assert [r.result for r in written.batch_records] == [0, 0, 0]
    assert [client.get(k)[2]["grid"] for k in keys] == [[[2 * i], [2 * i, 2 * i]] for i in range(3)]


def test_select_and_modify_by_path_expressions(client: Any, key: Any) -> None:
    ctx = [ALL, ALL]
    spend = e.MapBin("spend")
    values = xb.SelectByPath(ctx, ResultType.LIST, VALUE, spend)
    _, _, bins = client.operate(key, [eo.expression_read("v", values.compile())])
    assert bins == {"v": [2.5, 12.0, 2.5, 31.0, 9.5, 22.0]}
    # a result of another type than the one declared is unknown
    tree = xb.SelectByPath(ctx, ResultType.LIST, TREE, spend)
    no_fail = aerospike.EXP_READ_EVAL_NO_FAIL
    _, _, bins = client.operate(key, [eo.expression_read("t", tree.compile(), no_fail)])
    assert bins.get("t") is None
    doubled = e.Mul(xb.LoopVarFloat(LOOP_VALUE), 2.0).compile()
    modify = xb.ModifyByPath(ctx, ResultType.MAP, doubled, 0, spend)
    client.operate(key, [eo.expression_write("spend", modify.compile())])
    assert client.get(key)[2]["spend"]["wed"] == {"cinema": 19.0, "taxi": 44.0}


def test_select_by_path_in_a_filter_expression(client: Any, key: Any) -> None:
    big = xb.SelectByPath(
        [ALL, only(float_at_least(20.0))], ResultType.LIST, VALUE, e.MapBin("spend")
    )
    two_big = e.Eq(e.ListSize(None, big), 2).compile()
    assert client.get(key, policy={"expressions": two_big})[2]["n"] == 3
    three_big = e.Eq(e.ListSize(None, big), 3).compile()
    with pytest.raises(ex.FilteredOut):
        client.get(key, policy={"expressions": three_big})
