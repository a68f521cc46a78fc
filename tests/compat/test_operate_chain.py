"""Touch and delete inside an operate, generation checks and absolute expiry: the official client
against the server, and the fluent chain's records read back by it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers.operations import operations as op  # type: ignore[import-untyped]

from aerospike_fluent import sync

pytestmark = pytest.mark.compat


def test_touch_inside_operate(client: Any, set_name: str) -> None:
    key = ("test", set_name, "t")
    client.put(key, {"n": 1})
    ops = [op.increment("n", 1), op.touch(), op.read("n")]
    _, meta, bins = client.operate(key, ops, policy={"ttl": 300})
    assert bins == {"n": 2} and meta["gen"] == 2
    _, meta = client.exists(key)
    assert 290 <= meta["ttl"] <= 300


def test_touch_needs_the_record(client: Any, set_name: str) -> None:
    key = ("test", set_name, "missing")
    with pytest.raises(ex.RecordNotFound):
        client.operate(key, [op.write("n", 1), op.touch()])
    _, meta = client.exists(key)
    assert meta is None
    client.put(key, {"n": 1})
    replace = {"exists": aerospike.POLICY_EXISTS_REPLACE}
    with pytest.raises(ex.InvalidRequest):  # code 4: a touch cannot run with a replace
        client.operate(key, [op.write("n", 2), op.touch()], policy=replace)


def test_delete_inside_operate(client: Any, set_name: str) -> None:
    key = ("test", set_name, "d")
    client.put(key, {"a": 1, "b": 2})
    _, meta, bins = client.operate(key, [op.delete(), op.write("c", 3), op.read("c")])
    assert bins == {"c": 3}
    _, meta, got = client.get(key)
    assert got == {"c": 3} and meta["gen"] == 2
    _, _, bins = client.operate(key, [op.read("c"), op.delete()])
    assert bins == {"c": 3}
    _, meta = client.exists(key)
    assert meta is None


def test_generation_checks_on_remove_and_touch(client: Any, set_name: str) -> None:
    key = ("test", set_name, "g")
    client.put(key, {"a": 1})
    eq = {"gen": aerospike.POLICY_GEN_EQ}
    with pytest.raises(ex.RecordGenerationError):
        client.remove(key, meta={"gen": 5}, policy=eq)
    with pytest.raises(ex.RecordGenerationError):
        client.touch(key, 60, meta={"gen": 5}, policy=eq)
    client.touch(key, 60, meta={"gen": 1}, policy=eq)
    client.remove(key, meta={"gen": 2}, policy=eq)
    # Missing: "not found" comes before the generation.
    with pytest.raises(ex.RecordNotFound):
        client.remove(key, meta={"gen": 5}, policy=eq)
    with pytest.raises(ex.RecordNotFound):
        client.touch(key, 60, meta={"gen": 5}, policy=eq)


def test_fluent_chain_read_back(
    client: Any, set_name: str, server_address: tuple[str, int]
) -> None:
    host, port = server_address
    expiry = datetime.now(UTC) + timedelta(hours=2)
    with sync.connect(f"{host}:{port}") as db:
        k = db.namespace("test").set(set_name).key("f")
        k.put({"a": 1, "b": 2}, expire_at=expiry)
        k.record.delete().bin("c").set(3).record.touch().execute(expire_at=expiry)
    _, meta, got = client.get(("test", set_name, "f"))
    assert got == {"c": 3} and meta["gen"] == 2
    assert 7190 <= meta["ttl"] <= 7200
