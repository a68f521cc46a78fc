"""Private attributes of asyncio and its loops that this package reads, all in one place.

Each one only makes a path faster; without it the package still works, a little slower.
``tests/unit/test_probes.py`` fails when a Python release changes one, so a fallback is never
taken unnoticed. Nothing else in the package touches a private attribute of asyncio, of an
event loop or of trio.

``get_running_loop``
    ``asyncio._get_running_loop``: the running loop of this thread, or ``None``. The public
    ``asyncio.get_running_loop`` raises outside a loop, and raising costs more than the lookup.
    Absent: a wrapper catching that ``RuntimeError`` (same answers, slower).

``ready_queue(loop)``
    ``loop._ready``: the deque of callbacks a ``BaseEventLoop`` runs in its next iteration. The
    native completer reads its length: at 0 nothing else waits on the loop, so a lone call may
    poll for its reply (for up to ``spin_wait_us``) instead of going back to the loop. Absent
    (uvloop, other loops): ``None``, and no call polls; each waits on the loop as usual.

``thread_getter(loop)``
    ``loop._thread_id``: the thread running ``BaseEventLoop.run_forever`` (``None`` when the
    loop is not running). It tells that the loop a thread used last still runs there without
    asking ``get_running_loop`` (which costs a ``getpid()`` system call per use on CPython
    3.11). The getter is a C callable (no Python frame: it is read once per call). Absent:
    ``None``, and every call asks ``get_running_loop`` (same answers, slower).
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable, Sized


def _running_loop_or_none() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


get_running_loop: Callable[[], asyncio.AbstractEventLoop | None] = getattr(
    asyncio, "_get_running_loop", _running_loop_or_none
)


def ready_queue(loop: asyncio.AbstractEventLoop) -> Sized | None:
    """Return the loop's queue of callbacks ready to run (``loop._ready``), or None."""
    ready: Sized | None = getattr(loop, "_ready", None)
    return ready


ThreadGetter = Callable[[asyncio.AbstractEventLoop], int | None]

_THREAD_ID: ThreadGetter = operator.attrgetter("_thread_id")


def thread_getter(loop: asyncio.AbstractEventLoop) -> ThreadGetter | None:
    """Return what reads the id of the thread running ``loop`` (its ``_thread_id``), or None.

    The getter gives None while the loop is not running; None: ``loop`` does not tell.
    """
    return _THREAD_ID if hasattr(loop, "_thread_id") else None
