"""The pytest plugin's fixtures and the EmbeddedServer wrapper (stats, fault injection)."""

from __future__ import annotations

import os

import pytest

import aerospike_fluent as af
from aerospike_fluent.errors import ParameterError
from aerospike_fluent.server import EmbeddedServer
from aerospike_fluent.testing import ServerInfo


@pytest.mark.anyio
async def test_async_client_fixture(aerospike_client: af.AsyncClient) -> None:
    k = aerospike_client.namespace("test").set("plugin").key("a")
    await k.put({"v": 1})
    assert (await k.get()) is not None


def test_sync_client_fixture(
    aerospike_sync_client: af.SyncClient, aerospike_server: ServerInfo
) -> None:
    k = aerospike_sync_client.namespace("test").set("plugin").key("s")
    k.put({"v": 2})
    rec = k.get()
    assert rec is not None and rec["v"] == 2
    assert aerospike_server.seeds.count(":") == 1


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded server only")
def test_embedded_server_wrapper_stats_and_faults() -> None:
    with EmbeddedServer(namespaces=["test"]) as server, af.sync.connect(server.seeds) as db:
        assert server.running and server.port > 0
        k = db.namespace("test").set("faults").key("k")
        k.put({"a": 1})
        server.reset_stats()
        k.get()
        assert server.stats().get("read") == 1
        server.fault_fail(4, 1)  # PARAMETER_ERROR (not retried) on the next record request
        with pytest.raises(ParameterError):
            k.get()
        server.clear_faults()
        assert k.get() is not None
    assert not server.running
