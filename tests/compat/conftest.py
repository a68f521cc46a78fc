"""Fixtures for the compatibility suite: the official C-based client connected to the server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aerospike
import pytest


@pytest.fixture(scope="session")
def lua_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official clients' Lua path: the first client of a process sets it for every client."""
    return Path(tmp_path_factory.mktemp("lua"))


@pytest.fixture(scope="session")
def client(server_address: tuple[str, int], lua_path: Path) -> Iterator[Any]:
    """An official client connected to the suite's server (its Lua cache in a temp dir)."""
    host, port = server_address
    lua = str(lua_path)
    c = aerospike.client({"hosts": [(host, port)], "lua": {"user_path": lua}}).connect()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def set_name() -> str:
    """A set name no other test uses."""
    return "compat_" + uuid.uuid4().hex[:10]
