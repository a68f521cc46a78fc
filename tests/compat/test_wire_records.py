"""Gets and puts of this SDK (sent over its own connections, not the crate's) read and written
by the official client: the same bins, types, TTL and stored key either way."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync

pytestmark = pytest.mark.compat

BINS = {"i": -7, "big": 2**62, "f": 2.5, "s": "text é", "b": b"\x00\x01", "t": True, "e": ""}


@pytest.fixture
def db(server_address: tuple[str, int]) -> Iterator[af.SyncClient]:
    host, port = server_address
    with af_sync.connect(f"{host}:{port}") as db:
        yield db


def test_a_put_reads_back_the_same_in_the_official_client(
    db: af.SyncClient, client: Any, set_name: str
) -> None:
    rec = db.namespace("test").set(set_name).key("k1")
    rec.put(BINS, ttl=5000, send_key=True)
    _, meta, got = client.get(("test", set_name, "k1"))
    assert got == {**BINS, "b": bytearray(b"\x00\x01")}
    assert meta["gen"] == 1 and 4990 <= meta["ttl"] <= 5000
    stored = [k[2] for k, _, _ in client.query("test", set_name).results()]
    assert stored == ["k1"]  # send_key stored the user key


def test_a_put_of_none_removes_the_bin(db: af.SyncClient, client: Any, set_name: str) -> None:
    rec = db.namespace("test").set(set_name).key(7)
    rec.put({"a": 1, "b": 2})
    rec.put({"a": None, "c": 3.0})
    _, meta, got = client.get(("test", set_name, 7))
    assert got == {"b": 2, "c": 3.0} and meta["gen"] == 2


def test_a_get_reads_what_the_official_client_wrote(
    db: af.SyncClient, client: Any, set_name: str
) -> None:
    key = ("test", set_name, "raw-k")
    client.put(key, {**BINS, "l": [1, "two", [3]], "m": {"a": 1}}, meta={"ttl": 3000})
    got = db.namespace("test").set(set_name).key("raw-k").get()
    assert got is not None
    assert got.bins == {**BINS, "l": [1, "two", [3]], "m": {"a": 1}}
    assert got.generation == 1 and got.ttl is not None and 2990 <= got.ttl <= 3000
    named = db.namespace("test").set(set_name).key("raw-k").get("s", "missing", "t")
    assert named is not None and named.bins == {"s": "text é", "t": True}
    assert db.namespace("test").set(set_name).key("absent").get() is None


def test_an_async_put_and_get_meet_the_official_client(
    server_address: tuple[str, int], client: Any, set_name: str
) -> None:
    host, port = server_address

    async def run() -> Any:
        async with af.connect(f"{host}:{port}") as adb:
            s = adb.namespace("test").set(set_name)
            for i in range(20):  # past the calls after which an event loop gets its own pool
                await s.key(i).put({"n": i, "sq": float(i * i)})
            return [await s.key(i).get() for i in range(20)]

    got = asyncio.run(run())
    assert [r.bins for r in got] == [{"n": i, "sq": float(i * i)} for i in range(20)]
    for i in range(20):
        assert client.get(("test", set_name, i))[2] == {"n": i, "sq": float(i * i)}


def test_a_refused_put_raises_the_servers_error(db: af.SyncClient, set_name: str) -> None:
    rec = db.namespace("test").set(set_name).key("big")
    with pytest.raises(af.errors.RecordTooBigError) as caught:
        rec.put({"x": b"\x00" * (9 << 20)})
    assert caught.value.result_code == 13 and caught.value.in_doubt is False
    assert rec.get() is None
