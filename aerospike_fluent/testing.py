"""Pytest plugin (registered through the ``pytest11`` entry point).

Fixtures:
    aerospike_server: session-wide :class:`ServerInfo`; an embedded server, or the cluster named
        by ``AEROSPIKE_HOST=host:port`` when set.
    aerospike_client: an async client (use with ``@pytest.mark.anyio``), closed after the test.
    aerospike_sync_client: a blocking client, closed after the test.
    aerospike_cluster: a fresh 3-node embedded cluster (replication factor 2) per test, for
        routing, paging and failover; always embedded, since tests kill its nodes.

Importing this module is cheap: the native core loads only when a fixture is used.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from aerospike_fluent._exec import Async, Sync
    from aerospike_fluent.client import Client
    from aerospike_fluent.server import EmbeddedCluster, EmbeddedServer


@dataclass(frozen=True)
class ServerInfo:
    """Where the test server listens; ``embedded`` is None for an external cluster."""

    host: str
    port: int
    embedded: EmbeddedServer | None

    @property
    def seeds(self) -> str:
        """``"host:port"``."""
        return f"{self.host}:{self.port}"


@pytest.fixture(scope="session")
def aerospike_server() -> Iterator[ServerInfo]:
    """Session server: ``AEROSPIKE_HOST`` if set, else an embedded one."""
    configured = os.environ.get("AEROSPIKE_HOST")
    if configured:
        host, _, port = configured.rpartition(":")
        yield ServerInfo(host, int(port), None)
        return
    from aerospike_fluent.server import EmbeddedServer

    with EmbeddedServer() as server:
        yield ServerInfo(server.host, server.port, server)


@pytest.fixture
async def aerospike_client(aerospike_server: ServerInfo) -> AsyncIterator[Client[Async]]:
    """Async client connected to :func:`aerospike_server`."""
    import aerospike_fluent

    async with aerospike_fluent.connect(aerospike_server.seeds) as db:
        yield db


@pytest.fixture
def aerospike_sync_client(aerospike_server: ServerInfo) -> Iterator[Client[Sync]]:
    """Blocking client connected to :func:`aerospike_server`."""
    from aerospike_fluent import sync

    with sync.connect(aerospike_server.seeds) as db:
        yield db


@pytest.fixture
def aerospike_cluster() -> Iterator[EmbeddedCluster]:
    """Start a fresh 3-node embedded cluster (replication factor 2); stop it after the test."""
    from aerospike_fluent.server import EmbeddedCluster

    with EmbeddedCluster(nodes=3, replication_factor=2) as cluster:
        yield cluster
