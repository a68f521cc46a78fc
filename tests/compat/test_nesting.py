"""Values nested deeper than the server accepts in an operation are a parameter error, never a
crash of the (in-process) server."""

from __future__ import annotations

import os
from typing import Any

import pytest
from aerospike import exception as ex
from aerospike_helpers.operations import list_operations  # type: ignore[import-untyped]


def _nested(depth: int) -> list[Any]:
    value: list[Any] = [1]
    for _ in range(depth - 1):
        value = [value]
    return value


def _depth(value: Any) -> int:
    depth = 0
    while isinstance(value, list):
        depth, value = depth + 1, value[0]
    return depth


@pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_HOST")),
    reason="the embedded server's nesting limit (256 levels, a stack guard): a real CE 8.1 "
    "server takes list values nested 2,000 levels deep",
)
def test_a_list_op_value_nested_too_deeply_is_refused(client: Any, set_name: str) -> None:
    key = ("test", set_name, "deep")
    client.put(key, {"l": [0]})
    with pytest.raises(ex.InvalidRequest) as caught:
        client.operate(key, [list_operations.list_append("l", _nested(500))])
    assert caught.value.code == 4  # PARAMETER_ERROR
    client.operate(key, [list_operations.list_append("l", _nested(50))])
    _, _, got = client.get(key)
    assert got["l"][0] == 0 and _depth(got["l"][1]) == 50
