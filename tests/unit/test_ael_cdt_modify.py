"""List and map modify expressions: the plans the builder compiles, and their AEL text (every
builder call renders with ``to_ael`` and compiles back to the same plan; text compiles to the
builder's)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from aerospike_fluent import exp as F
from aerospike_fluent.cdt import ListOrder, ListSort, ListWrite, MapOrder, MapWrite
from aerospike_fluent.errors import AelSyntaxError, InvalidArgumentError

L = F.list_bin("l").list
M = F.map_bin("m").map
NESTED = F.map_bin("m").map.at_key("a").list

BUILT: dict[str, Callable[[], F.Exp]] = {
    "append": lambda: L.append(5),
    "append_policy": lambda: L.append(
        5, order=ListOrder.ORDERED, flags=ListWrite.ADD_UNIQUE | ListWrite.NO_FAIL
    ),
    "append_items": lambda: L.append_items([1, 2], flags=ListWrite.PARTIAL),
    "insert": lambda: L.insert(1, "x", flags=ListWrite.INSERT_BOUNDED),
    "insert_items": lambda: L.insert_items(-1, [1, 2]),
    "increment": lambda: L.increment(0, F.int_bin("n"), order=ListOrder.ORDERED),
    "set": lambda: L.set(2, 2.5),
    "clear": lambda: L.clear(),
    "sort": lambda: L.sort(ListSort.DESCENDING),
    "sort_default": lambda: L.sort(),
    "rm_value": lambda: L.remove_by_value(1, inverted=True),
    "rm_value_list": lambda: L.remove_by_value_list([1, 9]),
    "rm_value_range": lambda: L.remove_by_value_range(2, 6),
    "rm_value_range_open": lambda: L.remove_by_value_range(None, 6, inverted=True),
    "rm_value_range_open_end": lambda: L.remove_by_value_range(2, None),
    "rm_rel_rank": lambda: L.remove_by_value_relative_rank_range(4, 1),
    "rm_rel_rank_count": lambda: L.remove_by_value_relative_rank_range(4, -1, 2),
    "rm_index": lambda: L.remove_by_index(-1),
    "rm_index_range": lambda: L.remove_by_index_range(1),
    "rm_index_range_count": lambda: L.remove_by_index_range(1, 2, inverted=True),
    "rm_rank": lambda: L.remove_by_rank(0),
    "rm_rank_range": lambda: L.remove_by_rank_range(-2),
    "rm_rank_range_count": lambda: L.remove_by_rank_range(0, 2),
    "nested_list": lambda: NESTED.append(7).map.size() > 1,
    "list_index_ctx": lambda: F.list_bin("l").list.at_index(0).map.put("k", 1),
    "chained": lambda: L.append(3).list.sort().list.size() == 3,
    "put": lambda: M.put("k", 1),
    "put_policy": lambda: M.put(
        "k", [1], order=MapOrder.KEY_ORDERED, flags=MapWrite.CREATE_ONLY | MapWrite.NO_FAIL
    ),
    "put_items": lambda: M.put_items({"a": 1, "b": "x"}, order=MapOrder.KEY_VALUE_ORDERED),
    "map_increment": lambda: M.increment("b", 1.5, order=MapOrder.KEY_ORDERED),
    "map_clear": lambda: M.clear(),
    "rm_key": lambda: M.remove_by_key("a"),
    "rm_key_list": lambda: M.remove_by_key_list(["a", "c"], inverted=True),
    "rm_key_range": lambda: M.remove_by_key_range("b", "d"),
    "rm_key_range_open": lambda: M.remove_by_key_range(None, "c"),
    "rm_key_rel": lambda: M.remove_by_key_relative_index_range("b", 1),
    "rm_key_rel_count": lambda: M.remove_by_key_relative_index_range("b", -1, 2, inverted=True),
    "map_rm_value": lambda: M.remove_by_value(2),
    "map_rm_value_list": lambda: M.remove_by_value_list([1, 3]),
    "map_rm_value_range": lambda: M.remove_by_value_range(2, 3),
    "map_rm_rel_rank": lambda: M.remove_by_value_relative_rank_range(2, 0, 2),
    "map_rm_index": lambda: M.remove_by_index(0),
    "map_rm_index_range": lambda: M.remove_by_index_range(1, 2),
    "map_rm_rank": lambda: M.remove_by_rank(-1),
    "map_rm_rank_range": lambda: M.remove_by_rank_range(0, inverted=True),
    "nested_map": lambda: F.map_bin("m").map.at_key("y").map.put("j", 2),
    "untyped_bin": lambda: F.bin("l").list.append(1),
}


@pytest.mark.parametrize("name", sorted(BUILT))
def test_to_ael_compiles_back(name: str) -> None:
    e = BUILT[name]()
    assert F.parse(F.to_ael(e)).compile() == e.compile()


def test_plans_name_the_crate_functions() -> None:
    assert L.append(5).compile() == (
        "lists.append",
        (0, 0),
        ("int_val", 5),
        ("list_bin", "l"),
        (),
    )
    inverted = 0x10000
    assert M.remove_by_key_relative_index_range("b", 1, 2, inverted=True).compile() == (
        "maps.remove_by_key_relative_index_range_count",
        inverted,
        ("string_val", "b"),
        ("int_val", 1),
        ("int_val", 2),
        ("map_bin", "m"),
        (),
    )
    nested = F.bin("m").map.at_key("a").list.append(7).compile()
    assert nested[0] == "lists.append" and nested[-2] == ("map_bin", "m")


def test_the_result_is_the_bins_type() -> None:
    assert L.append(1).value_type == "list"
    assert M.put("k", 1).value_type == "map"
    assert NESTED.append(1).value_type == "map"
    assert F.list_bin("l").list.at_index(0).map.put("k", 1).value_type == "list"


@pytest.mark.parametrize(
    "build",
    [
        lambda: F.int_bin("l").list.append(1),
        lambda: L.insert("0", 1),
        lambda: L.append_items(5),
        lambda: M.put_items([1]),
        lambda: L.remove_by_index_range(0, "2"),
    ],
)
def test_mistyped_arguments_are_refused(build: Callable[[], F.Exp]) -> None:
    with pytest.raises(InvalidArgumentError):
        build()


@pytest.mark.parametrize(
    ("text", "built"),
    [
        ("list.size(list.append($.l, 5)) > 3", L.append(5).list.size() > 3),
        (
            "list.append($.l, 5, order: ORDERED, flags: ADD_UNIQUE)",
            L.append(5, order=ListOrder.ORDERED, flags=ListWrite.ADD_UNIQUE),
        ),
        ("list.sort($.l, flags: DROP_DUPLICATES)", L.sort(ListSort.DROP_DUPLICATES)),
        ("list.removeByValueRange($.l, nil, 10)", L.remove_by_value_range(None, 10)),
        ("map.put($.m.a, 'k', 1)", F.map_bin("m").map.at_key("a").map.put("k", 1)),
        ("map.put($.m, 'k', ?0)", M.put("k", [1, 2])),
        (
            "map.removeByKeyList($.m, ['a', 'b'], inverted: true)",
            M.remove_by_key_list(["a", "b"], inverted=True),
        ),
        ("list.append(list.sort($.l), 1)", L.sort().list.append(1)),
    ],
)
def test_text_compiles_to_the_builders_plan(text: str, built: F.Exp) -> None:
    assert F.parse(text, [1, 2]).compile() == built.compile()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("list.push($.l, 1)", "unknown list modify method"),
        ("list.append($.l)", "takes 1 argument"),
        ("list.removeByIndexRange($.l)", "takes 1 or 2 argument"),
        ("list.clear($.l, flags: 1)", "no option"),
        ("map.removeByKey($.m, 'a', inverted: true)", "no option"),
        ("list.append($.l, order: ORDERED, 1)", "positional arguments come before"),
        ("list.append($.l, 1, order: SORTED)", "unknown order"),
        ("map.put($.m.get(type: INT), 'k', 1)", "changes a map"),
    ],
)
def test_bad_text_is_a_syntax_error(text: str, message: str) -> None:
    with pytest.raises(AelSyntaxError, match=message):
        F.parse(text)
