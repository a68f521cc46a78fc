"""List/map builders compile to the native plan (names and argument order of the crate)."""

from __future__ import annotations

import pytest

from aerospike_fluent import MapOrder, Return
from aerospike_fluent._exec import Sync
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.scopes import RecordSet

INV = 0x10000


def test_list_selectors(users: RecordSet[Sync]) -> None:
    lst = users.key("u").bin("l").list
    ops = (
        lst.remove_by_index(-1, Return.VALUE)
        .bin("l")
        .list.remove_by_index_range(1)
        .bin("l")
        .list.remove_by_index_range(1, 2, Return.COUNT, inverted=True)
        .bin("l")
        .list.remove_by_rank(0)
        .bin("l")
        .list.remove_by_rank_range(-2, 2, Return.RANK)
        .bin("l")
        .list.remove_by_rank_range(1)
        .bin("l")
        .list.get_by_index_range(0, 3, Return.INDEX)
        .bin("l")
        .list.get_by_index_range(-2)
        .ops
    )
    assert ops == (
        ("list_remove_by_index", "l", (), -1, 7),
        ("list_remove_by_index_range", "l", (), 1, 0),
        ("list_remove_by_index_range_count", "l", (), 1, 2, 5 | INV),
        ("list_remove_by_rank", "l", (), 0, 0),
        ("list_remove_by_rank_range_count", "l", (), -2, 2, 3),
        ("list_remove_by_rank_range", "l", (), 1, 0),
        ("list_get_by_index_range_count", "l", (), 0, 3, 1),
        ("list_get_by_index_range", "l", (), -2, 7),
    )


def test_map_selectors(users: RecordSet[Sync]) -> None:
    m = users.key("u").bin("m").map
    ops = (
        m.remove_by_key_range("a", "c")
        .bin("m")
        .map.remove_by_value_range(1, 5, Return.KEY)
        .bin("m")
        .map.remove_by_index(0, Return.KEY_VALUE)
        .bin("m")
        .map.remove_by_index_range(1)
        .bin("m")
        .map.remove_by_index_range(1, 1)
        .bin("m")
        .map.remove_by_rank(-1, Return.VALUE)
        .bin("m")
        .map.remove_by_rank_range(0, 2)
        .bin("m")
        .map.remove_by_rank_range(2)
        .bin("m")
        .map.get_by_value_range(1, 3)
        .bin("m")
        .map.get_by_index_range(0, 2, Return.VALUE, inverted=True)
        .bin("m")
        .map.get_by_index_range(1)
        .ops
    )
    assert ops == (
        ("map_remove_by_key_range", "m", (), "a", "c", 0),
        ("map_remove_by_value_range", "m", (), 1, 5, 6),
        ("map_remove_by_index", "m", (), 0, 8),
        ("map_remove_by_index_range_from", "m", (), 1, 0),
        ("map_remove_by_index_range", "m", (), 1, 1, 0),
        ("map_remove_by_rank", "m", (), -1, 7),
        ("map_remove_by_rank_range", "m", (), 0, 2, 0),
        ("map_remove_by_rank_range_from", "m", (), 2, 0),
        ("map_get_by_value_range", "m", (), 1, 3, 6),
        ("map_get_by_index_range", "m", (), 0, 2, 7 | INV),
        ("map_get_by_index_range_from", "m", (), 1, 8),
    )


def test_map_create_takes_the_context(users: RecordSet[Sync]) -> None:
    k = users.key("u")
    assert k.bin("m").map.create(MapOrder.KEY_ORDERED).ops == (("map_create", "m", (), 1),)
    nested = k.bin("m").map.at_key("sub").map.create(MapOrder.KEY_VALUE_ORDERED).ops
    assert nested == (("map_create", "m", (("map_key", "sub"),), 3),)
    with pytest.raises(ValueError):
        k.bin("m").map.create(2)  # type: ignore[arg-type]


def test_range_counts_are_not_negative(users: RecordSet[Sync]) -> None:
    with pytest.raises(InvalidArgumentError, match="count"):
        users.key("u").bin("l").list.get_by_index_range(0, -1)
    with pytest.raises(InvalidArgumentError, match="count"):
        users.key("u").bin("m").map.remove_by_rank_range(0, -3)


def test_values_the_native_ops_cannot_take_are_refused(users: RecordSet[Sync]) -> None:
    # the aerospike crate asserts on these (a panic crossing into Python)
    with pytest.raises(InvalidArgumentError, match="None"):
        users.key("u").bin("l").list.set(0, None)
    with pytest.raises(InvalidArgumentError, match="at least one"):
        users.key("u").bin("l").list.extend([])
