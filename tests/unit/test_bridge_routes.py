"""Which completion each kind of await hands the native side, under asyncio and under trio.

A stand-in native method records the ``done`` it is given; no server is involved.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

import pytest
import sniffio
import trio

from aerospike_fluent import _aio, _bridge
from aerospike_fluent._native import Completer


class FakePending:
    def __init__(self) -> None:
        self.cancelled = 0

    def cancel(self) -> bool:
        self.cancelled += 1
        return True


class Recorder:
    """A native method: records each ``(done, args)`` and returns a pending operation."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, tuple[Any, ...]]] = []
        self.pending = FakePending()

    def __call__(self, done: Any, *args: Any) -> Any:  # a Pending to the bridge
        self.calls.append((done, args))
        return self.pending

    @property
    def done(self) -> Any:
        return self.calls[-1][0]


async def _settle_later(rec: Recorder, value: object) -> None:
    while not rec.calls:
        await asyncio.sleep(0)
    rec.done[1].set_result(value)


def test_asyncio_call_wait_and_detached_hand_over_the_loops_completer() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        rec = Recorder()
        settle = asyncio.ensure_future(_settle_later(rec, "called"))
        assert await _bridge.call(rec, 1, 2) == "called"
        await settle
        completer, fut = rec.done
        assert completer is _aio.completers[loop]
        assert isinstance(fut, asyncio.Future)
        assert rec.calls[-1][1] == (1, 2)

        settle = asyncio.ensure_future(_settle_later(rec, "waited"))
        rec.calls.clear()
        assert await _bridge.wait(lambda done: rec(done, 3)) == "waited"
        assert rec.done[0] is completer

        rec.calls.clear()
        detached = _bridge.Detached(rec)
        assert rec.done[0] is completer
        rec.done[1].set_result(["chunk"])
        assert await detached.result() == ["chunk"]

    asyncio.run(main())


def test_an_asyncio_call_answered_inside_its_native_call_returns_its_outcome() -> None:
    def answers(done: Any) -> Any:
        done[1].set_result(42)
        return FakePending()

    assert asyncio.run(_bridge.call(answers)) == 42


def test_a_cancelled_asyncio_call_aborts_its_native_operation() -> None:
    async def main() -> None:
        rec = Recorder()
        task = asyncio.ensure_future(_bridge.call(rec))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert rec.pending.cancelled == 1

    asyncio.run(main())


class NoReaderLoop(asyncio.SelectorEventLoop):
    def add_reader(self, *args: Any) -> None:  # type: ignore[override]
        raise NotImplementedError


def test_a_loop_that_cannot_watch_fds_gets_a_threadsafe_callback() -> None:
    async def main() -> None:
        rec = Recorder()
        task = asyncio.ensure_future(_bridge.call(rec, "x"))
        while not rec.calls:
            await asyncio.sleep(0)
        done = rec.done
        assert isinstance(done, partial)  # done(result, error), called from a native thread
        done("from a native thread", None)
        assert await task == "from a native thread"
        assert _aio.completers[asyncio.get_running_loop()] is None

        rec.calls.clear()
        detached = _bridge.Detached(rec)
        rec.done(None, KeyError("failed"))
        with pytest.raises(KeyError):
            await detached.result()

    loop = NoReaderLoop()
    try:
        loop.run_until_complete(main())
    finally:
        loop.close()


def test_trio_call_wait_and_detached_hand_over_the_runs_completer() -> None:
    from aerospike_fluent import _trio

    async def main() -> None:
        rec = Recorder()

        async def settle_later(value: object) -> None:
            while not rec.calls:
                await trio.sleep(0)
            rec.done[1].set_result(value)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(settle_later, "called")
            assert await _bridge.call(rec, 1) == "called"
        completer = rec.done[0]
        assert isinstance(completer, Completer)
        assert completer is _trio.completer(_aio.LOOP_RUNTIME)

        rec.calls.clear()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(settle_later, "waited")
            assert await _bridge.wait(lambda done: rec(done)) == "waited"
        assert rec.done[0] is completer

        rec.calls.clear()
        detached = _bridge.Detached(rec)
        assert rec.done[0] is completer  # streams take the same route as single calls
        kept = rec.done[1]
        with trio.move_on_after(0.01):
            await detached.result()  # a cancelled waiter loses nothing
        kept.set_result(["chunk"])
        assert await detached.result() == ["chunk"]
        assert await detached.result() == ["chunk"]

    trio.run(main)


def test_a_cancelled_trio_detached_hands_its_result_and_refuses_a_late_outcome() -> None:
    async def main() -> None:
        rec = Recorder()
        detached = _bridge.Detached(rec)
        kept = rec.done[1]
        detached.cancel(None)
        assert rec.pending.cancelled == 1
        assert await detached.result() is None
        assert kept.done()
        with pytest.raises(RuntimeError, match="already settled"):
            kept.set_result(["late"])  # the completer drops it (done() is True)

        failing = _bridge.Detached(rec)
        rec.done[1].set_exception(KeyError("failed"))
        for _ in range(2):
            with pytest.raises(KeyError):
                await failing.result()

    trio.run(main)


def test_no_async_library_raises_as_before() -> None:
    with pytest.raises(sniffio.AsyncLibraryNotFoundError):
        _bridge.call(Recorder()).send(None)
    with pytest.raises(sniffio.AsyncLibraryNotFoundError):
        _bridge.Detached(Recorder())


def test_an_unsupported_library_is_named() -> None:
    token = sniffio.current_async_library_cvar.set("curio")
    try:
        with pytest.raises(RuntimeError, match="unsupported async library 'curio'"):
            _bridge.call(Recorder()).send(None)
    finally:
        sniffio.current_async_library_cvar.reset(token)
