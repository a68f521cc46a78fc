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
