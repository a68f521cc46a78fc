"""``timeout(retry_writes=...)`` on every client flavor: writes are resent after a dropped
connection only when asked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor


@pytest.fixture
def faulty() -> Iterator[EmbeddedServer]:
    """A server of its own: its faults must not reach other tests."""
    with EmbeddedServer() as srv:
        yield srv


async def test_put_is_retried_when_asked(fl: Flavor, faulty: EmbeddedServer, set_name: str) -> None:
    async with fl.connect(faulty.seeds) as db:
        rec = db.namespace("test").set(set_name).key("k")
        await fl.run(rec.put({"n": 1}))
        faulty.reset_stats()
        faulty.fault_drop(0)
        await fl.run(rec.timeout(2, retries=2, retry_writes=True).put({"n": 2}))
        assert faulty.stats()["write"] == 1  # the dropped attempt never reached the store
        got = await fl.run(rec.get())
        assert got is not None and got["n"] == 2


async def test_put_is_not_retried_by_default(
    fl: Flavor, faulty: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(faulty.seeds) as db:
        rec = db.namespace("test").set(set_name).key("k")
        await fl.run(rec.put({"n": 1}))
        faulty.fault_drop(0)
        with pytest.raises((errors.TimeoutError, errors.ConnectionError)) as info:
            await fl.run(rec.timeout(2, retries=2).put({"n": 2}))
        assert info.value.in_doubt
        got = await fl.run(rec.get())
        assert got is not None and got["n"] == 1


async def test_operate_is_retried_when_asked(
    fl: Flavor, faulty: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(faulty.seeds) as db:
        rec = db.namespace("test").set(set_name).key("k")
        await fl.run(rec.put({"n": 1}))
        faulty.reset_stats()
        faulty.fault_drop(0)
        chain = rec.bin("n").set(5).read("n").timeout(2, retries=1, retry_writes=True)
        got = await fl.run(chain.execute())
        assert got is not None and got["n"] == 5
        assert faulty.stats()["operate"] == 1
