"""Opt-in auto-batching (``connect(..., auto_batch=True)``): concurrent reads as batch requests.

The first plain ``get`` of an asyncio loop iteration goes out on its own, as without
auto-batching, and schedules a flush for the end of the iteration; the plain gets started after
it in the same iteration, or while an earlier batch of them is unanswered, wait for that flush,
which sends them as batch reads of at most ``max_keys`` keys. Each caller still gets its own
record, ``None`` or error, and cancelling one caller leaves the others alone. A lone or
sequential get is never delayed. Gets with bins, options or filters, and every get under trio,
go out on their own.
"""

from __future__ import annotations

import asyncio
import copy
import weakref
from collections.abc import Callable, Coroutine, Generator
from functools import partial
from typing import Any

from aerospike_fluent import _aio, _bridge
from aerospike_fluent._native import BatchRow
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.results import NO_RESPONSE, NOT_FOUND

# Most keys per batch request when ``auto_batch=True``: small requests keep several in flight
# (benchmarks/NOTES.md).
DEFAULT_MAX_KEYS = 16
MAX_KEYS_LIMIT = 5000


def max_keys(option: object) -> int | None:
    """Validate the ``auto_batch`` option: None when off, else the most keys per request."""
    if option is None or option is False:
        return None
    if option is True:
        return DEFAULT_MAX_KEYS
    if not isinstance(option, int):
        raise InvalidTypeError(
            f"auto_batch is a bool or the most keys per batch request, not {option!r}"
        )
    if not 2 <= option <= MAX_KEYS_LIMIT:
        raise InvalidArgumentError(
            f"auto_batch keys per request must be within 2..{MAX_KEYS_LIMIT}, not {option}"
        )
    return option


class _Tick:
    """Reads waiting for the end of one loop's current iteration."""

    __slots__ = ("armed", "futs", "in_flight", "keys", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = weakref.ref(loop)
        self.armed = False
        self.in_flight = 0  # batch requests sent and not answered yet (lone gets: not counted)
        self.keys: list[Any] = []
        self.futs: list[asyncio.Future[Any]] = []


class Reads:
    """The ``get`` verb of an async executor with auto-batching on."""

    __slots__ = ("_direct", "_last", "_max", "_native", "_ticks")

    def __init__(self, native: Any, max_keys: int) -> None:
        self._native = native
        self._max = max_keys
        self._direct: Callable[..., Coroutine[Any, Any, Any]] = partial(_bridge.call, native.get)
        self._ticks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Tick] = (
            weakref.WeakKeyDictionary()
        )
        self._last: _Tick | None = None

    def get(self, key: Any, bins: Any, header_only: bool, policy: Any) -> Coroutine[Any, Any, Any]:
        """``native.get`` as an awaitable: joins this iteration's batch unless it goes first."""
        if bins is not None or header_only or policy is not None:
            return self._direct(key, bins, header_only, policy)
        running = _aio.running()
        if running is None:  # no asyncio loop: trio, or no loop at all (the call raises)
            return self._direct(key, None, False, None)
        loop = running[0]
        tick = self._last
        if tick is None or tick.loop() is not loop:
            tick = self._tick(loop)
        if not tick.armed:
            tick.armed = True
            loop.call_soon(self._flush, tick)
            if not tick.in_flight:
                return self._direct(key, None, False, None)
        fut = loop.create_future()
        tick.keys.append(key)
        tick.futs.append(fut)
        return _Joined(fut)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> _Tick:
        tick = self._ticks.get(loop)
        if tick is None:
            tick = self._ticks[loop] = _Tick(loop)
        self._last = tick
        return tick

    def _flush(self, tick: _Tick) -> None:
        tick.armed = False
        keys, futs = tick.keys, tick.futs
        if not keys:
            return
        tick.keys, tick.futs = [], []
        loop = tick.loop()
        if loop is None:
            return
        if any(f.done() for f in futs):  # callers cancelled before the flush ask for nothing
            kept = [(k, f) for k, f in zip(keys, futs, strict=True) if not f.done()]
            keys, futs = [k for k, _ in kept], [f for _, f in kept]
        step = self._max
        for i in range(0, len(keys), step):
            self._send(loop, tick, keys[i : i + step], futs[i : i + step])

    def _send(
        self,
        loop: asyncio.AbstractEventLoop,
        tick: _Tick,
        keys: list[Any],
        futs: list[asyncio.Future[Any]],
    ) -> None:
        """One batch read for ``keys`` (a single key: a plain get settling its caller's future)."""
        native = self._native
        try:
            completer = _aio.completer(loop)
            if len(keys) == 1:
                _aio.start(loop, completer, futs[0], native.get, (keys[0], None, False, None))
                return
            rows = [("read", k, None, False, None) for k in keys]
            batch = loop.create_future()
            _aio.start(loop, completer, batch, native.batch, (rows, None))
        except Exception as exc:  # every waiting caller gets it
            _fail(futs, exc)
            return
        tick.in_flight += 1
        batch.add_done_callback(partial(_deliver, tick, futs))


class _Joined(Coroutine[Any, Any, Any]):
    """A get that joined this iteration's batch, as a coroutine (``create_task`` takes it).

    Thrown into or closed before its first step (a task cancelled before it ran), it cancels
    its future, so the flush does not ask for that key.
    """

    __slots__ = ("_fut", "_steps")

    def __init__(self, fut: asyncio.Future[Any]) -> None:
        self._fut = fut
        self._steps: Generator[Any, None, Any] | None = None

    def __await__(self) -> Generator[Any, None, Any]:
        return self._fut.__await__()

    def send(self, value: Any) -> Any:
        if self._steps is None:
            self._steps = self._fut.__await__()
        return self._steps.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        if self._steps is None:
            self._fut.cancel()
            self._steps = self._fut.__await__()
        return self._steps.throw(typ if val is None else val)

    def close(self) -> None:
        if self._steps is None:
            self._fut.cancel()
        else:
            self._steps.close()


def _fail(futs: list[asyncio.Future[Any]], exc: BaseException) -> None:
    for fut in futs:
        if not fut.done():
            # each caller raises its own copy (one exception object would gather every
            # caller's traceback)
            fut.set_exception(copy.copy(exc))


def _deliver(tick: _Tick, futs: list[asyncio.Future[Any]], batch: asyncio.Future[Any]) -> None:
    """Hand each caller its own row of the finished batch."""
    tick.in_flight -= 1
    exc = batch.exception()
    if exc is not None:
        _fail(futs, exc)
        return
    rows: list[BatchRow] = batch.result()
    unanswered: BaseException | None = None
    for fut, row in zip(futs, rows, strict=True):
        if fut.done():
            continue
        code = row.result_code
        if code == 0:
            fut.set_result(row.record)
        elif code == NOT_FOUND:
            fut.set_result(None)
        elif code == NO_RESPONSE:
            # the request stopped after failing an earlier row: as a lone get would, the caller
            # gets that failure (a copy each)
            if unanswered is None:
                unanswered = _request_error(rows)
            fut.set_exception(copy.copy(unanswered))
        else:
            assert row.error is not None  # every failed row carries its error
            fut.set_exception(row.error)


def _request_error(rows: list[BatchRow]) -> BaseException:
    """Return what a partly answered request failed with: its first answered failure."""
    failed = [r for r in rows if r.result_code not in (0, NOT_FOUND) and r.error is not None]
    answered = [r for r in failed if r.result_code != NO_RESPONSE]
    error = (answered or failed)[0].error
    assert error is not None
    return error
