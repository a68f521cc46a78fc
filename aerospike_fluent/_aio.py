"""An asyncio loop as the event loop of a :class:`Completer`; :func:`start` is the asyncio route.

Each loop gets one completer; the native side queues finished operations on it without taking
the GIL and wakes the loop with one byte on a socket the loop watches (``loop.add_reader``);
``Completer.drain`` then settles every ready future in one go on the loop thread. Operations
started in one loop iteration are also handed to the runtime together: the first schedules
``Completer.flush`` with ``loop.call_soon``, which spawns them all in one go (one wake-up of the
Tokio worker per loop iteration, not per operation). A busy loop also gets a runtime of its own,
driven by the loop thread (native ``local.rs``): single-record calls there send their request
inside the native call and settle when the loop sees that runtime readable. Loops without
``add_reader`` fall back to a ``done(result, error)`` callback called from a native thread
under the GIL, which hops over with ``loop.call_soon_threadsafe``.

Every asyncio operation of the package starts through :func:`start`: single calls
(``_bridge.call``), stream chunks (``_bridge.Detached``) and auto-batched reads
(``_autobatch``).
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

import sniffio

from aerospike_fluent import _probes
from aerospike_fluent._native import Completer, Pending

Running = tuple[asyncio.AbstractEventLoop, Completer | None]
"""The running loop of this thread and its completer (None: the loop cannot watch fds)."""

# Give each asyncio loop (and each trio run: ``_bridge`` passes it on) its own runtime, driven
# by the loop thread (read when a loop is first seen; False: every operation runs on the shared
# worker runtime).
LOOP_RUNTIME = True

completers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Completer | None] = (
    weakref.WeakKeyDictionary()
)
"""Each loop seen so far and its completer (None: the loop cannot watch fds)."""


def completer(loop: asyncio.AbstractEventLoop) -> Completer | None:
    """Return the loop's completer (watched from first use); None if it cannot watch fds."""
    try:
        return completers[loop]
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
        completers[loop] = None
        return None
    completers[loop] = c
    return c


def _release_closed() -> None:
    """Release the completers of closed loops.

    What was in flight when a loop closed never completes, and holds that loop (and its
    runtime and connections) alive.
    """
    for old, c in list(completers.items()):
        if old.is_closed():
            if c is not None:
                c.release()
            del completers[old]


def _weakly(loop: asyncio.AbstractEventLoop, method: str) -> Callable[..., object]:
    """``loop.<method>`` without a strong reference to the loop.

    ``completers`` maps each loop (weakly) to its completer; a completer holding the loop
    would keep the entry, the loop and the completer's runtime and sockets alive forever.
    """
    ref = weakref.ref(loop)

    def call(*args: Any) -> object:
        live = ref()
        if live is None:
            raise RuntimeError("the event loop is gone")
        return getattr(live, method)(*args)

    return call


_sniffio_local = sniffio.thread_local
_sniffio_cvar = sniffio.current_async_library_cvar
_ASYNCIO = frozenset((None, "asyncio"))
_get_running_loop = _probes.get_running_loop
_get_ident = threading.get_ident

# The last (loop, completer) seen by ``running``, and what reads the thread running that loop
# (``_probes.thread_getter``): a loop still running on this thread is the running one, without
# asking ``_probes.get_running_loop``. Both weak: a finished loop's completer (and the runtime
# it owns) must not outlive the loop.
_last: (
    tuple[weakref.ref[asyncio.AbstractEventLoop], weakref.ref[Completer], _probes.ThreadGetter]
    | None
) = None


def _forget_last() -> None:
    # After fork() the parent's loop still says it runs on this thread id (same pthread).
    global _last
    _last = None


os.register_at_fork(after_in_child=_forget_last)


def running() -> Running | None:
    """Return this thread's running loop and its completer if asyncio is the current library.

    None outside a loop, and under trio (even with an asyncio loop running in the same thread,
    as trio-asyncio has).
    """
    global _last
    if (_sniffio_local.name or _sniffio_cvar.get()) not in _ASYNCIO:
        return None
    last = _last
    if last is not None:
        loop, c = last[0](), last[1]()
        if loop is not None and c is not None and last[2](loop) == _get_ident():
            return loop, c
    loop = _get_running_loop()
    if loop is None:
        return None
    c = completers.get(loop) or completer(loop)
    thread = _probes.thread_getter(loop)
    if c is not None and thread is not None and thread(loop) == _get_ident():
        _last = (weakref.ref(loop), weakref.ref(c), thread)
    return loop, c


def start(
    loop: asyncio.AbstractEventLoop,
    c: Completer | None,
    fut: asyncio.Future[Any],
    method: Callable[..., Pending],
    args: tuple[Any, ...],
) -> Pending:
    """Start ``method(done, *args)`` with ``fut`` (of ``loop``) as its completion.

    ``done`` is the ``(completer, fut)`` pair the loop settles in batches, or without a
    completer (``c`` None) a callback hopping over with ``loop.call_soon_threadsafe``. The
    outcome may already be in ``fut`` when this returns (a reply polled for inside the call).
    """
    if c is not None:
        return method((c, fut), *args)
    # partial of C callables: no Python frame runs on the native thread.
    return method(partial(loop.call_soon_threadsafe, _settle, fut), *args)  # type: ignore[arg-type]


def _settle(fut: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """Complete the future on the loop thread, unless its awaiter was cancelled."""
    if fut.done():
        return
    if error is None:
        fut.set_result(result)
    else:
        fut.set_exception(error)
