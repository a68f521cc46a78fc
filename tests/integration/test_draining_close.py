"""Draining close: ``await db.aclose(timeout=...)``, leaving ``async with`` and the sync client's
``close(timeout=...)`` let the calls in flight finish, refuse new ones, and cut short only what
is still running when the timeout ends (in doubt, as a plain close does).
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

CALLS = 200


async def _started(db: af.AsyncClient, set_name: str) -> list[asyncio.Task[Any]]:
    s = db.namespace("test").set(set_name)
    tasks = [asyncio.ensure_future(s.key(i).put({"i": i})) for i in range(CALLS)]
    await asyncio.sleep(0)  # every task has sent its call
    return tasks


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_aclose_lets_calls_in_flight_finish(seeds: str, set_name: str) -> None:
    db = await af.connect(seeds)
    tasks = await _started(db, set_name)
    assert db.native.in_flight > 0
    await db.aclose(timeout=30)
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    assert [o for o in outcomes if o is not None] == []
    assert db.native.closed
    async with af.connect(seeds) as check:
        s = check.namespace("test").set(set_name)
        got = await asyncio.gather(*(s.key(i).get() for i in range(CALLS)))
    assert all(r is not None for r in got)


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_leaving_async_with_drains(seeds: str, set_name: str) -> None:
    async with af.connect(seeds) as db:
        tasks = await _started(db, set_name)
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    assert [o for o in outcomes if o is not None] == []


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_plain_close_still_cuts_calls_short(seeds: str, set_name: str) -> None:
    db = await af.connect(seeds)
    tasks = await _started(db, set_name)
    db.close()
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    cut = [o for o in outcomes if isinstance(o, af.errors.ClientClosedError)]
    assert cut, "close() without a timeout waited for the calls"


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded cluster")
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_a_call_started_while_draining_is_refused(set_name: str) -> None:
    with EmbeddedCluster(nodes=1, replication_factor=1) as cluster:
        db = await af.connect(cluster.seeds, total_timeout=60)
        s = db.namespace("test").set(set_name)
        await s.key(1).put({"a": 0})
        node = cluster.nodes[0]
        node.pause()
        try:
            in_flight = asyncio.ensure_future(s.key(1).put({"a": 1}))
            await asyncio.sleep(0.05)
            closing = asyncio.ensure_future(db.aclose(timeout=30))
            await asyncio.sleep(0.05)
            with pytest.raises(af.errors.ClientClosedError) as refused:
                await s.key(2).put({"a": 2})
            assert not refused.value.in_doubt  # never sent
            assert not closing.done()
        finally:
            node.resume()
        await in_flight  # finished once the node answered
        await closing
        check = await af.connect(cluster.seeds)
        try:
            rec = await check.namespace("test").set(set_name).key(1).get()
            assert rec is not None and rec["a"] == 1
        finally:
            await check.aclose()


@pytest.mark.anyio
async def test_aclose_on_either_event_loop(seeds: str, set_name: str, anyio_backend: str) -> None:
    db = await af.connect(seeds)
    await db.namespace("test").set(set_name).key(1).put({"a": 1})
    await db.aclose(timeout=5)
    assert db.native.closed
    await db.aclose(timeout=5)  # idempotent
    with pytest.raises(af.errors.ClientClosedError):
        await db.namespace("test").set(set_name).key(1).get()


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded cluster")
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_the_timeout_bounds_the_wait(set_name: str) -> None:
    with EmbeddedCluster(nodes=1, replication_factor=1) as cluster:
        db = await af.connect(cluster.seeds, total_timeout=60)
        s = db.namespace("test").set(set_name)
        await s.key(1).put({"a": 0})
        cluster.nodes[0].pause()  # calls now wait for an answer that does not come
        try:
            task = asyncio.ensure_future(s.key(1).put({"a": 1}))
            await asyncio.sleep(0.05)
            await db.aclose(timeout=0.2)
            with pytest.raises(af.errors.ClientClosedError) as cut:
                await task
            assert cut.value.in_doubt  # a write cut short may have been applied
        finally:
            cluster.nodes[0].resume()


def test_sync_close_with_timeout_drains_other_threads(seeds: str, set_name: str) -> None:
    db = af_sync.connect(seeds)
    s = db.namespace("test").set(set_name)
    started = threading.Barrier(9)
    refused: list[BaseException] = []

    def writer(base: int) -> int:
        started.wait()
        done = 0
        for i in range(base, base + 200):
            try:
                s.key(i).put({"i": i})
            except af.errors.ClientClosedError as exc:
                assert not exc.in_doubt, "a call in flight was cut short while draining"
                refused.append(exc)
                break
            done += 1
        return done

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(writer, n * 1000) for n in range(8)]
        started.wait()
        db.close(timeout=30)
        written = sum(f.result() for f in futures)
    assert db.native.closed
    with af_sync.connect(seeds) as check:
        c = check.namespace("test").set(set_name)
        found = sum(c.key(i).exists() for n in range(8) for i in range(n * 1000, n * 1000 + 200))
    assert found == written  # every call that returned was applied, none half-done


def test_close_timeout_is_validated(seeds: str) -> None:
    db = af_sync.connect(seeds)
    try:
        with pytest.raises(af.errors.InvalidArgumentError, match="timeout"):
            db.close(timeout=-1)
        with pytest.raises(af.errors.InvalidTypeError, match="timeout"):
            db.close(timeout="5")  # type: ignore[arg-type]
        assert not db.native.closed
    finally:
        db.close()


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_async_close_with_timeout_points_to_aclose(seeds: str) -> None:
    db = await af.connect(seeds)
    try:
        with pytest.raises(af.errors.InvalidArgumentError, match="aclose"):
            db.close(timeout=5)
    finally:
        await db.aclose()
