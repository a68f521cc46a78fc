"""Fixtures for the compatibility suite: the official C-based client connected to the server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

aerospike = pytest.importorskip("aerospike")


@pytest.fixture(scope="session")
def client(server_address: tuple[str, int]) -> Iterator[Any]:
    """An official client connected to the suite's server."""
    host, port = server_address
    c = aerospike.client({"hosts": [(host, port)]}).connect()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def set_name() -> str:
    """A set name no other test uses."""
    return "compat_" + uuid.uuid4().hex[:10]
