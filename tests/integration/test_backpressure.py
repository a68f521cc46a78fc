"""``connect(max_in_flight=..., queue_timeout=...)``: a client-wide limit on calls in flight.

A burst of calls past the limit waits in line and completes; the client's count of calls in
flight never passes the limit; a call that waits ``queue_timeout`` for a slot fails with
``QueueTimeoutError`` and was never sent; cancelling waiting tasks frees their places in line.
The tests that hold a slot with a slow reply use a private embedded server's delay fault.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.metrics import CallsInFlight
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor

LIMIT = 4
CALLS = 300

embedded_faults = pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_HOST")), reason="holds a slot with an embedded server fault"
)


def _load(db: af.Client[Any]) -> CallsInFlight:
    return db.metrics().calls_in_flight


async def test_a_burst_past_the_limit_completes_within_it(fl: Flavor, set_name: str) -> None:
    async with fl.connect(fl.seeds, max_in_flight=LIMIT) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key("k").put({"v": 1}))
        if fl.is_async:
            async with anyio.create_task_group() as tg:
                got: list[Any] = []

                async def get() -> None:
                    got.append(await s.key("k").get())

                for _ in range(CALLS):
                    tg.start_soon(get)
        else:
            with ThreadPoolExecutor(max_workers=16) as pool:
                got = list(pool.map(lambda _: s.key("k").get(), range(CALLS)))
        load = _load(db)
    assert [r["v"] for r in got] == [1] * CALLS
    assert load.max_in_flight == LIMIT
    assert load.peak_in_flight is not None and 1 <= load.peak_in_flight <= LIMIT
    assert (load.in_flight, load.waiting, load.queue_timeouts) == (0, 0, 0)
    if fl.is_async:  # the tasks start their calls before any answer is read
        assert load.waited > 0


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_auto_batched_gets_within_the_limit(seeds: str, set_name: str) -> None:
    async with af.connect(seeds, max_in_flight=2, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await s.key("k").put({"v": 2})
        async with anyio.create_task_group() as tg:
            for _ in range(CALLS):
                tg.start_soon(s.key("k").get)
        load = _load(db)
    assert load.peak_in_flight is not None and load.peak_in_flight <= 2
    assert (load.in_flight, load.waiting) == (0, 0)


async def test_without_a_limit_calls_are_counted_too(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("k").put({"v": 1}))
    load = _load(fl.db)
    assert (load.max_in_flight, load.peak_in_flight) == (None, None)
    assert (load.in_flight, load.waiting, load.waited) == (0, 0, 0)


async def _wait_until(check: Callable[[], bool]) -> None:
    """Yield to the loop until ``check()`` holds (a condition, never a clock)."""
    for _ in range(20_000):
        if check():
            return
        await anyio.sleep(0.001)
    raise AssertionError("condition never held")


@asynccontextmanager
async def _one_slot_held(set_name: str, **options: Any) -> AsyncIterator[tuple[Any, Any, Any]]:
    """A client of ``max_in_flight=1`` whose one slot a get holds (its reply delayed 1.5 s):
    the embedded server, the client and the set."""
    with EmbeddedServer() as server:
        async with af.connect(server.seeds, max_in_flight=1, **options) as db:
            s = db.namespace("test").set(set_name)
            await s.key("k").put({"v": 1})
            server.fault_delay(1500, 1)
            async with anyio.create_task_group() as slow:
                slow.start_soon(s.key("k").timeout(10).get)
                await _wait_until(lambda: _load(db).in_flight == 1)
                yield server, db, s


@embedded_faults
@pytest.mark.anyio
async def test_cancelled_waiting_calls_leave_the_line(set_name: str) -> None:
    async with _one_slot_held(set_name) as (_server, db, s):
        async with anyio.create_task_group() as waiting:
            for _ in range(20):
                waiting.start_soon(s.key("k").get)
            await _wait_until(lambda: _load(db).waiting == 20)
            assert _load(db).in_flight == 1
            waiting.cancel_scope.cancel()
        await _wait_until(lambda: _load(db).waiting == 0)
    load = _load(db)
    assert (load.in_flight, load.waiting, load.queue_timeouts) == (0, 0, 0)
    assert load.waited == 20


@embedded_faults
@pytest.mark.anyio
async def test_a_queue_timeout_fails_the_call_unsent(set_name: str) -> None:
    async with _one_slot_held(set_name, queue_timeout=0.05) as (server, db, s):
        writes = server.stats()["write"]
        with pytest.raises(errors.QueueTimeoutError, match="max_in_flight=1") as caught:
            await s.key("k").put({"v": 2})
        assert server.stats()["write"] == writes
        await _wait_until(lambda: _load(db).in_flight == 0)  # the slow get answered
        record = await s.key("k").get()
        timeouts = _load(db).queue_timeouts
    assert record is not None and record["v"] == 1
    assert timeouts == 1
    e = caught.value
    assert isinstance(e, errors.TimeoutError) and isinstance(e, TimeoutError)
    assert "queue_timeout=0.05s" in str(e)
    assert e.in_doubt is False


@embedded_faults
def test_a_blocking_call_waits_then_times_out_unsent(set_name: str) -> None:
    with (
        EmbeddedServer() as server,
        af_sync.connect(server.seeds, max_in_flight=1, queue_timeout=0.05) as db,
    ):
        s = db.namespace("test").set(set_name)
        s.key("k").put({"v": 1})
        server.fault_delay(1500, 1)
        slow = threading.Thread(target=lambda: s.key("k").timeout(10).get())
        slow.start()
        try:
            for _ in range(20_000):
                if _load(db).in_flight == 1:
                    break
                threading.Event().wait(0.001)
            writes = server.stats()["write"]
            with pytest.raises(errors.QueueTimeoutError, match="max_in_flight=1"):
                s.key("k").put({"v": 2})
            assert server.stats()["write"] == writes
        finally:
            slow.join()
        record = s.key("k").get()
        assert record is not None and record["v"] == 1
        load = _load(db)
        assert (load.in_flight, load.waiting, load.queue_timeouts) == (0, 0, 1)


def test_the_configuration_file_sets_the_limit(seeds: str, tmp_path: Any) -> None:
    path = tmp_path / "aerospike.toml"
    path.write_text("[connection]\nmax_in_flight = 3\nqueue_timeout = 0.5\n")
    with af_sync.connect(seeds, config=str(path)) as db:
        assert db.info("build")
        assert _load(db).max_in_flight == 3
    path.write_text("[connection]\nmax_in_flight = 0\n")
    with pytest.raises(errors.InvalidArgumentError, match="max_in_flight must be within 1"):
        af_sync.connect(seeds, config=str(path))


@pytest.mark.parametrize(
    ("options", "error", "words"),
    [
        ({"max_in_flight": 0}, errors.InvalidArgumentError, "max_in_flight must be within 1"),
        ({"max_in_flight": -3}, errors.InvalidArgumentError, "max_in_flight must be within 1"),
        ({"max_in_flight": 2.5}, errors.InvalidTypeError, "max_in_flight takes a whole number"),
        ({"max_in_flight": True}, errors.InvalidTypeError, "max_in_flight takes a whole number"),
        ({"max_in_flight": 8, "queue_timeout": -1}, errors.InvalidArgumentError, "queue_timeout"),
        ({"max_in_flight": 8, "queue_timeout": "1s"}, errors.InvalidTypeError, "queue_timeout"),
        ({"queue_timeout": 1}, errors.InvalidArgumentError, "give max_in_flight too"),
        ({"max_in_flight": 8, "queue_timeout_ms": 5}, errors.InvalidArgumentError, "queue_timeout"),
    ],
)
def test_bad_limits_are_refused_naming_the_option(
    seeds: str, options: dict[str, Any], error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        af_sync.connect(seeds, **options)
