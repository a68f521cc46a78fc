"""Single-record commands of the official client against the server."""

from __future__ import annotations

import time
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers.operations import operations as op  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat


def test_put_get_all_types(client: Any, set_name: str) -> None:
    key = ("test", set_name, "k1")
    bins = {
        "i": 7,
        "f": 2.5,
        "s": "text",
        "b": bytearray(b"\x00\x01"),
        "l": [1, "two", [3]],
        "m": {"a": 1, "b": [2]},
        "t": True,
    }
    client.put(key, bins)
    _, meta, got = client.get(key)
    assert got == bins
    assert meta["gen"] == 1


def test_select_exists_remove(client: Any, set_name: str) -> None:
    key = ("test", set_name, 1)
    client.put(key, {"a": 1, "b": 2})
    _, _, got = client.select(key, ["b"])
    assert got == {"b": 2}
    _, meta = client.exists(key)
    assert meta is not None and meta["gen"] == 1
    client.remove(key)
    _, meta = client.exists(key)
    assert meta is None
    with pytest.raises(ex.RecordNotFound):
        client.get(key)
    with pytest.raises(ex.RecordNotFound):
        client.remove(key)


def test_increment_append_prepend_touch(client: Any, set_name: str) -> None:
    key = ("test", set_name, "ops")
    client.put(key, {"n": 1, "s": "b"})
    client.increment(key, "n", 41)
    client.append(key, "s", "c")
    client.prepend(key, "s", "a")
    client.touch(key, 100)
    _, meta, got = client.get(key)
    assert got == {"n": 42, "s": "abc"}
    assert meta["gen"] == 5
    assert 0 < meta["ttl"] <= 100
    with pytest.raises(ex.BinIncompatibleType):
        client.increment(key, "s", 1)


def test_operate_and_operate_ordered(client: Any, set_name: str) -> None:
    key = ("test", set_name, "op")
    client.put(key, {"n": 10})
    _, _, got = client.operate(
        key, [op.increment("n", 5), op.write("w", "x"), op.read("n"), op.read("w")]
    )
    assert got == {"n": 15, "w": "x"}
    _, _, ordered = client.operate_ordered(key, [op.read("n"), op.increment("n", 1), op.read("n")])
    # Only reads answer (the client does not ask for write results).
    assert [v for _, v in ordered] == [15, 16]
    _, _, got = client.operate(key, [op.delete()])
    with pytest.raises(ex.RecordNotFound):
        client.get(key)


def test_policies_exists_and_generation(client: Any, set_name: str) -> None:
    key = ("test", set_name, "pol")
    create = {"exists": aerospike.POLICY_EXISTS_CREATE}
    client.put(key, {"a": 1}, policy=create)
    with pytest.raises(ex.RecordExistsError):
        client.put(key, {"a": 2}, policy=create)
    with pytest.raises(ex.RecordNotFound):
        client.put(
            ("test", set_name, "missing"),
            {"a": 1},
            policy={"exists": aerospike.POLICY_EXISTS_UPDATE},
        )
    gen_eq = {"gen": aerospike.POLICY_GEN_EQ}
    with pytest.raises(ex.RecordGenerationError):
        client.put(key, {"a": 3}, meta={"gen": 5}, policy=gen_eq)
    client.put(key, {"a": 3}, meta={"gen": 1}, policy=gen_eq)
    client.put(key, {"z": 0}, policy={"exists": aerospike.POLICY_EXISTS_REPLACE})
    _, meta, got = client.get(key)
    assert got == {"z": 0}
    assert meta["gen"] == 3


def test_stored_key_is_returned_by_scan(client: Any, set_name: str) -> None:
    key = ("test", set_name, "sk")
    client.put(key, {"a": 1}, policy={"key": aerospike.POLICY_KEY_SEND})
    results = client.scan("test", set_name).results()
    assert [r[0][2] for r in results] == ["sk"]


def test_ttl_expiry(client: Any, set_name: str) -> None:
    key = ("test", set_name, "ttl")
    client.put(key, {"a": 1}, meta={"ttl": 1})
    _, meta, _ = client.get(key)
    assert meta["ttl"] in (0, 1)
    time.sleep(2.1)
    with pytest.raises(ex.RecordNotFound):
        client.get(key)


def test_unknown_namespace(client: Any) -> None:
    with pytest.raises(ex.NamespaceNotFound):
        client.put(("nope", "s", 1), {"a": 1})


def test_a_read_of_no_bins_that_does_not_ask_for_all_is_refused(client: Any, set_name: str) -> None:
    key = ("test", set_name, "select_none")
    client.put(key, {"a": 1})
    with pytest.raises(ex.InvalidRequest):
        client.select(key, [])
    assert client.select(key, ["a"])[2] == {"a": 1}
