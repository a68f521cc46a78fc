"""Fixtures for the fluent integration tests: client flavors, async and sync clients, sets.

Most fluent tests are *flavored*: written once as an ``async def`` taking ``fl`` and run three
times, on an async client under asyncio and trio and on the blocking client (see ``_flavor.py``).
Tests that only make sense on an event loop use ``@pytest.mark.anyio`` and ``anyio_backend``.
"""

from __future__ import annotations

import inspect
import itertools
import uuid
from collections.abc import Iterator

import pytest

import aerospike_fluent as af
from aerospike_fluent import _native as n
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

from ._flavor import FLAVORS, Flavor

RUN = uuid.uuid4().hex[:8]
"""This run's token: a server that outlives the run (``AEROSPIKE_HOST``) keeps its records."""

_sets = itertools.count()


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=FLAVORS)
def fl(request: pytest.FixtureRequest, seeds: str) -> Flavor:
    """The client flavor of a flavored test (``asyncio``, ``trio``, ``sync``)."""
    if "anyio_backend" in request.fixturenames:
        pytest.fail("a flavored test (fl) picks its own event loop: drop its anyio mark")
    return Flavor(str(request.param), seeds)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run flavored tests: in an event loop of their flavor, or driven without one (sync)."""
    flavor = pyfuncitem.funcargs.get("fl")
    if not isinstance(flavor, Flavor):
        return None
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        pytest.fail("a flavored test (fl) is an async def", pytrace=False)
    kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    flavor.run_test(pyfuncitem.obj, kwargs)
    return True


@pytest.fixture
def sdb(seeds: str) -> Iterator[af.SyncClient]:
    with af_sync.connect(seeds) as client:
        yield client


@pytest.fixture
def set_name() -> str:
    """A set no other test uses, in this run or an earlier one against the same server."""
    return f"fluent_{RUN}_{next(_sets)}"


@pytest.fixture
def cluster() -> Iterator[EmbeddedCluster]:
    """A private 3-node embedded cluster, two copies of each partition."""
    with EmbeddedCluster(nodes=3, replication_factor=2) as c:
        yield c


@pytest.fixture
def server() -> Iterator[n.EmbeddedServer]:
    """A private in-process embedded server (modules may narrow or widen its scope)."""
    s = n.EmbeddedServer()
    yield s
    s.stop()
