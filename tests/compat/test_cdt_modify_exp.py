"""List and map modify expressions of the official client against the server: the changed bin
each one answers, and the refusals a real server (Aerospike 8.1.2) gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers import cdt_ctx as cc  # type: ignore[import-untyped]
from aerospike_helpers import expressions as e
from aerospike_helpers.operations import expression_operations as eo  # type: ignore[import-untyped]
from aerospike_helpers.operations import list_operations as lo
from aerospike_helpers.operations import map_operations as mo

pytestmark = [
    pytest.mark.compat,
    # the official client warns about the values these cases send on purpose
    pytest.mark.filterwarnings("ignore:list_order must be:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:sort_flags must be:DeprecationWarning"),
]

L, M = e.ListBin("l"), e.MapBin("m")
LI = [5, 1, 4, 1, 9]
MM = {"a": 1, "b": 2, "c": 3, "d": 2}
UNIQUE = aerospike.LIST_WRITE_ADD_UNIQUE
NO_FAIL = aerospike.LIST_WRITE_NO_FAIL
NOT_APPLICABLE = 26

CASES: list[tuple[str, Callable[[], Any], Any]] = [
    ("append", lambda: e.ListAppend(None, None, 7, L), [5, 1, 4, 1, 9, 7]),
    ("append_unique", lambda: e.ListAppend(None, {"write_flags": UNIQUE}, 1, L), NOT_APPLICABLE),
    (
        "append_unique_no_fail",
        lambda: e.ListAppend(None, {"write_flags": UNIQUE | NO_FAIL}, 1, L),
        LI,
    ),
    ("append_items", lambda: e.ListAppendItems(None, None, [8, 0], L), [*LI, 8, 0]),
    ("insert", lambda: e.ListInsert(None, None, -1, 99, L), [5, 1, 4, 1, 99, 9]),
    ("insert_past", lambda: e.ListInsert(None, None, 8, 99, L), [*LI, None, None, None, 99]),
    (
        "insert_bounded",
        lambda: e.ListInsert(None, {"write_flags": aerospike.LIST_WRITE_INSERT_BOUNDED}, 8, 9, L),
        NOT_APPLICABLE,
    ),
    ("insert_items", lambda: e.ListInsertItems(None, None, 2, [7, 8], L), [5, 1, 7, 8, 4, 1, 9]),
    ("increment", lambda: e.ListIncrement(None, None, 2, 10, L), [5, 1, 14, 1, 9]),
    ("set_neg_past", lambda: e.ListSet(None, None, -9, "z", L), NOT_APPLICABLE),
    ("clear", lambda: e.ListClear(None, L), []),
    ("sort_dedup", lambda: e.ListSort(None, aerospike.LIST_SORT_DROP_DUPLICATES, L), [1, 4, 5, 9]),
    ("sort_desc_dedup", lambda: e.ListSort(None, 3, L), NOT_APPLICABLE),
    ("rm_value_inv", lambda: e.ListRemoveByValue(None, 1, L, inverted=True), [1, 1]),
    ("rm_value_list", lambda: e.ListRemoveByValueList(None, [1, 9], L), [5, 4]),
    ("rm_value_range", lambda: e.ListRemoveByValueRange(None, 2, 6, L), [1, 1, 9]),
    ("rm_rel_rank", lambda: e.ListRemoveByValueRelRankRange(None, 4, -1, 2, L), [5, 1, 9]),
    ("rm_index_past", lambda: e.ListRemoveByIndex(None, 9, L), NOT_APPLICABLE),
    ("rm_index_range", lambda: e.ListRemoveByIndexRange(None, 1, 2, L), [5, 1, 9]),
    ("rm_rank_range_end", lambda: e.ListRemoveByRankRangeToEnd(None, -2, L), [1, 4, 1]),
    ("put", lambda: e.MapPut(None, None, "e", 5, M), {**MM, "e": 5}),
    (
        "put_create_only",
        lambda: e.MapPut(
            None, {"map_write_flags": aerospike.MAP_WRITE_FLAGS_CREATE_ONLY}, "a", 0, M
        ),
        NOT_APPLICABLE,
    ),
    ("put_list_key", lambda: e.MapPut(None, None, [1], 1, M), NOT_APPLICABLE),
    ("put_float_key", lambda: e.MapPut(None, None, 1.5, 1, M), NOT_APPLICABLE),
    ("put_bytes_key", lambda: e.MapPut(None, None, b"ab", 1, M), {**MM, b"ab": 1}),
    ("put_items", lambda: e.MapPutItems(None, None, {"a": 9, "z": 26}, M), {**MM, "a": 9, "z": 26}),
    ("increment_missing", lambda: e.MapIncrement(None, None, "q", 10, M), {**MM, "q": 10}),
    ("increment_str", lambda: e.MapIncrement(None, None, "a", "x", M), NOT_APPLICABLE),
    ("map_clear", lambda: e.MapClear(None, M), {}),
    (
        "rm_key_list_inv",
        lambda: e.MapRemoveByKeyList(None, ["a", "c"], M, inverted=True),
        {"a": 1, "c": 3},
    ),
    ("rm_key_range", lambda: e.MapRemoveByKeyRange(None, "b", "d", M), {"a": 1, "d": 2}),
    (
        "rm_key_rel",
        lambda: e.MapRemoveByKeyRelIndexRange(None, "b", -1, 2, M),
        {"c": 3, "d": 2},
    ),
    ("map_rm_value", lambda: e.MapRemoveByValue(None, 2, M), {"a": 1, "c": 3}),
    (
        "map_rm_rel_rank",
        lambda: e.MapRemoveByValueRelRankRangeToEnd(None, 2, 1, M),
        {"a": 1, "b": 2},
    ),
    ("map_rm_index_range", lambda: e.MapRemoveByIndexRange(None, 1, 2, M), {"a": 1, "d": 2}),
    ("map_rm_rank", lambda: e.MapRemoveByRank(None, -1, M), {"a": 1, "b": 2, "d": 2}),
    (
        "nested",
        lambda: e.ListAppend([cc.cdt_ctx_map_key("x")], None, 7, e.MapBin("n")),
        {"x": [3, 1, 2, 7]},
    ),
    (
        "nested_create",
        lambda: e.ListAppend(
            [cc.cdt_ctx_map_key_create("q", aerospike.MAP_KEY_ORDERED)], None, 1, e.MapBin("n")
        ),
        {"x": [3, 1, 2], "q": [1]},
    ),
    ("chained", lambda: e.MapSize(None, e.MapPut(None, None, "e", 5, M)), 5),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_modify_expression_answers_like_a_server(
    client: Any, set_name: str, case: tuple[str, Callable[[], Any], Any]
) -> None:
    name, build, expected = case
    key = ("test", set_name, name)
    client.put(key, {"l": LI, "m": MM, "n": {"x": [3, 1, 2]}})
    try:
        _, _, bins = client.operate(key, [eo.expression_read("r", build().compile())])
        got: Any = bins["r"]
    except ex.AerospikeError as err:
        got = err.code
    assert got == expected
    _, _, after = client.get(key)
    assert after["l"] == LI and after["m"] == MM


def test_refused_keys_and_sorts_as_operations(client: Any, set_name: str) -> None:
    key = ("test", set_name, "ops")
    client.put(key, {"l": [1, 2, 2], "m": {"a": 1}})
    for op in (
        mo.map_put("m", [1], 1),
        mo.map_put("m", 1.5, 1),
        mo.map_put("m", True, 1),
        mo.map_increment("m", [1], 1),
        lo.list_sort("l", 3),
    ):
        with pytest.raises(ex.InvalidRequest):
            client.operate(key, [op])
    client.operate(key, [lo.list_sort("l", 1)])
    _, _, bins = client.get(key)
    assert bins == {"l": [2, 2, 1], "m": {"a": 1}}
