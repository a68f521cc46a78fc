"""Where the suite's server comes from: ``AEROSPIKE_HOST=host:port`` or the embedded one."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def server_address() -> Iterator[tuple[str, int]]:
    """(host, port) of the server every integration test talks to over TCP."""
    configured = os.environ.get("AEROSPIKE_HOST")
    if configured:
        host, _, port = configured.rpartition(":")
        yield host, int(port)
        return
    from aerospike_fluent._native import EmbeddedServer

    server = EmbeddedServer()
    try:
        yield server.host, server.port
    finally:
        server.stop()


@pytest.fixture
def seeds(server_address: tuple[str, int]) -> str:
    """``host:port`` of the suite's server."""
    host, port = server_address
    return f"{host}:{port}"


@pytest.fixture(scope="session")
def sc_seeds() -> Iterator[str]:
    """``host:port`` of a server whose namespace ``test`` is strong-consistency (``bar`` is
    not): ``AEROSPIKE_HOST`` when its ``test`` is (else the test is skipped), or an embedded
    Enterprise server."""
    configured = os.environ.get("AEROSPIKE_HOST")
    if configured:
        from aerospike_fluent import sync as af_sync

        with af_sync.connect(configured) as db:
            config = db.info("get-config:context=namespace;id=test")
        if "strong-consistency=true" not in str(config):
            pytest.skip("the server's namespace 'test' is not strong-consistency")
        yield configured
        return
    from aerospike_fluent.server import EmbeddedServer

    with EmbeddedServer(edition="enterprise", strong_consistency=["test"]) as server:
        yield server.seeds
