"""Await a native operation under asyncio or trio.

Every native operation takes its completion as its first argument: a ``(Completer, future)``
pair whose event loop settles the future, or (loops that cannot watch descriptors) a
``done(result, error)`` callback. Two routes, each used by :func:`call` (and :func:`wait`)
and :class:`Detached` alike: on asyncio, ``_aio.start`` with the running loop's completer; on
trio, the completer of the trio run, whose system tasks stand in for the loop (``_trio``).
Cancelling the awaiting task calls :meth:`Pending.cancel`, which aborts the native task. No
event-loop policy is installed or changed.
"""

from __future__ import annotations

import asyncio
import functools
import types
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import sniffio

from aerospike_fluent import _aio
from aerospike_fluent._native import Pending

if TYPE_CHECKING:
    from aerospike_fluent._trio import Kept

Start = Callable[[Any], Pending]

_running = _aio.running
_start = _aio.start
_sniffio_local = sniffio.thread_local
_sniffio_cvar = sniffio.current_async_library_cvar


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


def _require_trio() -> None:
    """With no asyncio loop to run on: return under trio, else raise why nothing can run."""
    library = _sniffio_local.name or _sniffio_cvar.get()
    if library is None:
        library = sniffio.current_async_library()  # AsyncLibraryNotFoundError outside one
    if library == "trio":
        return
    if library == "asyncio":
        asyncio.get_running_loop()  # RuntimeError: no running event loop
    raise RuntimeError(f"unsupported async library {library!r} (use asyncio or trio)")


async def call(method: Callable[..., Pending], *args: Any) -> Any:
    """Start ``method(done, *args)`` on the current event loop and await its result."""
    running = _running()
    if running is not None:
        loop, completer = running
        fut = loop.create_future()
        if completer is not None:  # ``_aio.start``, inlined: one frame less per call
            pending = method((completer, fut), *args)
        else:
            pending = _start(loop, completer, fut, method, args)
        if fut.done():
            return await _answered(fut)
        try:
            return await fut
        except asyncio.CancelledError:
            pending.cancel()
            raise
    _require_trio()
    from aerospike_fluent import _trio

    return await _trio.call(_trio.completer(_aio.LOOP_RUNTIME), method, *args)


Coro = Callable[..., Coroutine[Any, Any, Any]]


@functools.cache
def named(fn: Coro, name: str) -> Coro:
    """Return coroutine function ``fn`` under another name.

    An un-awaited call is then reported as coroutine '<name>' (the verb the user called);
    the copy (a renamed code object) costs nothing per call.
    """
    code = fn.__code__.replace(co_name=name, co_qualname=name)
    renamed = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    renamed.__kwdefaults__ = fn.__kwdefaults__
    return renamed


def wait(start: Start) -> Coroutine[Any, Any, Any]:
    """Await ``start(done)``: :func:`call` for a native call already given its arguments."""
    return call(start)


class Detached:
    """A native operation whose outcome outlives a cancelled waiter: await it again later.

    For operations that consume something (a query chunk): cancelling whoever awaits
    :meth:`result` neither aborts the operation nor loses what it returns.
    """

    __slots__ = ("_fut", "_pending")

    def __init__(self, start: Start) -> None:
        self._fut: asyncio.Future[Any] | Kept
        running = _running()
        if running is not None:
            loop, completer = running
            self._fut = fut = loop.create_future()
            self._pending = _start(loop, completer, fut, start, ())
        else:
            _require_trio()
            from aerospike_fluent import _trio

            self._fut = kept = _trio.Kept()
            self._pending = start((_trio.completer(_aio.LOOP_RUNTIME), kept))

    async def result(self) -> Any:
        """Wait (cancellably) for the outcome; raise the operation's error if it failed."""
        fut = self._fut
        if isinstance(fut, asyncio.Future):
            return await asyncio.shield(fut)
        return await fut.wait()

    def cancel(self, result: Any = None) -> None:
        """Abort the operation; a current or later waiter gets ``result``."""
        self._pending.cancel()
        fut = self._fut
        if not fut.done():
            fut.set_result(result)
        elif isinstance(fut, asyncio.Future) and not fut.cancelled():
            fut.exception()  # retrieved: an abandoned failure is not logged as unhandled
