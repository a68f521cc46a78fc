"""Large async read batches on asyncio arrive in parts: order, request count, failure, cancel."""

from __future__ import annotations

import asyncio
import gc

import pytest

import aerospike_fluent as af
from aerospike_fluent import _aio, errors
from aerospike_fluent.server import EmbeddedServer

from ._util import seeds_of, settle

pytestmark = pytest.mark.timeout(60)


def test_large_async_read_batch_is_four_requests_in_request_order(
    server: EmbeddedServer,
) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("parts")
            await asyncio.gather(*(s.key(i).put({"i": i}) for i in range(1000) if i % 7))
            server.reset_stats()
            rows = await s.keys(range(1000)).get()
            assert server.stats()["batch"] == 4  # parts of 250, requested at once
            assert [r.key[2] for r in rows] == list(range(1000))
            for i, row in enumerate(rows):
                if i % 7:
                    assert row.record is not None and row.record["i"] == i
                else:
                    assert row.record is None

    asyncio.run(main())


def test_small_async_batches_stay_one_request(server: EmbeddedServer) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            server.reset_stats()
            rows = await db.namespace("test").set("parts").keys(range(399)).get()
            assert len(rows) == 399
            assert server.stats()["batch"] == 1

    asyncio.run(main())


def test_a_failed_part_marks_only_its_own_rows(server: EmbeddedServer) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("parts")
            await asyncio.gather(*(s.key(i).put({"i": i}) for i in range(1000)))
            server.fault_fail(1, 1)  # the first request to arrive gets a server error
            with pytest.raises(af.errors.ServerError) as raised:
                await s.keys(range(1000)).get()
            rows = raised.value.partial
            server.clear_faults()
            assert [r.key[2] for r in rows] == list(range(1000))
            failed = [i for i, r in enumerate(rows) if r.result_code != 0]
            # exactly one part of 250 rows, the others read normally
            assert len(failed) == 250 and failed[0] % 250 == 0
            assert failed == list(range(failed[0], failed[0] + 250))
            assert all(rows[i].record is None for i in failed)
            assert sum(r.record is not None for r in rows) == 750

    asyncio.run(main())


def test_cancelling_a_batch_in_parts_leaves_the_client_usable(server: EmbeddedServer) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server), total_timeout=20) as db:
            s = db.namespace("test").set("parts")
            await s.key(1).put({"i": 1})
            server.fault_delay(2000, count=2)
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(s.keys(range(1000)).get(), 0.3)
            server.clear_faults()
            rows = await asyncio.wait_for(s.keys(range(1000)).get(), 10)
            assert rows[1].record is not None and rows[1].record["i"] == 1

    asyncio.run(main())
    gc.collect()
    assert settle(lambda: server.stats()["connections_open"] == 0)


def test_close_fails_a_batch_in_parts_in_flight(server: EmbeddedServer) -> None:
    async def main() -> None:
        db = await af.connect(seeds_of(server), total_timeout=20)
        assert _aio.completers[asyncio.get_running_loop()] is not None
        server.fault_delay(10_000, count=2)
        task = asyncio.ensure_future(db.namespace("test").set("parts").keys(range(1000)).get())
        await asyncio.sleep(0.3)
        db.close()
        with pytest.raises(errors.ClientClosedError):
            await asyncio.wait_for(task, 8)  # not after the 10 s delay
        server.clear_faults()

    asyncio.run(main())
