"""List answers a real node gives where they are easy to get wrong: increments of elements that
are not numbers or not there, with the write flags, and which of equal elements a rank names."""

from __future__ import annotations

from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers.operations import list_operations as lo  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

UNIQUE = aerospike.LIST_WRITE_ADD_UNIQUE
BOUNDED = aerospike.LIST_WRITE_INSERT_BOUNDED
NO_FAIL = aerospike.LIST_WRITE_NO_FAIL
PARAMETER_ERROR, ELEMENT_EXISTS, OP_NOT_APPLICABLE = 4, 24, 26


def _operate(client: Any, key: tuple[str, str, str], op: dict[str, Any]) -> tuple[Any, Any]:
    """The op's result (or ``("error", code)``) and the list stored after it."""
    try:
        _, _, res = client.operate(key, [op])
        got = res.get("l")
    except ex.AerospikeError as e:
        got = ("error", e.code)
    return got, client.get(key)[2]["l"]


def _stored(client: Any, set_name: str, items: list[Any], ordered: bool) -> tuple[str, str, str]:
    key = ("test", set_name, "l")
    client.put(key, {"l": items})
    if ordered:
        client.operate(key, [lo.list_set_order("l", aerospike.LIST_ORDERED)])
    return key


@pytest.mark.parametrize(
    ("ordered", "items", "index", "delta", "flags", "expected"),
    [
        # a nil element is no number: refused, whatever the delta or flags
        (False, [1, None, 2.5], 1, 1, 0, (("error", PARAMETER_ERROR), [1, None, 2.5])),
        (False, [1, None, 2.5], 1, 2.5, NO_FAIL, (("error", PARAMETER_ERROR), [1, None, 2.5])),
        (True, [1, None], 0, 1, 0, (("error", PARAMETER_ERROR), [None, 1])),
        (False, ["a", 1], 0, 1, NO_FAIL, (("error", PARAMETER_ERROR), ["a", 1])),
        # past the end the delta is stored (nil padded), int or float
        (False, [1], 3, 2.5, 0, (2.5, [1, None, None, 2.5])),
        (False, [1, 2], 2, -2, BOUNDED, (-2, [1, 2, -2])),
        (False, [1, 2], 3, 5, BOUNDED | NO_FAIL, (5, [1, 2])),
        (False, [1, 2], 3, 5, BOUNDED, (("error", OP_NOT_APPLICABLE), [1, 2])),
        # an ordered list adds it just past the end (bounded or not), refuses it further on
        (True, [3, 1, 3], 3, 1, BOUNDED, (1, [1, 1, 3, 3])),
        (True, [3, 1, 3], 4, 1, NO_FAIL, (("error", OP_NOT_APPLICABLE), [1, 3, 3])),
        # before the start: refused even under NO_FAIL
        (False, [1, 2], -3, 1, NO_FAIL, (("error", OP_NOT_APPLICABLE), [1, 2])),
        # unique: a value present elsewhere is refused; NO_FAIL answers it and writes nothing
        (False, [3, 1, 3], 1, 2, UNIQUE, (("error", ELEMENT_EXISTS), [3, 1, 3])),
        (False, [3, 1, 3], 1, 2.5, UNIQUE | NO_FAIL, (3, [3, 1, 3])),
        (False, [3, 1, 3], 0, 0, UNIQUE, (("error", ELEMENT_EXISTS), [3, 1, 3])),
        (False, [1, 2], 2, 1, UNIQUE, (("error", ELEMENT_EXISTS), [1, 2])),
        # ordered and unique: the first of equal values may stay as it is, the next may not
        (True, [3, 1, 3], 1, 0, UNIQUE, (3, [1, 3, 3])),
        (True, [3, 1, 3], 2, 0, UNIQUE, (("error", ELEMENT_EXISTS), [1, 3, 3])),
        (True, [2, 5], 0, 1, UNIQUE, (3, [3, 5])),
    ],
)
def test_list_increment(
    client: Any,
    set_name: str,
    ordered: bool,
    items: list[Any],
    index: int,
    delta: float,
    flags: int,
    expected: tuple[Any, Any],
) -> None:
    key = _stored(client, set_name, items, ordered)
    policy = {"write_flags": flags}
    assert _operate(client, key, lo.list_increment("l", index, delta, policy=policy)) == expected


def test_list_set_bounds_match_increment(client: Any, set_name: str) -> None:
    key = _stored(client, set_name, [1, 2], False)
    bounded = {"write_flags": BOUNDED}
    assert _operate(client, key, lo.list_set("l", 2, 7, policy=bounded)) == (None, [1, 2, 7])
    before_start = {"write_flags": NO_FAIL}
    set_before = lo.list_set("l", -4, 7, policy=before_start)
    assert _operate(client, key, set_before) == (("error", OP_NOT_APPLICABLE), [1, 2, 7])
    insert_before = lo.list_insert("l", -4, 7, policy=before_start)
    assert _operate(client, key, insert_before) == (("error", OP_NOT_APPLICABLE), [1, 2, 7])


RV, RI = aerospike.LIST_RETURN_VALUE, aerospike.LIST_RETURN_INDEX
RR, RREV = aerospike.LIST_RETURN_RANK, aerospike.LIST_RETURN_REVERSE_RANK
RREVI = aerospike.LIST_RETURN_REVERSE_INDEX


@pytest.mark.parametrize(
    ("items", "op", "expected"),
    [
        # a rank among equal values names the element a heap pops: neither first nor last
        ([2.0, None, 2.0], lo.list_remove_by_rank("l", 1, RV), (2.0, [2.0, None])),
        ([2.0, None, 2.0], lo.list_get_by_rank("l", 2, RI), (0, [2.0, None, 2.0])),
        ([0, 0], lo.list_get_by_rank("l", 1, RI), (0, [0, 0])),
        ([0, 0], lo.list_get_by_rank("l", 0, RI), (0, [0, 0])),
        ([1, 0, 1, 0, 1], lo.list_get_by_rank("l", -1, RI), (0, [1, 0, 1, 0, 1])),
        ([1, 0, 1, 0, 1], lo.list_get_by_rank("l", -2, RREVI), (0, [1, 0, 1, 0, 1])),
        ([1, 0, 1, 0, 1], lo.list_get_by_rank_range("l", -1, RI), ([0], [1, 0, 1, 0, 1])),
        (
            [0, 1, 0, 2, 0, 1],
            lo.list_remove_by_rank_range("l", 1, RV, count=3),
            ([1, 0, 0], [0, 1, 2]),
        ),
        # a rank asked for is answered as asked, whichever equal element holds it
        ([0, 0], lo.list_get_by_rank("l", 1, RR), (1, [0, 0])),
        ([0, 0], lo.list_remove_by_rank("l", 1, RREV), (0, [0])),
        # an element found by index ranks below its equals
        ([0, 0], lo.list_remove_by_index("l", 1, RR), (0, [0])),
        ([3, 1, 3], lo.list_get_by_index_range("l", 1, RREV, count=2), ([2, 1], [3, 1, 3])),
        # ... but a whole list answers its ranks as the run they are
        ([1, 0], lo.list_get_by_index_range("l", 0, RR), ([0, 1], [1, 0])),
    ],
)
def test_unordered_list_ranks_among_equal_values(
    client: Any, set_name: str, items: list[Any], op: dict[str, Any], expected: tuple[Any, Any]
) -> None:
    key = _stored(client, set_name, items, False)
    assert _operate(client, key, op) == expected


@pytest.mark.parametrize(
    ("op", "expected"),
    [
        (lo.list_get_by_value_rank_range_relative("l", 0, 0, RREV), [0, 1]),
        (lo.list_get_by_rank_range("l", 0, RREV), [0, 1]),
        (lo.list_get_by_rank_range("l", 0, RR), [0, 1]),
        (lo.list_get_by_index_range("l", 0, RREV, count=2), [0, 1]),
        (lo.list_get_by_value("l", 0, RREV), [0, 1]),
    ],
)
def test_ordered_list_reverse_ranks_are_a_run(
    client: Any, set_name: str, op: dict[str, Any], expected: list[int]
) -> None:
    key = _stored(client, set_name, [0, 0], True)
    assert _operate(client, key, op) == (expected, [0, 0])
