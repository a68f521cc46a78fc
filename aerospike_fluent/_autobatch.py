"""Opt-in auto-batching (``connect(..., auto_batch=True)``): concurrent calls as batch requests.

The first single-record call of a loop iteration goes out on its own, as without
auto-batching, and schedules a flush for the end of the iteration; the calls started after it
in the same iteration, or while an earlier batch of them is unanswered, wait for that flush,
which sends them as batch requests of at most ``max_keys`` rows: gets and ``exists`` as batch
reads, puts, deletes, touches and operate chains as batch writes (reads and writes never share
a request). Each caller still gets its own result or its own error, and cancelling one caller
leaves the others alone. A lone or sequential call is never delayed. Calls with options
(a policy, bins to read, a filter, limits) go out on their own.

Calls also wait for an answer, and go out with the calls its callers make next (every answer
schedules a flush once they have run), while ``MOST_IN_FLIGHT`` batch requests are unanswered,
or one is and fewer than ``HOLD_BELOW`` calls wait; ``max_keys`` waiting calls always go out,
and calls held at one answer go at the next (writes held behind a steady stream of reads).
Without this, a caller answered alone sends its next call alone, and its next, and callers out
of step go on in small groups: depending on how replies happened to be read, a run at 50 calls
in flight went out in requests of 25-50 rows or mostly one request per call. For the same
reason an iteration's calls are split in two requests only when no other is unanswered.

Under asyncio, an iteration is one pass of the loop; under trio, one batch of runnable tasks
(the flush runs on the run's system task, ``_trio``). docs/performance.md lists what differs
for a batched call.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Coroutine, Generator
from functools import partial
from typing import TYPE_CHECKING, Any

from aerospike_fluent import _aio, _bridge
from aerospike_fluent import _autobatch_rows as rows
from aerospike_fluent._autobatch_rows import FOUND, NOTHING, RECORD, Waiter
from aerospike_fluent._policy import operate_default
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

if TYPE_CHECKING:
    from aerospike_fluent._native import Pending

# Most rows per batch request when ``auto_batch=True``: at 50 or 256 calls in flight, 64 rows
# gave more calls per second than 16 or 32, and less CPU per call on both sides; split in two
# from SPLIT_FROM calls on, 50 calls gave more again (NOTES.md).
DEFAULT_MAX_KEYS = 64
SPLIT_FROM = 16
"""An iteration's calls from this many on go out as two requests at least (none unanswered)."""
MOST_IN_FLIGHT = 2
"""Batch requests unanswered at once beyond which new calls wait for an answer."""
HOLD_BELOW = 8
"""While a batch request is unanswered, fewer calls than this wait for its answer."""
MAX_KEYS_LIMIT = 5000

VERBS = ("get", "exists", "put", "delete", "touch", "operate")
"""The executor verbs auto-batching takes over."""

Verb = Callable[..., Coroutine[Any, Any, Any]]
Start = Callable[[Any, Callable[..., "Pending"], tuple[Any, ...]], object]


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
    """Calls waiting for the end of one loop's (or trio run's) current iteration."""

    __slots__ = (
        "armed",
        "flush",
        "held",
        "in_flight",
        "loop",
        "reads",
        "release",
        "releasing",
        "start",
        "unscheduled",
        "writes",
    )

    def __init__(
        self,
        loop: weakref.ref[Any] | None,
        start: Start,
        flush: Callable[[], object],
        release: Callable[[_Tick], object],
    ) -> None:
        self.loop = loop  # asyncio: the loop, weakly; trio: None
        self.start = start  # start(fut, method, args) on this loop
        self.flush = flush  # hands the requests started so far to the runtime now
        self.release = release  # schedules a flush that sends every waiting call
        self.releasing: asyncio.Handle | None = None  # that flush, while scheduled (asyncio)
        self.armed = False
        self.unscheduled = False  # armed by a lone call whose flush is not scheduled yet
        self.in_flight = 0  # batch requests sent and not answered yet (lone calls: not counted)
        self.held = [False, False]  # reads, writes: held at the last answer
        self.reads: list[Waiter] = []
        self.writes: list[Waiter] = []

    def answered(self) -> None:
        """Count a batch request answered; schedule the flush that sends what then waits.

        It runs after the request's callers: their next calls and the held ones go together.
        """
        self.in_flight -= 1
        self.armed = True
        self.release(self)


class Batcher:
    """The single-record verbs of an async executor with auto-batching on."""

    __slots__ = ("_direct", "_last", "_max", "_methods", "_native", "_ticks", "_trio_ticks")

    def __init__(self, native: Any, max_keys: int, direct: dict[str, Verb]) -> None:
        self._native = native
        self._max = max_keys
        self._direct = direct  # each verb, sent on its own
        self._methods = {verb: getattr(native, verb) for verb in VERBS}  # bound once
        self._ticks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Tick] = (
            weakref.WeakKeyDictionary()
        )
        self._last: _Tick | None = None
        self._trio_ticks: Any = None  # a trio RunVar, made on first use under trio

    def verbs(self) -> dict[str, Callable[..., Any]]:
        """Return the executor verbs, by name."""
        return {name: getattr(self, name) for name in VERBS}

    # ------------------------------------------------------------------ verbs
    def get(self, key: Any, bins: Any, header_only: bool, policy: Any) -> Any:
        """``native.get`` as an awaitable: plain gets join this iteration's batch."""
        if bins is not None or header_only or policy is not None:
            return self._direct["get"](key, bins, header_only, policy)
        return self._join(
            "get", (key, None, False, None), ("read", key, None, False, None), RECORD, False
        )

    def exists(self, key: Any, policy: Any) -> Any:
        """``native.exists``: as a header-only batch read."""
        if policy is not None:
            return self._direct["exists"](key, policy)
        return self._join("exists", (key, None), rows.exists(key), FOUND, False)

    def put(self, key: Any, bins: Any, policy: Any) -> Any:
        """``native.put``: as a batch write of the bins."""
        if policy is not None:
            return self._direct["put"](key, bins, policy)
        return self._join("put", (key, bins, None), ("put", key, bins, None), NOTHING, True)

    def delete(self, key: Any, policy: Any) -> Any:
        """``native.delete``: as a batch delete."""
        if policy is not None:
            return self._direct["delete"](key, policy)
        return self._join("delete", (key, None), rows.delete(key), FOUND, True)

    def touch(self, key: Any, policy: Any) -> Any:
        """``native.touch``: as a batch write of a touch."""
        if policy is not None:
            return self._direct["touch"](key, policy)
        return self._join("touch", (key, None), rows.touch(key), NOTHING, True)

    def operate(self, key: Any, ops: list[Any], policy: Any) -> Any:
        """``native.operate``: as a batch operate row (only with the default operate policy)."""
        if policy is not operate_default():
            return self._direct["operate"](key, ops, policy)
        return self._join("operate", (key, ops, policy), rows.operate(key, ops), RECORD, True)

    # ------------------------------------------------------------------ joining
    def _join(
        self, verb: str, args: tuple[Any, ...], row: tuple[Any, ...], answer: int, writes: bool
    ) -> Any:
        """Send the call now (first of its iteration) or make it wait for the flush."""
        running = _aio.running()
        if running is None:  # trio, or no loop at all (the direct call raises why)
            return self._outside_asyncio(verb, args, row, answer, writes)
        loop = running[0]
        tick = self._last
        if tick is None or tick.loop is None or tick.loop() is not loop:
            tick = self._tick(loop)
        if not tick.armed:
            tick.armed = True
            if not tick.in_flight:
                # The flush is scheduled once this call has started: a callback already
                # waiting on the loop would stop a lone call from polling for its reply.
                tick.unscheduled = True
                return _bridge.named(_first_call, verb)(
                    self, self._methods[verb], args, tick, running
                )
            loop.call_soon(self._flush, tick)
        elif tick.unscheduled:
            tick.unscheduled = False
            loop.call_soon(self._flush, tick)
        fut = loop.create_future()
        # Waiter(...) and _Joined(fut) without their Python-level constructors: once per call
        waiter = _NEW_TUPLE(Waiter, (row, fut, answer, self._methods[verb], args))
        (tick.writes if writes else tick.reads).append(waiter)
        joined = _NEW_OBJECT(_Joined)
        _SET_JOINED_FUT(joined, fut)
        _SET_JOINED_STEPS(joined, None)
        return joined

    def _tick(self, loop: asyncio.AbstractEventLoop) -> _Tick:
        tick = self._ticks.get(loop)
        if tick is None:
            c = _aio.completer(loop)
            flush = _nothing if c is None else c.flush
            tick = self._ticks[loop] = _Tick(
                weakref.ref(loop), partial(_start_on, loop), flush, self._release_on_loop
            )
        self._last = tick
        return tick

    async def _outside_asyncio(
        self, verb: str, args: tuple[Any, ...], row: tuple[Any, ...], answer: int, writes: bool
    ) -> Any:
        """Under trio, join the run's current batch of tasks (when the task first runs)."""
        _bridge._require_trio()  # outside asyncio and trio: raises why nothing can run
        from aerospike_fluent import _trio

        if self._trio_ticks is None:
            self._trio_ticks = _trio.RunVar("aerospike_fluent auto_batch")
        try:
            tick = self._trio_ticks.get()
        except LookupError:
            flush = _trio.completer(_aio.LOOP_RUNTIME).flush
            tick = _Tick(None, _start_on_trio, flush, self._release_on_trio)
            self._trio_ticks.set(tick)
        if not tick.armed:
            tick.armed = True
            if not tick.in_flight:
                # as under asyncio: the flush is scheduled once this call has started
                alone = _trio.slot()
                done = (_trio.completer(_aio.LOOP_RUNTIME), alone)
                pending = self._methods[verb](done, *args)
                _trio.soon(partial(self._flush, tick))
                return await _trio.wait(alone, pending.cancel)
            _trio.soon(partial(self._flush, tick))
        fut = _trio.slot()
        waiter = Waiter(row, fut, answer, self._methods[verb], args)
        (tick.writes if writes else tick.reads).append(waiter)
        return await _trio.settled(fut)

    # ------------------------------------------------------------------ sending
    def _release_on_loop(self, tick: _Tick) -> None:
        # One such flush, after the callers of every request answered in this iteration: two
        # answers read together send their callers' next calls together.
        if tick.releasing is not None:
            tick.releasing.cancel()
        loop = tick.loop() if tick.loop is not None else None
        if loop is not None and not loop.is_closed():
            tick.releasing = loop.call_soon(self._flush, tick, True)

    def _release_on_trio(self, tick: _Tick) -> None:
        from aerospike_fluent import _trio

        _trio.soon(partial(self._flush, tick, True))

    def _flush(self, tick: _Tick, release: bool = False) -> None:
        """Send the waiting calls, but those that wait for an answer (``release``: one came)."""
        tick.armed = False
        if release:
            tick.releasing = None
        hold_reads = self._holds(tick, 0, len(tick.reads), release)
        hold_writes = self._holds(tick, 1, len(tick.writes), release)
        sent = False
        if tick.reads and not hold_reads:
            waiting, tick.reads = tick.reads, []
            sent = self._send_all(tick, waiting)
        if tick.writes and not hold_writes:
            waiting, tick.writes = tick.writes, []
            sent = self._send_all(tick, waiting) or sent
        if sent:
            # The requests go out now, not at the completer's own flush an iteration later.
            tick.flush()

    def _holds(self, tick: _Tick, kind: int, waiting: int, release: bool) -> bool:
        """Whether ``waiting`` calls of ``kind`` (0 reads, 1 writes) wait for an answer."""
        hold = (
            0 < waiting < self._max
            and tick.in_flight > 0
            and (tick.in_flight >= MOST_IN_FLIGHT or (not release and waiting < HOLD_BELOW))
        )
        if release:
            hold = hold and not tick.held[kind]
            tick.held[kind] = hold
        return hold

    def _send_all(self, tick: _Tick, waiting: list[Waiter]) -> bool:
        """Send ``waiting`` in requests; False if none is left.

        At most ``max_keys`` rows each, and, when no other request is out, two requests at
        least from ``SPLIT_FROM`` rows on: while the server answers one, the callers of the
        other run.
        """
        # callers cancelled before the flush ask for nothing
        waiting = [w for w in waiting if not w.fut.done()]
        n = len(waiting)
        split = not tick.in_flight and n >= SPLIT_FROM
        requests = max(-(-n // self._max), 2 if split else 1)
        loop = tick.loop() if tick.loop is not None else None
        if requests > 1 and loop is not None:
            # A callback waiting on the loop: the first request must not poll for its reply
            # (exec/completion/on_loop.rs) before the next one is sent.
            loop.call_soon(_nothing)
        step = -(-n // requests) if n else 1
        for i in range(0, n, step):
            self._send(tick, waiting[i : i + step])
        return bool(waiting)

    def _send(self, tick: _Tick, waiting: list[Waiter]) -> None:
        """One batch request for ``waiting`` (one caller: its own call, as without batching)."""
        if len(waiting) > 1 and self._batch(tick, waiting):
            return
        for w in waiting:
            try:
                tick.start(w.fut, w.method, w.args)
            except Exception as exc:
                rows.fail([w], exc)

    def _batch(self, tick: _Tick, waiting: list[Waiter]) -> bool:
        """Start one batch request; False if it refused a row (bad ops): each caller goes alone."""
        try:
            tick.start(rows.Request(waiting, tick.answered), self._native.batch, _rows_of(waiting))
        except Exception:
            return False
        tick.in_flight += 1
        return True


def _nothing() -> None:
    return None


async def _first_call(
    batcher: Batcher,
    method: Callable[..., Pending],
    args: tuple[Any, ...],
    tick: _Tick,
    running: _aio.Running,
) -> Any:
    """Start the iteration's first call alone, then schedule the iteration's flush.

    Even when the call was answered while it started: the calls after it in this iteration
    still join (on a busy machine a reply often beats the first read; ending the iteration's
    batch there would send each call of the iteration alone).
    """
    loop, completer = running
    fut = loop.create_future()
    pending = _aio.start(loop, completer, fut, method, args)
    if tick.unscheduled:
        tick.unscheduled = False
        loop.call_soon(batcher._flush, tick)
    if fut.done():
        return await _bridge._answered(fut)
    try:
        return await fut
    except asyncio.CancelledError:
        pending.cancel()
        raise


def _rows_of(waiting: list[Waiter]) -> tuple[Any, ...]:
    return ([w.row for w in waiting], None)


def _start_on(
    loop: asyncio.AbstractEventLoop,
    fut: Any,
    method: Callable[..., Pending],
    args: tuple[Any, ...],
) -> object:
    return _aio.start(loop, _aio.completer(loop), fut, method, args)


def _start_on_trio(fut: Any, method: Callable[..., Pending], args: tuple[Any, ...]) -> object:
    from aerospike_fluent import _trio

    return method((_trio.completer(_aio.LOOP_RUNTIME), fut), *args)


class _Joined(Coroutine[Any, Any, Any]):
    """A call that joined this iteration's batch, as a coroutine (``create_task`` takes it).

    Thrown into or closed before its first step (a task cancelled before it ran), it cancels
    its future, so the flush does not ask for that row.
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


_NEW_TUPLE = tuple.__new__
_NEW_OBJECT = object.__new__
_SET_JOINED_FUT, _SET_JOINED_STEPS = (getattr(_Joined, name).__set__ for name in ("_fut", "_steps"))
