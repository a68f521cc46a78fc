"""The pytest plugin's fixtures and the EmbeddedServer wrapper (stats, fault injection).

The wrapper test runs on every client flavor; each plugin fixture test stays on its own flavor,
since the fixture it checks is the async client (asyncio, trio) or the blocking one.
"""

from __future__ import annotations

import os

import pytest

import aerospike_fluent as af
from aerospike_fluent.errors import ParameterError
from aerospike_fluent.server import EmbeddedServer
from aerospike_fluent.testing import ServerInfo

from ._flavor import Flavor


@pytest.mark.anyio
async def test_async_client_fixture(aerospike_client: af.AsyncClient, set_name: str) -> None:
    k = aerospike_client.namespace("test").set(set_name).key("a")
    await k.put({"v": 1})
    assert (await k.get()) is not None


def test_sync_client_fixture(
    aerospike_sync_client: af.SyncClient, aerospike_server: ServerInfo, set_name: str
) -> None:
    k = aerospike_sync_client.namespace("test").set(set_name).key("s")
    k.put({"v": 2})
    rec = k.get()
    assert rec is not None and rec["v"] == 2
    assert aerospike_server.seeds.count(":") == 1


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded server only")
async def test_embedded_server_wrapper_stats_and_faults(fl: Flavor, set_name: str) -> None:
    with EmbeddedServer(namespaces=["test"]) as server:
        async with fl.connect(server.seeds) as db:
            assert server.running and server.port > 0
            k = db.namespace("test").set(set_name).key("k")
            await fl.run(k.put({"a": 1}))
            server.reset_stats()
            await fl.run(k.get())
            assert server.stats().get("read") == 1
            server.fault_fail(4, 1)  # PARAMETER_ERROR (not retried) on the next record request
            with pytest.raises(ParameterError):
                await fl.run(k.get())
            server.clear_faults()
            assert await fl.run(k.get()) is not None
    assert not server.running
