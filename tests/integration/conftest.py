"""Fixtures for the fluent integration tests: both anyio backends, async and sync clients."""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import AsyncIterator, Iterator

import pytest

import aerospike_fluent as af
from aerospike_fluent import _native
from aerospike_fluent import sync as af_sync

NATIVE_READY = (
    hasattr(_native, "connect")
    and hasattr(_native, "EmbeddedServer")
    and importlib.util.find_spec("aerospike_fluent._bridge") is not None
)
_sets = itertools.count()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if NATIVE_READY:
        return
    skip = pytest.mark.skip(reason="native client / embedded server not built yet")
    for item in items:
        if item.path.name.startswith("test_fluent_"):
            item.add_marker(skip)


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
