"""A trio run as the event loop of a :class:`Completer` (imported only under trio).

asyncio hands the completer ``call_soon``, ``call_later`` and ``add_reader``; here one system
task per trio run plays those parts: it runs the scheduled callbacks and the completer's
timer, and one more system task per watched descriptor calls its callback whenever the
descriptor is readable. So trio gets what asyncio has: completions settled in batches, and a
loop runtime driven by the trio thread itself (a reply wakes only that thread).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Coroutine
from typing import Any

import outcome
import trio

from aerospike_fluent import _aio
from aerospike_fluent._native import Completer, Pending

_log = logging.getLogger("aerospike_fluent")


class _Timer:
    """The completer's next periodic tick (it holds the handle weakly and may cancel it)."""

    __slots__ = ("__weakref__", "callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], object]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def _report(callback: Callable[[], object]) -> None:
    """Run ``callback``; an error is logged, never raised into the run (it would end it)."""
    try:
        callback()
    except Exception:
        _log.exception("aerospike_fluent: %r failed", callback)


class TrioLoop:
    """``call_soon`` / ``call_later`` / ``add_reader`` for one trio run, on system tasks."""

    __slots__ = ("_soon", "_timer", "_wake")

    def __init__(self) -> None:
        self._soon: list[Callable[[], object]] = []
        self._timer: _Timer | None = None
        self._wake = trio.Event()

    def call_soon(self, callback: Callable[[], object]) -> None:
        self._soon.append(callback)
        self._wake.set()

    def call_later(self, delay: float, callback: Callable[[], object]) -> _Timer:
        self._timer = _Timer(trio.current_time() + delay, callback)
        self._wake.set()
        return self._timer

    def add_reader(self, fd: int, callback: Callable[[], object]) -> None:
        trio.lowlevel.spawn_system_task(_read, fd, callback, name=f"aerospike_fluent fd {fd}")

    async def run(self, completer: Completer) -> None:
        """Run the scheduled callbacks and the timer until the trio run ends."""
        try:
            while True:
                timer = self._timer
                deadline = math.inf if timer is None or timer.cancelled else timer.when
                with trio.move_on_at(deadline):
                    await self._wake.wait()
                self._wake = trio.Event()
                soon, self._soon = self._soon, []
                for callback in soon:
                    _report(callback)
                timer = self._timer
                if timer is not None and not timer.cancelled and trio.current_time() >= timer.when:
                    self._timer = None
                    _report(timer.callback)
        finally:
            completer.release()
            # what is left holds the completer's methods, and the completer holds ours
            self._soon.clear()
            self._timer = None


async def _read(fd: int, callback: Callable[[], object]) -> None:
    while True:
        await trio.lowlevel.wait_readable(fd)
        _report(callback)


_COMPLETER: trio.lowlevel.RunVar[Completer] = trio.lowlevel.RunVar("aerospike_fluent")
_LOOP: trio.lowlevel.RunVar[TrioLoop] = trio.lowlevel.RunVar("aerospike_fluent loop")
RunVar = trio.lowlevel.RunVar


class _Runnable:
    """``len()``: tasks queued for the run's next batch (a lone call polls only at 0).

    Tasks still waiting in the batch being run are not counted: a call may then delay them,
    by ``spin_wait_us`` at most.
    """

    __slots__ = ()

    def __len__(self) -> int:
        return trio.lowlevel.current_statistics().tasks_runnable


def completer(loop_runtime: bool) -> Completer:
    """Return the completer of the current trio run (made and watched on first use)."""
    try:
        return _COMPLETER.get()
    except LookupError:
        pass
    loop = TrioLoop()
    c = Completer(
        loop.call_soon,
        loop.call_later,
        loop.add_reader,
        loop_runtime=loop_runtime,
        ready=_Runnable(),
    )
    trio.lowlevel.spawn_system_task(loop.run, c, name="aerospike_fluent completer")
    loop.add_reader(c.fileno(), c.drain)
    _COMPLETER.set(c)
    _LOOP.set(loop)
    return c


def soon(callback: Callable[[], object]) -> None:
    """Run ``callback`` on the run's system task, after the tasks runnable now have run."""
    completer(_aio.LOOP_RUNTIME)
    _LOOP.get().call_soon(callback)


class _Future:
    """What the completer settles: it hands the outcome to the waiting task."""

    __slots__ = ("_task", "outcome", "waiting")

    def __init__(self, task: trio.lowlevel.Task) -> None:
        self._task = task
        self.outcome: outcome.Outcome[Any] | None = None
        self.waiting = False

    def set_result(self, value: object) -> None:
        self._settle(outcome.Value(value))

    def set_exception(self, error: BaseException) -> None:
        self._settle(outcome.Error(error))

    def done(self) -> bool:
        return self.outcome is not None

    def _settle(self, result: outcome.Outcome[Any]) -> None:
        if self.outcome is not None:
            raise RuntimeError("already settled (its waiter was cancelled)")
        self.outcome = result
        if self.waiting:
            trio.lowlevel.reschedule(self._task, result)


class Kept:
    """What the completer settles for an operation whose outcome outlives its waiter.

    Awaited with :meth:`wait`, as often as needed (a cancelled wait loses nothing); the first
    outcome stays, a later one is refused (the completer drops it).
    """

    __slots__ = ("_event", "_outcome")

    def __init__(self) -> None:
        self._event = trio.Event()
        self._outcome: tuple[Any, BaseException | None] | None = None

    def set_result(self, value: object) -> None:
        self._settle(value, None)

    def set_exception(self, error: BaseException) -> None:
        self._settle(None, error)

    def done(self) -> bool:
        return self._outcome is not None

    def _settle(self, value: object, error: BaseException | None) -> None:
        if self._outcome is not None:
            raise RuntimeError("already settled (the operation was cancelled)")
        self._outcome = (value, error)
        self._event.set()

    async def wait(self) -> Any:
        """Wait (cancellably) for the outcome; raise the operation's error if it failed."""
        await self._event.wait()
        assert self._outcome is not None
        value, error = self._outcome
        if error is not None:
            raise error
        return value


# Marks a future whose waiter was cancelled: a late outcome is refused (and dropped).
_ABANDONED: outcome.Outcome[Any] = outcome.Value(None)


def slot() -> _Future:
    """Return a future of the current task, settled later (:func:`settled` awaits it)."""
    return _Future(trio.lowlevel.current_task())


def _dropped() -> bool:
    return True


def settled(fut: _Future) -> Coroutine[Any, Any, Any]:
    """Wait for ``fut`` (made by :func:`slot` in this task); cancelled, it drops its outcome."""
    return wait(fut, _dropped)


async def call(c: Completer, method: Callable[..., Pending], *args: Any) -> Any:
    """Await ``method((c, future), *args)`` in the current trio task."""
    fut = _Future(trio.lowlevel.current_task())
    pending = method((c, fut), *args)
    return await wait(fut, pending.cancel)


async def wait(fut: _Future, cancel: Callable[[], bool]) -> Any:
    """Wait for ``fut``; on cancellation ``cancel()`` says whether an outcome may still come."""
    if fut.outcome is not None:  # finished inside the call
        await trio.lowlevel.cancel_shielded_checkpoint()
        return fut.outcome.unwrap()
    fut.waiting = True

    def abort(_: Any) -> trio.lowlevel.Abort:
        # Succeeded: no outcome will come. Failed: it is on its way and reschedules the task.
        if cancel():
            fut.outcome = _ABANDONED
            return trio.lowlevel.Abort.SUCCEEDED
        return trio.lowlevel.Abort.FAILED

    return await trio.lowlevel.wait_task_rescheduled(abort)
