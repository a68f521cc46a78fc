"""Auto-batching's rows: what each verb asks as a batch row, and how its caller's answer is read.

A caller waiting in an auto-batched request is a :class:`Waiter`: the batch row it asked for,
the future it awaits and how its row's outcome becomes that verb's result. A request's
outcome reaches its callers through :class:`Request`, which the native completer settles like
any future (on the loop thread, or the trio run's system task).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Final, NamedTuple, Protocol

from aerospike_fluent._native import BatchRow
from aerospike_fluent.results import NO_RESPONSE, NOT_FOUND


class Settled(Protocol):
    """What a caller awaits: an asyncio future, or a trio task's slot (``_trio._Future``)."""

    def done(self) -> bool: ...
    def set_result(self, value: Any, /) -> None: ...
    def set_exception(self, error: BaseException, /) -> None: ...


RECORD: Final = 0
"""get / operate: the row's record; a missing record (no error) gives None."""
FOUND: Final = 1
"""exists / delete: True; a missing record gives False."""
NOTHING: Final = 2
"""put / touch: None (their rows always fail when the record is missing)."""


class Waiter(NamedTuple):
    """One caller of an auto-batched request."""

    row: tuple[Any, ...]
    fut: Settled
    answer: int  # RECORD, FOUND or NOTHING
    method: Any  # the native verb and its arguments, for a caller sent on its own
    args: tuple[Any, ...]


# A plain get's row, ("read", key, None, False, None), and a put's, ("put", key, bins, None), are
# written where those calls join a batch (once per call: no function call for them).


def exists(key: Any) -> tuple[Any, ...]:
    """Return the batch row of ``exists``: a header-only read."""
    return ("read", key, None, True, None)


def delete(key: Any) -> tuple[Any, ...]:
    """Return the batch row of a delete."""
    return ("delete", key, None)


_TOUCH: Final = [("touch", None)]


def touch(key: Any) -> tuple[Any, ...]:
    """Return the batch row of a touch: a write of one touch op."""
    return ("write", key, _TOUCH, None)


def operate(key: Any, ops: list[Any]) -> tuple[Any, ...]:
    """Return the batch row of an operate chain (answers shaped as operate gives them)."""
    return ("write", key, ops, None)


class Request:
    """One auto-batched request's completion: hands each waiter its own outcome."""

    __slots__ = ("_finished", "_waiters")

    def __init__(self, waiters: Sequence[Waiter], finished: Any) -> None:
        self._waiters = waiters
        # called once the request is answered, after its callers were handed their outcomes
        # (what it schedules then runs after them)
        self._finished = finished

    def done(self) -> bool:
        return False

    def set_result(self, rows: list[BatchRow]) -> None:
        try:
            deliver(self._waiters, rows)
        finally:
            self._finished()

    def set_exception(self, error: BaseException) -> None:
        try:
            fail(self._waiters, error)
        finally:
            self._finished()


def fail(waiters: Sequence[Waiter], error: BaseException) -> None:
    """Fail every waiting caller, each with its own copy of ``error`` (its own traceback)."""
    for w in waiters:
        if not w.fut.done():
            w.fut.set_exception(_own(error, w.row[1], None))


def deliver(waiters: Sequence[Waiter], rows: list[BatchRow]) -> None:
    """Hand each waiting caller its row's outcome, as the verb alone would give it."""
    unanswered: BaseException | None = None
    for w, row in zip(waiters, rows, strict=True):
        fut = w.fut
        if fut.done():
            continue
        code = row.result_code
        if code == 0:
            answer = w.answer
            if answer == RECORD:
                fut.set_result(row.record)
            else:
                fut.set_result(True if answer == FOUND else None)
        elif code == NOT_FOUND and row.error is None:
            fut.set_result(None if w.answer == RECORD else False)
        elif code == NO_RESPONSE:
            # The request stopped after failing an earlier row: this row was not run. Its
            # caller gets that failure, as alone it would have met it; not in doubt.
            if unanswered is None:
                unanswered = _request_error(rows)
            fut.set_exception(_own(unanswered, w.row[1], False))
        else:
            assert row.error is not None  # every failed row carries its error
            fut.set_exception(row.error)


def _own(error: BaseException, key: Any, in_doubt: bool | None) -> BaseException:
    """Return a copy of ``error`` for one caller: its key (and, when given, whether in doubt)."""
    own = copy.copy(error)
    if own.__dict__ is error.__dict__:
        # A copyreg reducer can hand the copy the same __dict__: tblib's, which importing dask
        # installs for every exception class then defined. The key set below would be every
        # copy's.
        own.__dict__ = dict(error.__dict__)
    if hasattr(own, "key"):
        own.key = key
    if in_doubt is not None and hasattr(own, "in_doubt"):
        own.in_doubt = in_doubt
    return own


def _request_error(rows: list[BatchRow]) -> BaseException:
    """Return what a partly answered request failed with: its first answered failure."""
    failed = [r for r in rows if r.result_code not in (0, NOT_FOUND) and r.error is not None]
    answered = [r for r in failed if r.result_code != NO_RESPONSE]
    error = (answered or failed)[0].error
    assert error is not None
    return error
