"""An acknowledged write is seen by the very next query: many put-then-query rounds on one
node, through the SDK (blocking and asyncio) and the C client, with a filter expression and
with a secondary index."""

from __future__ import annotations

import uuid
from typing import Any

import aerospike
import anyio
import pytest
from aerospike_helpers import expressions as xp  # type: ignore[import-untyped]

import aerospike_fluent as af
from aerospike_fluent import F
from aerospike_fluent import sync as af_sync

ROUNDS = 300


@pytest.fixture
def seeds(server_address: tuple[str, int]) -> str:
    host, port = server_address
    return f"{host}:{port}"


def _indexed_set(db: af.SyncClient) -> str:
    name = "ryw_" + uuid.uuid4().hex[:8]
    db.namespace("test").set(name).create_index("n", "numeric", name=f"{name}_n")
    return name


def test_blocking_put_then_query(seeds: str) -> None:
    with af_sync.connect(seeds) as db:
        plain = db.namespace("test").set("ryw_" + uuid.uuid4().hex[:8])
        indexed = db.namespace("test").set(_indexed_set(db))
        misses = []
        for i in range(ROUNDS):
            plain.key(i).put({"n": i, "tag": f"t{i}"})
            by_filter = plain.query().where(F.bin("tag") == f"t{i}").collect()
            indexed.key(i).put({"n": i})
            by_index = indexed.query().where_index("n").equals(i).collect()
            if len(by_filter) != 1 or len(by_index) != 1:
                misses.append((i, len(by_filter), len(by_index)))
        assert misses == []


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_async_put_then_query(seeds: str, anyio_backend: str) -> None:
    name = await anyio.to_thread.run_sync(lambda: _indexed_set_of(seeds))
    async with af.connect(seeds) as db:
        plain = db.namespace("test").set("ryw_" + uuid.uuid4().hex[:8])
        indexed = db.namespace("test").set(name)
        misses = []
        for i in range(ROUNDS):
            await plain.key(i).put({"n": i, "tag": f"t{i}"})
            by_filter = await plain.query().where(F.bin("tag") == f"t{i}").collect()
            await indexed.key(i).put({"n": i})
            by_index = await indexed.query().where_index("n").equals(i).collect()
            if len(by_filter) != 1 or len(by_index) != 1:
                misses.append((i, len(by_filter), len(by_index)))
        assert misses == []


def _indexed_set_of(seeds: str) -> str:
    with af_sync.connect(seeds) as db:
        return _indexed_set(db)


def test_c_client_put_then_query(server_address: tuple[str, int]) -> None:
    c: Any = aerospike.client({"hosts": [server_address]}).connect()
    try:
        name = "ryw_" + uuid.uuid4().hex[:8]
        misses = []
        for i in range(ROUNDS):
            c.put(("test", name, i), {"n": i, "tag": f"t{i}"})
            q = c.query("test", name)
            policy = {"expressions": xp.Eq(xp.StrBin("tag"), f"t{i}").compile()}
            found = q.results(policy)
            if len(found) != 1:
                misses.append((i, len(found)))
        assert misses == []
    finally:
        c.close()
