"""CDT list and map operations of the official client against the server."""

from __future__ import annotations

from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers import cdt_ctx  # type: ignore[import-untyped]
from aerospike_helpers.operations import list_operations as lo  # type: ignore[import-untyped]
from aerospike_helpers.operations import map_operations as mo

pytestmark = pytest.mark.compat


def test_list_append_get_and_return_types(client: Any, set_name: str) -> None:
    key = ("test", set_name, "l1")
    client.put(key, {"l": [30, 10, 20, 10]})
    _, _, res = client.operate(
        key,
        [
            lo.list_append("l", 5),
            lo.list_get_by_value("l", 10, aerospike.LIST_RETURN_INDEX),
        ],
    )
    assert res == {"l": [1, 3]}
    _, _, res = client.operate(
        key, [lo.list_get_by_rank_range("l", 0, aerospike.LIST_RETURN_VALUE, 2)]
    )
    assert sorted(res["l"]) == [5, 10]
    _, _, res = client.operate(key, [lo.list_size("l")])
    assert res == {"l": 5}
    _, _, res = client.operate(
        key, [lo.list_get_by_value_range("l", aerospike.LIST_RETURN_COUNT, 10, 25)]
    )
    assert res == {"l": 3}
    _, _, res = client.operate(
        key, [lo.list_get_by_value("l", 10, aerospike.LIST_RETURN_VALUE, inverted=True)]
    )
    assert res == {"l": [30, 20, 5]}


def test_list_modify_ops(client: Any, set_name: str) -> None:
    key = ("test", set_name, "l2")
    client.put(key, {"l": [1, 2, 3]})
    client.operate(
        key,
        [
            lo.list_insert("l", 0, 0),
            lo.list_set("l", -1, 33),
            lo.list_increment("l", 1, 10),
            lo.list_remove_by_value("l", 2, aerospike.LIST_RETURN_NONE),
        ],
    )
    _, _, got = client.get(key)
    assert got["l"] == [0, 11, 33]
    _, _, res = client.operate(key, [lo.list_pop("l", 0)])
    assert res == {"l": 0}
    with pytest.raises(ex.OpNotApplicable):
        client.operate(key, [lo.list_get("l", 10)])


def test_list_add_unique_policy(client: Any, set_name: str) -> None:
    key = ("test", set_name, "l3")
    client.put(key, {"l": [1, 2]})
    policy: dict[str, Any] = {"write_flags": aerospike.LIST_WRITE_ADD_UNIQUE}
    with pytest.raises(ex.AerospikeError) as err:
        client.operate(key, [lo.list_append("l", 2, policy)])
    assert err.value.code == 24
    policy = {"write_flags": aerospike.LIST_WRITE_ADD_UNIQUE | aerospike.LIST_WRITE_NO_FAIL}
    client.operate(key, [lo.list_append("l", 2, policy)])
    _, _, got = client.get(key)
    assert got["l"] == [1, 2]


def test_ordered_list_stays_sorted(client: Any, set_name: str) -> None:
    key = ("test", set_name, "l4")
    policy = {"list_order": aerospike.LIST_ORDERED}
    client.operate(key, [lo.list_append_items("l", [3, 1, 2], policy)])
    client.operate(key, [lo.list_append("l", 0, policy)])
    _, _, got = client.get(key)
    assert got["l"] == [0, 1, 2, 3]


def test_map_put_and_reads(client: Any, set_name: str) -> None:
    key = ("test", set_name, "m1")
    client.operate(key, [mo.map_put_items("m", {"c": 1, "a": 3, "b": 2})])
    _, _, res = client.operate(key, [mo.map_get_by_key("m", "a", aerospike.MAP_RETURN_VALUE)])
    assert res == {"m": 3}
    _, _, res = client.operate(key, [mo.map_get_by_rank_range("m", 0, 2, aerospike.MAP_RETURN_KEY)])
    assert sorted(res["m"]) == ["b", "c"]
    _, _, res = client.operate(key, [mo.map_get_by_index("m", 0, aerospike.MAP_RETURN_KEY_VALUE)])
    assert res["m"] == ["a", 3]  # key/value pairs come as a flat list, as from a real server
    _, _, res = client.operate(key, [mo.map_increment("m", "a", 4), mo.map_size("m")])
    assert res == {"m": 3}
    _, _, got = client.get(key)
    assert got["m"]["a"] == 7


def test_map_write_flags(client: Any, set_name: str) -> None:
    key = ("test", set_name, "m2")
    client.put(key, {"m": {"a": 1}})
    create_only = {"map_write_flags": aerospike.MAP_WRITE_FLAGS_CREATE_ONLY}
    with pytest.raises(ex.AerospikeError) as err:
        client.operate(key, [mo.map_put("m", "a", 2, create_only)])
    assert err.value.code == 24
    update_only = {"map_write_flags": aerospike.MAP_WRITE_FLAGS_UPDATE_ONLY}
    with pytest.raises(ex.AerospikeError) as err:
        client.operate(key, [mo.map_put("m", "z", 2, update_only)])
    assert err.value.code == 23


def test_map_remove_by_value_range(client: Any, set_name: str) -> None:
    key = ("test", set_name, "m3")
    client.put(key, {"m": {"a": 1, "b": 2, "c": 3, "d": 4}})
    _, _, res = client.operate(
        key, [mo.map_remove_by_value_range("m", 2, 4, aerospike.MAP_RETURN_KEY)]
    )
    assert sorted(res["m"]) == ["b", "c"]
    _, _, got = client.get(key)
    assert got["m"] == {"a": 1, "d": 4}


def test_nested_contexts(client: Any, set_name: str) -> None:
    key = ("test", set_name, "n1")
    client.put(key, {"doc": {"user": {"tags": ["x"]}, "list": [[1], [2, 3]]}})
    ctx = [cdt_ctx.cdt_ctx_map_key("user"), cdt_ctx.cdt_ctx_map_key("tags")]
    _, _, res = client.operate(key, [lo.list_append("doc", "y", ctx=ctx)])
    assert res == {"doc": 2}
    ctx = [cdt_ctx.cdt_ctx_map_key("list"), cdt_ctx.cdt_ctx_list_index(-1)]
    _, _, res = client.operate(key, [lo.list_get("doc", 0, ctx=ctx)])
    assert res == {"doc": 2}
    _, _, got = client.get(key)
    assert got["doc"]["user"]["tags"] == ["x", "y"]


def test_nested_create_context(client: Any, set_name: str) -> None:
    key = ("test", set_name, "n2")
    client.put(key, {"doc": {}})
    ctx = [cdt_ctx.cdt_ctx_map_key_create("new", aerospike.MAP_KEY_ORDERED)]
    client.operate(key, [mo.map_put("doc", "k", 1, ctx=ctx)])
    _, _, got = client.get(key)
    assert got["doc"] == {"new": {"k": 1}}


def test_wrong_bin_type(client: Any, set_name: str) -> None:
    key = ("test", set_name, "w1")
    client.put(key, {"s": "text"})
    with pytest.raises(ex.BinIncompatibleType):
        client.operate(key, [lo.list_append("s", 1)])
