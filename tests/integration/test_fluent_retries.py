"""``timeout(retry_writes=...)``: writes are resent after a dropped connection only when asked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedServer

pytestmark = pytest.mark.anyio


@pytest.fixture
def faulty() -> Iterator[EmbeddedServer]:
    """A server of its own: its faults must not reach other tests."""
    with EmbeddedServer() as srv:
        yield srv


async def test_put_is_retried_when_asked(faulty: EmbeddedServer) -> None:
    async with af.connect(faulty.seeds) as db:
        rec = db.namespace("test").set("r").key("k")
        await rec.put({"n": 1})
        faulty.reset_stats()
        faulty.fault_drop(0)
        await rec.timeout(2, retries=2, retry_writes=True).put({"n": 2})
        assert faulty.stats()["write"] == 1  # the dropped attempt never reached the store
        got = await rec.get()
        assert got is not None and got["n"] == 2


async def test_put_is_not_retried_by_default(faulty: EmbeddedServer) -> None:
    async with af.connect(faulty.seeds) as db:
        rec = db.namespace("test").set("r").key("k")
        await rec.put({"n": 1})
        faulty.fault_drop(0)
        with pytest.raises((errors.TimeoutError, errors.ConnectionError)) as info:
            await rec.timeout(2, retries=2).put({"n": 2})
        assert info.value.in_doubt
        got = await rec.get()
        assert got is not None and got["n"] == 1


def test_operate_is_retried_when_asked_sync(faulty: EmbeddedServer) -> None:
    with af_sync.connect(faulty.seeds) as db:
        rec = db.namespace("test").set("r").key("k")
        rec.put({"n": 1})
        faulty.reset_stats()
        faulty.fault_drop(0)
        got = rec.bin("n").set(5).read("n").timeout(2, retries=1, retry_writes=True).execute()
        assert got is not None and got["n"] == 5
        assert faulty.stats()["operate"] == 1
