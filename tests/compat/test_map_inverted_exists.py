"""EXISTS of an inverted selection on a map, as a real node answers it: a value or value interval
(and a key interval of an unordered map) answers whether nothing was selected; a rank run, or an
index run of an unordered map, with unselected elements on both sides answers false; the rest
answers whether anything is left."""

from __future__ import annotations

from typing import Any

import aerospike
import pytest
from aerospike_helpers.operations import map_operations as mo  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

EXISTS = aerospike.MAP_RETURN_EXISTS
UNORDERED, K, KV = (
    aerospike.MAP_UNORDERED,
    aerospike.MAP_KEY_ORDERED,
    aerospike.MAP_KEY_VALUE_ORDERED,
)


@pytest.mark.parametrize(
    ("order", "items", "op", "expected"),
    [
        (
            UNORDERED,
            {4: 1, 3: 3},
            mo.map_get_by_value_range("m", 3, 5, EXISTS, inverted=True),
            False,
        ),
        (K, {1: 1, 4: 3}, mo.map_get_by_value("m", 1, EXISTS, inverted=True), False),
        (KV, {1: 1, 4: 3}, mo.map_get_by_value("m", 2, EXISTS, inverted=True), True),
        (K, {}, mo.map_get_by_value("m", 0, EXISTS, inverted=True), False),
        (UNORDERED, {}, mo.map_get_by_key_range("m", 2, 4, EXISTS, inverted=True), True),
        (UNORDERED, {0: 0, 5: 2}, mo.map_get_by_key_range("m", 4, 6, EXISTS, inverted=True), False),
        (K, {0: 0, 5: 2}, mo.map_get_by_key_range("m", 4, 6, EXISTS, inverted=True), True),
        (
            K,
            {1: 0, 2: 1, 5: 3, 3: 3},
            mo.map_get_by_rank_range("m", -3, 1, EXISTS, inverted=True),
            False,
        ),
        (K, {3: 0, 0: 2, 4: 3}, mo.map_get_by_rank_range("m", -3, 2, EXISTS, inverted=True), True),
        (
            UNORDERED,
            {2: 1, 3: 3, 1: 0, 0: 1},
            mo.map_get_by_index_range("m", 2, 1, EXISTS, inverted=True),
            False,
        ),
        (
            K,
            {2: 1, 3: 3, 1: 0, 0: 1},
            mo.map_get_by_index_range("m", 2, 1, EXISTS, inverted=True),
            True,
        ),
        (
            KV,
            {0: 1, 2: 2, 5: 3},
            mo.map_get_by_value_rank_range_relative("m", 1, 1, EXISTS, count=1, inverted=True),
            False,
        ),
        (UNORDERED, {1: 1, 2: 2}, mo.map_get_by_key_list("m", [1], EXISTS, inverted=True), True),
    ],
)
def test_inverted_exists(
    client: Any,
    set_name: str,
    order: int,
    items: dict[int, int],
    op: dict[str, Any],
    expected: bool,
) -> None:
    key = ("test", set_name, "m")
    client.put(key, {"m": {}})
    client.operate(
        key, [mo.map_set_policy("m", {"map_order": order}), mo.map_put_items("m", items)]
    )
    _, _, res = client.operate(key, [op])
    assert res["m"] is expected
