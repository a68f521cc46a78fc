"""Cancelling awaiting verbs and half-consumed streams leaves the client usable (asyncio, trio).

Async only: cancellation is a property of a task on an event loop (cancel scopes, task groups);
a blocking call has nothing to cancel it, so these tests are not flavored (see ``_flavor.py``).
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent.server import EmbeddedServer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
def slow() -> Iterator[EmbeddedServer]:
    """A server of its own: its injected delays must not reach other tests."""
    with EmbeddedServer() as srv:
        yield srv


async def _still_works(s: af.RecordSet[af.Async], key: str) -> None:
    with anyio.fail_after(10):
        await s.key(key).put({"who": key})
        got = await s.key(key).get()
    assert got is not None and got["who"] == key


async def _numbered(db: af.Client[af.Async], set_name: str, n: int) -> af.RecordSet[af.Async]:
    """The set ``set_name`` holding records 0..n-1, each with its number in bin ``n``."""
    s = db.namespace("test").set(set_name)
    await s.put_many({i: {"n": i} for i in range(n)})
    return s


async def test_cancelled_get_and_put(slow: EmbeddedServer, set_name: str) -> None:
    async with af.connect(slow.seeds, max_conns_per_node=1) as db:
        s = db.namespace("test").set(set_name)
        await s.key("a").put({"who": "a"})
        for verb in ("get", "put", "operate"):
            slow.fault_delay(500, count=1)
            with anyio.move_on_after(0.05) as scope:
                if verb == "get":
                    await s.key("a").get()
                elif verb == "put":
                    await s.key("a").put({"who": "a"})
                else:
                    await s.key("a").bin("who").read().execute()
            assert scope.cancelled_caught, verb
            slow.clear_faults()
            # one pooled connection: a stale reply on it would answer the next request
            await _still_works(s, f"after-{verb}")


async def test_cancelled_from_a_task_group(slow: EmbeddedServer, set_name: str) -> None:
    async with af.connect(slow.seeds) as db:
        s = await _numbered(db, set_name, 20)
        slow.fault_delay(500)

        async def read(i: int) -> None:
            await s.key(i).get()

        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(read, i)
            await anyio.sleep(0.05)
            tg.cancel_scope.cancel()
        slow.clear_faults()
        await _still_works(s, "after-group")


async def test_cancelled_stream_resumes_without_loss(slow: EmbeddedServer, set_name: str) -> None:
    async with af.connect(slow.seeds) as db:
        s = await _numbered(db, set_name, 1000)
        seen: list[int] = []
        cancels = 0
        async with s.query().chunk_size(5).timeout(60).stream() as stream:
            while True:
                # cancel iterations at random points, including mid-wait for a chunk
                with anyio.move_on_after(0.0001) as scope:
                    try:
                        record = await stream.__anext__()
                    except StopAsyncIteration:
                        break
                    seen.append(record["n"])
                cancels += scope.cancelled_caught
        assert sorted(seen) == list(range(1000)), f"{cancels} cancels lost or repeated records"
        await _still_works(s, "after-stream")


async def test_half_consumed_streams_leave_the_client_usable(
    slow: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(slow.seeds) as db:
        s = await _numbered(db, set_name, 300)
        for _ in range(3):
            async with s.query().chunk_size(10).stream() as stream:
                async for _record in stream:
                    break
            slow.fault_delay(300, count=1)
            with anyio.move_on_after(0.05):
                await s.query().chunk_size(10).collect()
            slow.clear_faults()
        with anyio.fail_after(10):
            assert await s.query().count() == 300
            assert len(await s.query().collect()) == 300
        await _still_works(s, "after-half")


async def test_a_cancelled_async_for_resumes_without_loss(
    slow: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(slow.seeds) as db:
        s = await _numbered(db, set_name, 1000)
        seen: list[int] = []
        finished = False
        async with s.query().chunk_size(5).timeout(60).stream() as stream:
            while not finished:
                # each loop cancelled at a random point; the next one continues the stream
                with anyio.move_on_after(0.0005):
                    async for record in stream:
                        seen.append(record["n"])
                    finished = True
        assert sorted(seen) == list(range(1000))
        await _still_works(s, "after-async-for")


async def test_anext_and_async_for_share_one_position(set_name: str, seeds: str) -> None:
    async with af.connect(seeds) as db:
        s = await _numbered(db, set_name, 50)
        seen: list[int] = []
        async with s.query().chunk_size(4).stream() as stream:
            async for record in stream:
                seen.append(record["n"])
                # a chunk's last record: the next one comes from a chunk __anext__ fetches
                if len(seen) % 4 == 0 and len(seen) < 50:
                    seen.append((await stream.__anext__())["n"])
        assert sorted(seen) == list(range(50))


async def test_async_for_ends_the_read_as_the_limits_last_record_is_taken(
    set_name: str, seeds: str
) -> None:
    async with af.connect(seeds) as db:
        s = await _numbered(db, set_name, 50)
        reports: list[af.Progress] = []
        query = s.query().chunk_size(4).limit(10).on_progress(reports.append)
        taken = 0
        async for _record in query:
            taken += 1
            # the read ends as the 10th record is handed out, not at the next ask
            assert any(p.done for p in reports) == (taken == 10)
            if taken == 10:
                break
        assert taken == 10


async def test_leaving_an_async_for_early_leaves_nothing_to_warn_about(
    set_name: str, seeds: str
) -> None:
    async with af.connect(seeds) as db:
        s = await _numbered(db, set_name, 30)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            async with s.query().chunk_size(4).stream() as stream:
                async for _record in stream:
                    break  # trio warns about an async generator left unfinished
            gc.collect()
            await anyio.sleep(0)
        assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
