"""Fixtures for the fluent integration tests: both anyio backends, async and sync clients."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator

import pytest

import aerospike_fluent as af
from aerospike_fluent import _native as n
from aerospike_fluent import sync as af_sync

_sets = itertools.count()


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def seeds(server_address: tuple[str, int]) -> str:
    host, port = server_address
    return f"{host}:{port}"


@pytest.fixture
async def db(seeds: str) -> AsyncIterator[af.AsyncClient]:
    async with af.connect(seeds) as client:
        yield client


@pytest.fixture
def sdb(seeds: str) -> Iterator[af.SyncClient]:
    with af_sync.connect(seeds) as client:
        yield client


@pytest.fixture
def set_name() -> str:
    """A set no other test uses."""
    return f"fluent{next(_sets)}"


@pytest.fixture
def server() -> Iterator[n.EmbeddedServer]:
    """A private in-process embedded server (modules may narrow or widen its scope)."""
    s = n.EmbeddedServer()
    yield s
    s.stop()
