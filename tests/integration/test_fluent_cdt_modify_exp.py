"""List and map modify expressions: each gives the bin its change would leave, writes nothing.

The expected values are a real server's (Aerospike 8.1.2) answers to the same expressions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from aerospike_fluent import ExpRead, F
from aerospike_fluent.cdt import ListOrder, ListSort, ListWrite, MapOrder, MapWrite
from aerospike_fluent.errors import OpNotApplicableError
from aerospike_fluent.exp import Exp

from ._flavor import Flavor

LI = [5, 1, 4, 1, 9]
MM = {"a": 1, "b": 2, "c": 3, "d": 2}
L = F.list_bin("l").list
M = F.map_bin("m").map

LIST_CASES: list[tuple[str, Callable[[], Exp], Any]] = [
    ("append", lambda: L.append(7), [5, 1, 4, 1, 9, 7]),
    (
        "append_unique_no_fail",
        lambda: L.append(1, flags=ListWrite.ADD_UNIQUE | ListWrite.NO_FAIL),
        LI,
    ),
    ("append_items", lambda: L.append_items([8, 0]), [5, 1, 4, 1, 9, 8, 0]),
    (
        "append_items_partial",
        lambda: L.append_items(
            [8, 1, 8], flags=ListWrite.ADD_UNIQUE | ListWrite.NO_FAIL | ListWrite.PARTIAL
        ),
        [5, 1, 4, 1, 9, 8],
    ),
    ("insert", lambda: L.insert(1, 99), [5, 99, 1, 4, 1, 9]),
    ("insert_past_end", lambda: L.insert(8, 99), [5, 1, 4, 1, 9, None, None, None, 99]),
    ("insert_items", lambda: L.insert_items(2, [7, 8]), [5, 1, 7, 8, 4, 1, 9]),
    ("increment", lambda: L.increment(2, 10), [5, 1, 14, 1, 9]),
    ("increment_past_end", lambda: L.increment(7, 10), [5, 1, 4, 1, 9, None, None, 10]),
    ("set", lambda: L.set(0, "z"), ["z", 1, 4, 1, 9]),
    ("clear", lambda: L.clear(), []),
    ("sort", lambda: L.sort(), [1, 1, 4, 5, 9]),
    ("sort_descending", lambda: L.sort(ListSort.DESCENDING), [9, 5, 4, 1, 1]),
    ("sort_drop_duplicates", lambda: L.sort(ListSort.DROP_DUPLICATES), [1, 4, 5, 9]),
    ("remove_by_value", lambda: L.remove_by_value(1), [5, 4, 9]),
    ("remove_by_value_inverted", lambda: L.remove_by_value(1, inverted=True), [1, 1]),
    ("remove_by_value_list", lambda: L.remove_by_value_list([1, 9]), [5, 4]),
    ("remove_by_value_range", lambda: L.remove_by_value_range(2, 6), [1, 1, 9]),
    ("remove_by_value_range_open", lambda: L.remove_by_value_range(4, None), [1, 1]),
    ("remove_by_rel_rank", lambda: L.remove_by_value_relative_rank_range(4, 1), [1, 4, 1]),
    (
        "remove_by_rel_rank_count",
        lambda: L.remove_by_value_relative_rank_range(4, -1, 2),
        [5, 1, 9],
    ),
    ("remove_by_index", lambda: L.remove_by_index(1), [5, 4, 1, 9]),
    ("remove_by_index_range", lambda: L.remove_by_index_range(3), [5, 1, 4]),
    ("remove_by_index_range_count", lambda: L.remove_by_index_range(1, 2), [5, 1, 9]),
    (
        "remove_by_index_range_inverted",
        lambda: L.remove_by_index_range(1, 2, inverted=True),
        [1, 4],
    ),
    ("remove_by_rank", lambda: L.remove_by_rank(0), [5, 4, 1, 9]),
    ("remove_by_rank_range", lambda: L.remove_by_rank_range(-2), [1, 4, 1]),
    ("remove_by_rank_range_count", lambda: L.remove_by_rank_range(0, 2), [5, 4, 9]),
    ("chained", lambda: L.append(7).list.sort().list.get_by_index(-1), 9),
]

MAP_CASES: list[tuple[str, Callable[[], Exp], Any]] = [
    ("put", lambda: M.put("e", 5), {**MM, "e": 5}),
    ("put_existing", lambda: M.put("a", 50), {**MM, "a": 50}),
    (
        "put_create_only_no_fail",
        lambda: M.put("a", 50, flags=MapWrite.CREATE_ONLY | MapWrite.NO_FAIL),
        MM,
    ),
    ("put_items", lambda: M.put_items({"a": 9, "z": 26}), {**MM, "a": 9, "z": 26}),
    (
        "put_items_partial",
        lambda: M.put_items(
            {"a": 9, "z": 26}, flags=MapWrite.CREATE_ONLY | MapWrite.NO_FAIL | MapWrite.PARTIAL
        ),
        {**MM, "z": 26},
    ),
    ("increment", lambda: M.increment("b", 10), {**MM, "b": 12}),
    ("increment_missing_key", lambda: M.increment("q", 10), {**MM, "q": 10}),
    ("clear", lambda: M.clear(), {}),
    ("remove_by_key", lambda: M.remove_by_key("a"), {"b": 2, "c": 3, "d": 2}),
    ("remove_by_missing_key", lambda: M.remove_by_key("zz"), MM),
    ("remove_by_key_list", lambda: M.remove_by_key_list(["a", "c"]), {"b": 2, "d": 2}),
    (
        "remove_by_key_list_inverted",
        lambda: M.remove_by_key_list(["a", "c"], inverted=True),
        {"a": 1, "c": 3},
    ),
    ("remove_by_key_range", lambda: M.remove_by_key_range("b", "d"), {"a": 1, "d": 2}),
    ("remove_by_key_range_open", lambda: M.remove_by_key_range(None, "c"), {"c": 3, "d": 2}),
    ("remove_by_key_rel", lambda: M.remove_by_key_relative_index_range("b", 1), {"a": 1, "b": 2}),
    (
        "remove_by_key_rel_count",
        lambda: M.remove_by_key_relative_index_range("b", -1, 2),
        {"c": 3, "d": 2},
    ),
    ("remove_by_value", lambda: M.remove_by_value(2), {"a": 1, "c": 3}),
    ("remove_by_value_inverted", lambda: M.remove_by_value(2, inverted=True), {"b": 2, "d": 2}),
    ("remove_by_value_list", lambda: M.remove_by_value_list([1, 3]), {"b": 2, "d": 2}),
    ("remove_by_value_range", lambda: M.remove_by_value_range(2, 3), {"a": 1, "c": 3}),
    (
        "remove_by_value_rel",
        lambda: M.remove_by_value_relative_rank_range(2, 1),
        {"a": 1, "b": 2},
    ),
    (
        "remove_by_value_rel_count",
        lambda: M.remove_by_value_relative_rank_range(2, 0, 2),
        {"a": 1, "c": 3},
    ),
    ("remove_by_index", lambda: M.remove_by_index(0), {"b": 2, "c": 3, "d": 2}),
    ("remove_by_index_range", lambda: M.remove_by_index_range(2), {"a": 1, "b": 2}),
    ("remove_by_index_range_count", lambda: M.remove_by_index_range(1, 2), {"a": 1, "d": 2}),
    ("remove_by_rank", lambda: M.remove_by_rank(-1), {"a": 1, "b": 2, "d": 2}),
    ("remove_by_rank_range", lambda: M.remove_by_rank_range(2), {"a": 1, "b": 2}),
    ("remove_by_rank_range_count", lambda: M.remove_by_rank_range(0, 2), {"c": 3, "d": 2}),
    (
        "remove_by_rank_range_inverted",
        lambda: M.remove_by_rank_range(0, 2, inverted=True),
        {"a": 1, "b": 2},
    ),
    ("chained", lambda: M.put("e", 5).map.size(), 5),
]


@pytest.mark.parametrize(
    "case",
    LIST_CASES + MAP_CASES,
    ids=[c[0] for c in LIST_CASES] + [f"map_{c[0]}" for c in MAP_CASES],
)
async def test_modify_expression_gives_the_changed_bin(
    fl: Flavor, set_name: str, case: tuple[str, Callable[[], Exp], Any]
) -> None:
    _, exp_of, expected = case
    k = fl.db.namespace("test").set(set_name).key("r")
    await fl.run(k.put({"l": LI, "m": MM}))
    rec = await fl.run(k.bin("r").read_exp(exp_of()).execute())
    assert rec is not None and rec["r"] == expected
    unchanged = await fl.run(k.get())
    assert unchanged is not None and unchanged["l"] == LI and unchanged["m"] == MM


async def test_nested_modifies_return_the_whole_bin(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("n")
    await fl.run(k.put({"m": {"x": [3, 1, 2], "y": {"k": 1}}, "l": [{"a": 1}, 2]}))
    inner = F.map_bin("m").map.at_key("x").list
    rec = await fl.run(k.bin("r").read_exp(inner.sort()).execute())
    assert rec is not None and rec["r"] == {"x": [1, 2, 3], "y": {"k": 1}}
    put = F.map_bin("m").map.at_key("y").map.put("j", 2)
    rec = await fl.run(k.bin("r").read_exp(put).execute())
    assert rec is not None and rec["r"] == {"x": [3, 1, 2], "y": {"j": 2, "k": 1}}
    in_list = F.list_bin("l").list.at_index(0).map.put("b", 2)
    rec = await fl.run(k.bin("r").read_exp(in_list).execute())
    assert rec is not None and rec["r"] == [{"a": 1, "b": 2}, 2]
    missing = F.map_bin("m").map.at_key("q").list.append(7)
    with pytest.raises(OpNotApplicableError):
        await fl.run(k.bin("r").read_exp(missing).execute())


async def test_refused_changes_are_unknown(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("u")
    await fl.run(k.put({"l": [1, 2, 2], "m": {"a": 1}, "s": "text"}))
    refused = [
        L.append(1, flags=ListWrite.ADD_UNIQUE),
        L.insert(8, 99, flags=ListWrite.INSERT_BOUNDED),
        L.set(-9, 0),
        L.remove_by_index(9),
        L.sort(ListSort.DESCENDING | ListSort.DROP_DUPLICATES),
        M.put("a", 2, flags=MapWrite.CREATE_ONLY),
        M.put("z", 2, flags=MapWrite.UPDATE_ONLY),
        M.put([1], 2),
        M.put(1.5, 2),
        M.increment("a", "x"),
        F.list_bin("s").list.append(1),
        F.list_bin("missing").list.append(1),
    ]
    for e in refused:
        with pytest.raises(OpNotApplicableError):
            await fl.run(k.bin("r").read_exp(e).execute())
    rec = await fl.run(k.bin("r").read_exp(refused[0], flags=ExpRead.EVAL_NO_FAIL).execute())
    assert rec is not None and rec["r"] is None


async def test_written_back_and_filtered(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    k, other = s.key("w"), s.key("o")
    await fl.run(k.put({"l": [3, 1, 2], "m": {"a": 1}}))
    await fl.run(other.put({"l": [1, 2], "m": {"b": 2}}))
    await fl.run(k.bin("l").write_exp(L.remove_by_index(0).list.append(9)).execute())
    await fl.run(k.bin("k").write_exp(M.put("b", 2, order=MapOrder.KEY_ORDERED)).execute())
    got = await fl.run(k.get())
    assert got is not None and got["l"] == [1, 2, 9] and got["k"] == {"a": 1, "b": 2}
    assert got["m"] == {"a": 1}
    assert await fl.run(s.query().where(L.append(3) == [1, 2, 9, 3]).count()) == 1
    assert await fl.run(s.query().where(M.remove_by_key("b").map.size() == 1).count()) == 1
    # the order applies to a list the change creates: existing lists keep theirs
    kept = L.append(0, order=ListOrder.ORDERED).list.get_by_index(-1) == 0
    assert await fl.run(s.query().where(kept).count()) == 2


async def test_ael_text_on_the_server(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("a").put({"l": [5, 1, 4], "m": {"x": [3, 1], "y": 1}}))
    await fl.run(s.key("z").put({"l": [1], "m": {"x": [], "y": 2}}))
    assert await fl.run(s.query().where("list.size(list.append($.l, 5)) > 3").count()) == 1
    text = "list.removeByValueRange($.l, nil, 5) == [5]"
    assert await fl.run(s.query().where(text).count()) == 1
    text = "map.size(map.put($.m, 'z', 0, flags: 6)) == 2"
    assert await fl.run(s.query().where(text).count()) == 2
    rec = await fl.run(
        s.key("a").bin("r").read_exp("list.sort($.m.x, flags: DESCENDING)").execute()
    )
    assert rec is not None and rec["r"] == {"x": [3, 1], "y": 1}
    rec = await fl.run(s.key("a").bin("r").read_exp("map.removeByKey($.m, 'x')").execute())
    assert rec is not None and rec["r"] == {"y": 1}
