"""Index lists of a map's rank ranges as a real node writes them: in rank order (equal values
in key order), and an inverted range that leaves a middle run in index order."""

from __future__ import annotations

from typing import Any

import aerospike
import pytest
from aerospike_helpers.operations import map_operations as mo  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

INDEX, REVERSE_INDEX = aerospike.MAP_RETURN_INDEX, aerospike.MAP_RETURN_REVERSE_INDEX
TIES = {"a": 2, "b": 1, "c": 2, "d": 1, "e": 2}


@pytest.mark.parametrize(
    ("entries", "op", "expected"),
    [
        (TIES, mo.map_get_by_rank_range("m", 0, 5, INDEX), [1, 3, 0, 2, 4]),
        (TIES, mo.map_get_by_rank_range("m", 0, 3, REVERSE_INDEX), [3, 1, 4]),
        (TIES, mo.map_get_by_value_rank_range_relative("m", 2, -1, INDEX, 2), [3, 0]),
        # inverted, a head or a tail left over is a rank range too
        (TIES, mo.map_get_by_rank_range("m", 4, 1, INDEX, inverted=True), [1, 3, 0, 2]),
        (TIES, mo.map_get_by_rank_range("m", 0, 1, REVERSE_INDEX, inverted=True), [1, 4, 2, 0]),
        # ... a middle left over comes in index order
        (TIES, mo.map_get_by_rank_range("m", 1, 1, INDEX, inverted=True), [0, 1, 2, 4]),
        # values of different types: int 1 < "x" < float 1.0
        ({1: 1.0, 2: 1, 3: 1.0, 4: "x"}, mo.map_get_by_rank_range("m", 0, 4, INDEX), [1, 3, 0, 2]),
        # nothing selected, inverted: everything, in rank order
        (
            {"a": 0, "b": 0},
            mo.map_get_by_value_rank_range_relative("m", 0, -1, REVERSE_INDEX, 1, inverted=True),
            [1, 0],
        ),
    ],
)
def test_map_rank_range_index_lists(
    client: Any, set_name: str, entries: dict[Any, Any], op: dict[str, Any], expected: list[int]
) -> None:
    key = ("test", set_name, "m")
    client.put(key, {"m": entries})
    _, _, res = client.operate(key, [op])
    assert res["m"] == expected
