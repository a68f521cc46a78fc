"""asyncio loops drive their own runtime: routing, timers, cancellation, close, loop lifetime.

Every test runs on asyncio's own loop and on uvloop, which lacks the loop internals the
package reads (``_probes``): there a lone call never polls, and everything else is the same.
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import weakref
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import _aio, errors
from aerospike_fluent._native import Completer
from aerospike_fluent.server import EmbeddedServer

from ._util import seeds_of, settle, seven_calls, times_out_before_a_slow_reply, until_on_loop

pytestmark = pytest.mark.timeout(60)

Runner = Callable[[Coroutine[Any, Any, Any]], Any]


@pytest.fixture(params=["asyncio", "uvloop"])
def run(request: pytest.FixtureRequest) -> Runner:
    """``asyncio.run`` on a new loop of the kind under test."""
    if request.param == "asyncio":
        return asyncio.run
    uvloop = pytest.importorskip("uvloop")
    runner: Runner = uvloop.run
    return runner


def _completer() -> Completer:
    c = _aio.completers[asyncio.get_running_loop()]
    assert c is not None
    return c


async def _until_on_loop(s: af.RecordSet[af.Async]) -> None:
    await until_on_loop(s, _completer)


def test_a_loop_with_few_calls_builds_no_runtime_nor_pool(
    server: EmbeddedServer, run: Runner
) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("lr")
            await s.key("a").put({"n": 1})
            opened = server.stats()["connections_total"]
            for _ in range(5):
                assert await s.key("a").get() is not None
            assert _completer().loop_ops_started == 0
            assert _completer().runtime_fileno() is None
            assert server.stats()["connections_total"] == opened

    run(main())


def test_single_record_calls_run_on_the_loop_runtime(server: EmbeddedServer, run: Runner) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            c = _completer()
            assert c.runtime_fileno() is None  # built at the loop's eighth call
            await _until_on_loop(db.namespace("test").set("lr"))
            assert c.runtime_fileno() is not None
            before = c.loop_ops_started
            await seven_calls(db.namespace("test").set("lr").key("a"))
            assert c.loop_ops_started - before == 7

    run(main())


def test_calls_on_the_loop_runtime_start_without_a_flush(
    server: EmbeddedServer, run: Runner
) -> None:
    """A call on the loop's runtime sends inside the native call: no loop iteration is spent
    on a scheduled ``Completer.flush`` (only calls handed to the worker runtime need one)."""

    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("lr")
            await _until_on_loop(s)
            loop = asyncio.get_running_loop()
            scheduled: list[str] = []
            call_soon = loop.call_soon

            def counting(callback: Any, *args: Any, **kw: Any) -> asyncio.Handle:
                scheduled.append(getattr(callback, "__name__", repr(callback)))
                return call_soon(callback, *args, **kw)

            c = _completer()
            before = c.loop_ops_started
            loop.call_soon = counting  # type: ignore[method-assign,assignment]
            try:
                for i in range(20):
                    await s.key(f"warm{i % 10}").exists()
            finally:
                del loop.call_soon
            assert c.loop_ops_started - before == 20
            assert "flush" not in scheduled

    run(main())


def test_operations_beyond_capacity_go_to_the_worker_and_all_complete(
    server: EmbeddedServer, run: Runner
) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("lr")
            c = _completer()
            await _until_on_loop(s)
            before = c.loop_ops_started
            # replies held back: no call can finish inside its own native call (it may, when
            # the reply beats the first read), so 200 are in flight at once
            server.fault_delay(20, count=None)
            try:
                await asyncio.gather(*(s.key(i).put({"i": i}) for i in range(200)))
            finally:
                server.clear_faults()
            on_loop = c.loop_ops_started - before
            assert 0 < on_loop < 200
            recs = await asyncio.gather(*(s.key(i).get() for i in range(200)))
            assert [r["i"] if r else None for r in recs] == list(range(200))

    run(main())


def test_a_timeout_fires_while_no_reply_arrives(server: EmbeddedServer, run: Runner) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            await _until_on_loop(db.namespace("test").set("lr"))
            await times_out_before_a_slow_reply(server, db.namespace("test").set("lr").key("slow"))

    run(main())


def test_a_cancelled_call_on_the_loop_leaves_no_stale_reply(
    server: EmbeddedServer, run: Runner
) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("lr")
            await s.key("a").put({"who": "a"})
            await s.key("b").put({"who": "b"})
            await _until_on_loop(s)
            c = _completer()
            for _ in range(3):
                before = c.loop_ops_started
                server.fault_delay(300, count=1)
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(s.key("a").get(), 0.05)
                got = await asyncio.wait_for(s.key("b").get(), 10)
                assert got is not None and got["who"] == "b"
                assert c.loop_ops_started - before == 2

    run(main())


def test_close_fails_calls_in_flight_on_the_loop(server: EmbeddedServer, run: Runner) -> None:
    async def main() -> None:
        db = await af.connect(seeds_of(server))
        k = db.namespace("test").set("lr").key("x")
        await k.put({"n": 1})
        await _until_on_loop(db.namespace("test").set("lr"))
        before = _completer().loop_ops_started
        server.fault_delay(5000, count=1)
        task = asyncio.ensure_future(k.get())
        await asyncio.sleep(0.2)
        assert _completer().loop_ops_started == before + 1
        db.close()
        with pytest.raises(errors.ClientClosedError):
            await asyncio.wait_for(task, 3)
        server.clear_faults()

    run(main())
    assert settle(lambda: server.stats()["connections_open"] == 0)


def test_a_client_outlives_its_event_loop(server: EmbeddedServer, run: Runner) -> None:
    async def connect() -> af.AsyncClient:
        return await af.connect(seeds_of(server))

    db: af.AsyncClient = run(connect())
    k = db.namespace("test").set("lr").key("across")

    async def put_and_count() -> int:
        await k.put({"n": 1})
        await _until_on_loop(db.namespace("test").set("lr"))
        return server.stats()["connections_open"]

    with_loop_pool = run(put_and_count())
    gc.collect()
    # the finished loop's runtime is gone, and its connections with it
    assert settle(lambda: server.stats()["connections_open"] < with_loop_pool)

    async def get() -> af.Record | None:
        return await k.get()

    rec = run(get())
    assert rec is not None and rec["n"] == 1
    db.close()
    assert settle(lambda: server.stats()["connections_open"] == 0)


def test_a_budget_under_8_keeps_every_call_on_the_worker(
    server: EmbeddedServer, run: Runner
) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server), max_conns_per_node=7) as db:
            s = db.namespace("test").set("lr")
            for i in range(100):
                await s.key(i % 4).put({"n": i})
            assert _completer().loop_ops_started == 0

    run(main())


def test_a_loop_closed_with_a_call_in_flight_is_freed(server: EmbeddedServer, run: Runner) -> None:
    db_box: list[af.AsyncClient] = []
    loop_ref: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def abandon_a_call() -> None:
        db = await af.connect(seeds_of(server), total_timeout=20)
        db_box.append(db)
        await _until_on_loop(db.namespace("test").set("lr"))
        server.fault_delay(3000, count=1)
        in_flight = asyncio.ensure_future(db.namespace("test").set("lr").key("x").get())
        await asyncio.sleep(0.05)
        assert not in_flight.done()
        loop_ref.append(weakref.ref(asyncio.get_running_loop()))
        # asyncio.run cancels the call's task and closes the loop: no tick ever comes again

    async def next_loop() -> bool:
        return await db_box[0].namespace("test").set("lr").key("y").exists()

    run(abandon_a_call())
    run(next_loop())
    server.clear_faults()
    gc.collect()
    assert loop_ref[0]() is None
    db_box[0].close()


@pytest.mark.parametrize("kind", ["asyncio", "uvloop", "asyncio auto_batch"])
def test_a_lone_call_on_an_idle_loop_is_answered_before_it_returns(kind: str) -> None:
    """With a budget long enough for any reply, sequential calls on asyncio's loop settle
    inside the native call (replies held 2 ms: by polling), answer as usual, and still let
    the loop run; with ``auto_batch`` too (the batcher's flush is not yet waiting on the
    loop while a lone call polls). uvloop does not tell whether callbacks wait (no
    ``_ready``), so there no call polls: each waits on the loop, and answers the same.

    Measured in a fresh process: polling is refused while other threads of the process poll
    or wait in blocking calls, which earlier tests may have left behind.
    """
    if kind == "uvloop":
        pytest.importorskip("uvloop")
    # How many calls poll depends on the machine's load (a call started while the 1 ms
    # timer's callback is ready does not poll): 40-50 of 101 when idle, 10 seen under a full
    # CI run. Up to three fresh processes; polling must show in one of them.
    runs = []
    for _ in range(3):
        got = _lone_calls(kind)
        runs.append(got)
        assert got["wrong"] == 0, got
        assert got["timer_runs"] >= 2, got  # awaits answered at once still let the loop run
        if kind.startswith("asyncio"):
            assert got["answered"] >= got["polled"], got
            if got["polled"] > 10:
                break
        else:
            assert got["polled"] == 0, got
            break
    if kind.startswith("asyncio"):
        # replies later than the 10 ms budget are awaited normally
        assert max(r["polled"] for r in runs) > 10, runs


def _lone_calls(kind: str) -> dict[str, int]:
    child = subprocess.run(
        [sys.executable, "-m", "tests.reliability._lone_calls", *kind.split()],
        cwd=Path(__file__).parents[2],
        capture_output=True,
        text=True,
        timeout=50,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    got: dict[str, int] = json.loads(child.stdout)
    return got


def test_no_call_polls_with_a_zero_budget_or_a_busy_loop(
    server: EmbeddedServer, run: Runner
) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server), spin_wait=0) as db:
            s = db.namespace("test").set("lr")
            await _until_on_loop(s)
            before = _completer().loop_ops_polled
            for i in range(20):
                await s.key(f"z{i}").put({"i": i})
                assert await s.key(f"z{i}").exists()
            assert _completer().loop_ops_polled == before
        async with af.connect(seeds_of(server), spin_wait=0.01) as db:
            s = db.namespace("test").set("lr")
            await _until_on_loop(s)
            before = _completer().loop_ops_polled
            # each call starts with other tasks ready to run: none polls
            await asyncio.gather(*(s.key(f"z{i}").get() for i in range(16)))
            assert _completer().loop_ops_polled == before

    run(main())
