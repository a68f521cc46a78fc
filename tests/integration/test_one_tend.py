"""One crate client, so one seeding and one tend, per connected client: calls from a blocking
caller, an asyncio loop (past the point where it gets a runtime of its own) and a trio run,
including calls only the crate serves, seed no other cluster view; the view follows a node
that is killed."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import trio

from aerospike_fluent import _bridge
from aerospike_fluent import _native as n

from ._cluster import ON_EMBEDDED_CLUSTER, settle

pytestmark = ON_EMBEDDED_CLUSTER

_RUN = uuid.uuid4().hex[:8]
SEEDING = "Seeding the cluster"
INSERT = n.Policy(exists=4)  # a put with an existence policy: a call the crate serves


@pytest.fixture
def cluster() -> Iterator[n.EmbeddedCluster]:
    c = n.EmbeddedCluster(nodes=3)
    yield c
    c.stop()


def key(i: int) -> n.Key:
    return ("test", "tend", f"t{_RUN}_{i}", None)


async def calls(client: n.Client, base: int) -> None:
    """Enough calls on the running loop for it to get a runtime of its own, and crate calls."""

    async def call(name: str, *args: Any) -> Any:
        method = getattr(client, name)
        return await _bridge.wait(lambda done: method(done, *args))

    for i in range(2 * n.LOOP_RUNTIME_AFTER):
        await call("put", key(base + i), {"a": i}, None)
        rec = await call("get", key(base + i), None, False, None)
        assert rec.bins == {"a": i}
    await call("operate", key(base), [("add", "a", 1), ("read", "a")], None)
    await call("put", key(base + 1000), {"a": 1}, INSERT)


def test_a_client_seeds_one_cluster_view_whatever_calls_it(
    cluster: n.EmbeddedCluster, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="aerospike_fluent")
    client = n.connect_blocking(n.ClientConfig(f"{cluster.host}:{cluster.port(0)}"))
    try:
        for i in range(20):
            client.put_blocking(key(i), {"a": i}, None)
            client.operate_blocking(key(i), [("add", "a", 1)], None)
        client.put_blocking(key(500), {"a": 1}, INSERT)
        asyncio.run(calls(client, 100))
        trio.run(calls, client, 200)
        seedings = [r for r in caplog.records if SEEDING in r.getMessage()]
        assert len(seedings) == 1, [r.getMessage() for r in seedings]

        cluster.kill(2)
        assert settle(lambda: len(client.node_names()) == 2)
        for i in range(20):
            rec = client.get_blocking(key(i), None, False, None)
            assert rec is not None and rec.bins == {"a": i + 1}
        assert len([r for r in caplog.records if SEEDING in r.getMessage()]) == 1
    finally:
        client.close()
