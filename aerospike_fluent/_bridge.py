"""Await a native operation under asyncio or trio.

asyncio: each loop gets one :class:`Completer`; the native side queues finished operations on it
without taking the GIL and wakes the loop with one byte on a socket the loop watches
(``loop.add_reader``); ``Completer.drain`` then settles every ready future in one go on the loop
thread. Operations started in one loop iteration are also handed to the runtime together: the
first schedules ``Completer.flush`` with ``loop.call_soon``, which spawns them all in one go (one
wake-up of the Tokio worker per loop iteration, not per operation). A busy loop also gets a
runtime of its own, driven by the loop thread (native ``local.rs``): single-record calls there
send their request inside the native call and settle when the loop sees that runtime readable.
Loops without ``add_reader`` fall back to a ``done(result, error)`` callback called from a
native thread under the GIL, which hops over with ``loop.call_soon_threadsafe``.
trio: :func:`call` goes through a completer of the trio run too (``_trio``: system tasks stand in
for the loop); other waits pass ``done`` = ``TrioToken.run_sync_soon`` of a reschedule. Cancelling
the awaiting task calls :meth:`Pending.cancel`, which aborts the native task. No event-loop
policy is installed or changed.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any, cast

import sniffio

from aerospike_fluent import _probes
from aerospike_fluent._native import Completer, Pending

Done = Callable[[Any, BaseException | None], None] | tuple[Completer, "asyncio.Future[Any]"]
Start = Callable[[Done], Pending]

_get_running_loop = _probes.get_running_loop
_sniffio_local = sniffio.thread_local
_sniffio_cvar = sniffio.current_async_library_cvar
_ASYNCIO = frozenset((None, "asyncio"))


async def _answered(fut: asyncio.Future[Any]) -> Any:
    """Return the outcome of a future settled inside its native call, after one loop pass.

    The reply came while the call polled for it; yielding once still lets other tasks and
    I/O run, as any await that does I/O would.
    """
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        if not fut.cancelled():
            fut.exception()  # retrieved: asyncio logs no "exception was never retrieved"
        raise
    return fut.result()


def _settle(fut: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """Complete the future on the loop thread, unless its awaiter was cancelled."""
    if fut.done():
        return
    if error is None:
        fut.set_result(result)
    else:
        fut.set_exception(error)


# Give each asyncio loop its own runtime, driven by the loop thread (read when a loop is first
# seen; False: every operation runs on the shared worker runtime).
LOOP_RUNTIME = True

_completers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Completer | None] = (
    weakref.WeakKeyDictionary()
)


def _completer(loop: asyncio.AbstractEventLoop) -> Completer | None:
    """Return the loop's completer (watched from first use); None if it cannot watch fds."""
    try:
        return _completers[loop]
    except KeyError:
        pass
    _release_closed()
    c = Completer(
        _weakly(loop, "call_soon"),
        _weakly(loop, "call_later"),
        _weakly(loop, "add_reader"),
        loop_runtime=LOOP_RUNTIME,
        ready=_probes.ready_queue(loop),
    )
    try:
        loop.add_reader(c.fileno(), c.drain)
    except NotImplementedError:
        _completers[loop] = None
        return None
    _completers[loop] = c
    return c


def _release_closed() -> None:
    """Release the completers of closed loops.

    What was in flight when a loop closed never completes, and holds that loop (and its
    runtime and connections) alive.
    """
    for old, c in list(_completers.items()):
        if old.is_closed():
            if c is not None:
                c.release()
            del _completers[old]


def _weakly(loop: asyncio.AbstractEventLoop, method: str) -> Callable[..., object]:
    """``loop.<method>`` without a strong reference to the loop.

    ``_completers`` maps each loop (weakly) to its completer; a completer holding the loop
    would keep the entry, the loop and the completer's runtime and sockets alive forever.
    """
    ref = weakref.ref(loop)

    def call(*args: Any) -> object:
        live = ref()
        if live is None:
            raise RuntimeError("the event loop is gone")
        return getattr(live, method)(*args)

    return call


def _start_asyncio(
    loop: asyncio.AbstractEventLoop, start: Start, fut: asyncio.Future[Any] | None = None
) -> tuple[asyncio.Future[Any], Pending]:
    """Start the operation with ``fut`` (a new future of ``loop`` if None) as its completion."""
    if fut is None:
        fut = loop.create_future()
    completer = _completers.get(loop) or _completer(loop)
    if completer is not None:
        return fut, start((completer, fut))
    # partial of C callables: no Python frame runs on the native thread.
    return fut, start(cast(Done, partial(loop.call_soon_threadsafe, _settle, fut)))  # type: ignore[arg-type]


async def _wait_asyncio(loop: asyncio.AbstractEventLoop, start: Start) -> Any:
    fut, pending = _start_asyncio(loop, start)
    try:
        return await fut
    except asyncio.CancelledError:
        pending.cancel()
        raise


async def _wait_trio(start: Start) -> Any:
    import outcome
    import trio

    task = trio.lowlevel.current_task()
    token = trio.lowlevel.current_trio_token()

    def wake(result: Any, error: BaseException | None) -> None:
        value = outcome.Value(result) if error is None else outcome.Error(error)
        trio.lowlevel.reschedule(task, value)

    pending = start(cast(Done, partial(token.run_sync_soon, wake)))  # type: ignore[arg-type]

    def abort(_: Any) -> trio.lowlevel.Abort:
        # Succeeded: ``done`` will never run. Failed: it is already on its way and will
        # reschedule the task with the operation's outcome.
        return trio.lowlevel.Abort.SUCCEEDED if pending.cancel() else trio.lowlevel.Abort.FAILED

    return await trio.lowlevel.wait_task_rescheduled(abort)


# The last (loop, completer) seen by ``call``, and what reads the thread running that loop
# (``_probes.thread_getter``): a loop still running on this thread is the running one, without
# asking ``_probes.get_running_loop``. Both weak: a finished loop's completer (and the runtime
# it owns) must not outlive the loop.
_last: (
    tuple[weakref.ref[asyncio.AbstractEventLoop], weakref.ref[Completer], _probes.ThreadGetter]
    | None
) = None
_get_ident = threading.get_ident


def _forget_last() -> None:
    # After fork() the parent's loop still says it runs on this thread id (same pthread).
    global _last
    _last = None


os.register_at_fork(after_in_child=_forget_last)


def _running() -> tuple[asyncio.AbstractEventLoop, Completer | None] | None:
    """Return the running asyncio loop of this thread and its completer, or None."""
    global _last
    last = _last
    if last is not None:
        loop, completer = last[0](), last[1]()
        if loop is not None and completer is not None and last[2](loop) == _get_ident():
            return loop, completer
    loop = _get_running_loop()
    if loop is None:
        return None
    completer = _completers.get(loop) or _completer(loop)
    thread = _probes.thread_getter(loop)
    if completer is not None and thread is not None and thread(loop) == _get_ident():
        _last = (weakref.ref(loop), weakref.ref(completer), thread)
    return loop, completer


async def call(method: Callable[..., Pending], *args: Any) -> Any:
    """Await ``method(done, *args)``: :func:`wait` without the closure for the common case.

    On asyncio the future is handed to the loop's completer directly (one coroutine frame,
    no lambda); anything else goes through :func:`wait`.
    """
    library = _sniffio_local.name or _sniffio_cvar.get()
    running = _running() if library in _ASYNCIO else None
    if running is not None:
        loop, completer = running
        if completer is not None:
            fut = loop.create_future()
            pending = method((completer, fut), *args)
            if fut.done():
                return await _answered(fut)
            try:
                return await fut
            except asyncio.CancelledError:
                pending.cancel()
                raise
    elif library == "trio":
        from aerospike_fluent import _trio

        return await _trio.call(_trio.completer(LOOP_RUNTIME), method, *args)
    return await wait(lambda done: method(done, *args))


async def wait(start: Start) -> Any:
    """Start a native operation with a ``done`` callback and await its result."""
    library = _sniffio_local.name or _sniffio_cvar.get()
    if library is None:
        running = _running()
        if running is not None:
            loop, completer = running
            if completer is None:
                return await _wait_asyncio(loop, start)
            # _wait_asyncio inlined: one coroutine frame per operation, not two
            fut = loop.create_future()
            pending = start((completer, fut))
            if fut.done():
                return await _answered(fut)
            try:
                return await fut
            except asyncio.CancelledError:
                pending.cancel()
                raise
        library = sniffio.current_async_library()
    if library == "trio":
        return await _wait_trio(start)
    if library == "asyncio":
        return await _wait_asyncio(asyncio.get_running_loop(), start)
    raise RuntimeError(f"unsupported async library {library!r} (use asyncio or trio)")


class Detached:
    """A native operation whose outcome outlives a cancelled waiter: await it again later.

    For operations that consume something (a query chunk): cancelling whoever awaits
    :meth:`result` neither aborts the operation nor loses what it returns.
    """

    __slots__ = ("_event", "_fut", "_outcome", "_pending")

    def __init__(self, start: Start) -> None:
        self._outcome: tuple[Any, BaseException | None] | None = None
        self._fut: asyncio.Future[Any] | None = None
        self._event: Any = None
        if sniffio.current_async_library() == "trio":
            import trio

            self._event = trio.Event()
            token = trio.lowlevel.current_trio_token()
            self._pending = start(cast(Done, partial(token.run_sync_soon, self._deliver)))  # type: ignore[arg-type]
        else:
            self._fut, self._pending = _start_asyncio(asyncio.get_running_loop(), start)

    def _deliver(self, result: Any, error: BaseException | None) -> None:
        if self._outcome is None:
            self._outcome = (result, error)
            self._event.set()

    async def result(self) -> Any:
        """Wait (cancellably) for the outcome; raise the operation's error if it failed."""
        if self._fut is not None:
            return await asyncio.shield(self._fut)
        await self._event.wait()
        assert self._outcome is not None
        result, error = self._outcome
        if error is not None:
            raise error
        return result

    def cancel(self, result: Any = None) -> None:
        """Abort the operation; a current or later waiter gets ``result``."""
        self._pending.cancel()
        fut = self._fut
        if fut is None:
            self._deliver(result, None)
        elif not fut.done():
            fut.set_result(result)
        elif not fut.cancelled():
            fut.exception()  # retrieved: an abandoned failure is not logged as unhandled
