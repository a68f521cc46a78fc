"""Fixtures for the compatibility suite: the official C-based client connected to the server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import aerospike
import pytest


@pytest.fixture(scope="session")
def client(
    server_address: tuple[str, int], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """An official client connected to the suite's server (its Lua cache in a temp dir)."""
    host, port = server_address
    lua = str(tmp_path_factory.mktemp("lua"))
    c = aerospike.client({"hosts": [(host, port)], "lua": {"user_path": lua}}).connect()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def set_name() -> str:
    """A set name no other test uses."""
    return "compat_" + uuid.uuid4().hex[:10]
