"""Reliability fixtures: each test gets its OWN embedded server, so faults never leak."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from aerospike_fluent import _native
from aerospike_fluent.server import EmbeddedServer

NATIVE_READY = (
    hasattr(_native, "connect")
    and hasattr(_native, "EmbeddedServer")
    and importlib.util.find_spec("aerospike_fluent._bridge") is not None
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if NATIVE_READY:
        return
    skip = pytest.mark.skip(reason="native client / embedded server not built yet")
    for item in items:
        if "reliability" in item.path.parts:
            item.add_marker(skip)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server() -> Iterator[EmbeddedServer]:
    """A private embedded server (faults injected here affect this test only)."""
    with EmbeddedServer() as srv:
        yield srv


@pytest.fixture
def seeds(server: EmbeddedServer) -> str:
    return server.seeds
