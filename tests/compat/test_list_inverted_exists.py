"""EXISTS of an inverted selection on an unordered list, as a real node answers it: for a value
or rank run, whether nothing was selected (a rank range leaving nothing answers false); other
selections (index ranges, ordered lists) answer whether anything is left."""

from __future__ import annotations

from typing import Any

import aerospike
import pytest
from aerospike_helpers.operations import list_operations as lo  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

EXISTS = aerospike.LIST_RETURN_EXISTS


@pytest.mark.parametrize(
    ("ordered", "items", "op", "expected"),
    [
        (False, [1, 2], lo.list_get_by_value("l", 1, EXISTS, inverted=True), False),
        (False, [1, 2], lo.list_get_by_value("l", 5, EXISTS, inverted=True), True),
        (False, [], lo.list_get_by_value_range("l", EXISTS, 0, 1, inverted=True), True),
        (False, [0, 0], lo.list_get_by_rank_range("l", 1, EXISTS, inverted=True), False),
        (False, [0, 0], lo.list_get_by_rank_range("l", 5, EXISTS, 1, inverted=True), True),
        (False, [], lo.list_get_by_rank_range("l", 0, EXISTS, 1, inverted=True), False),
        (False, [1, 2], lo.list_get_by_index_range("l", 0, EXISTS, 1, inverted=True), True),
        (True, [1, 2], lo.list_get_by_value("l", 1, EXISTS, inverted=True), True),
    ],
)
def test_inverted_exists(
    client: Any, set_name: str, ordered: bool, items: list[Any], op: dict[str, Any], expected: bool
) -> None:
    key = ("test", set_name, "l")
    client.put(key, {"l": items})
    if ordered:
        client.operate(key, [lo.list_set_order("l", aerospike.LIST_ORDERED)])
    _, _, res = client.operate(key, [op])
    assert res["l"] is expected
