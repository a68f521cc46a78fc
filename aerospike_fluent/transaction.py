"""Multi-record transactions: ``async with db.transaction() as tx:`` and ``db.run_transaction``.

    >>> async with db.transaction() as tx:
    ...     accounts = tx.namespace("test").set("accounts")
    ...     a = await accounts.key("alice").get()
    ...     await accounts.key("alice").put({"balance": a.bins["balance"] - 10})
    ...     await accounts.key("bob").add("balance", 10)

A clean exit commits; an exception aborts and re-raises. Calls on ``tx`` run inside the
transaction (single-key verbs, operate chains, batches, UDF apply); a query or scan through it
reads committed data; a background task through it is refused. Transactions need a
strong-consistency namespace (an Enterprise server, or the embedded server started with
``strong_consistency=[...]``).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from enum import StrEnum
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar, Unpack

from aerospike_fluent import _native, _validate
from aerospike_fluent._exec import Async, Call, Executor, M, Sync
from aerospike_fluent.batch import Batch
from aerospike_fluent.errors import (
    CommitError,
    InvalidArgumentError,
    TransactionBlockedError,
    TransactionVersionMismatchError,
)
from aerospike_fluent.scopes import Namespace

if TYPE_CHECKING:
    from aerospike_fluent.client import Client
    from aerospike_fluent.policy import Policy, PolicyOptions

T = TypeVar("T")
TIMEOUT_MAX: Final = 2**32 - 1
"""Longest transaction timeout, in seconds (32 bits on the wire)."""

log: Final = logging.getLogger("aerospike_fluent.transactions")

RETRYABLE: Final = (TransactionBlockedError, TransactionVersionMismatchError)
"""Conflicts that retrying the whole transaction can get past (with a failed verify)."""


class CommitStatus(StrEnum):
    """How a commit ended."""

    COMMITTED = "committed"
    ALREADY_COMMITTED = "already_committed"
    ROLL_FORWARD_ABANDONED = "roll_forward_abandoned"
    """Committed, but the client stopped rolling it forward: the server finishes it."""
    CLOSE_ABANDONED = "close_abandoned"
    """Committed and rolled forward; the server removes the transaction's monitor."""


class AbortStatus(StrEnum):
    """How an abort ended."""

    ABORTED = "aborted"
    ALREADY_ABORTED = "already_aborted"
    ROLL_BACK_ABANDONED = "roll_back_abandoned"
    """Aborted, but the client stopped rolling it back: the server finishes it."""
    CLOSE_ABANDONED = "close_abandoned"
    """Rolled back; the server removes the transaction's monitor."""


def _seconds(timeout: float | timedelta | None) -> int:
    if timeout is None:
        return 0
    if isinstance(timeout, timedelta):
        timeout = timeout.total_seconds()
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 <= timeout <= TIMEOUT_MAX  # also refuses NaN
    ):
        raise InvalidArgumentError(
            f"transaction timeout must be seconds within 0..{TIMEOUT_MAX} or a timedelta, "
            f"not {_validate.shown(timeout)}"
        )
    seconds = int(timeout)
    if seconds != timeout:
        raise InvalidArgumentError(
            f"transaction timeout is whole seconds (the server's unit), not {timeout!r}"
        )
    return seconds


class Transaction(Generic[M]):
    """A multi-record transaction and a view of its client whose calls run inside it.

    Start one with :meth:`Client.transaction`. Use it as a context manager, or finish it with
    :meth:`commit` / :meth:`abort`; either way a later call through it raises
    :class:`~aerospike_fluent.errors.TransactionFinishedError` and sends nothing.
    """

    __slots__ = ("_client", "_ex", "_namespace", "_txn")

    def __init__(
        self,
        client: Client[M],
        timeout: float | timedelta | None = None,
        *,
        _txn: _native.Transaction | None = None,
        _namespace: list[str] | None = None,
    ) -> None:
        self._txn: Final = _txn or _native.Transaction(_seconds(timeout))
        self._client: Client[M] = client
        view = client.native.with_transaction(self._txn)
        self._ex: Executor[M] = client._ex.in_transaction(view, self._txn)
        # Shared with the views of this transaction (with_policy): its one namespace.
        self._namespace: Final[list[str]] = [] if _namespace is None else _namespace

    def __repr__(self) -> str:
        ns = self._namespace[0] if self._namespace else None
        return f"<Transaction id={self.id} {self.state} namespace={ns!r}>"

    @property
    def id(self) -> int:
        """The transaction's id."""
        return self._txn.id

    @property
    def state(self) -> str:
        """``open``, ``verified``, ``committed``, ``aborted`` or ``commit_failed`` (in doubt)."""
        return self._txn.state

    @property
    def timeout(self) -> int:
        """Seconds the server keeps it open (0: the namespace's ``transaction-duration``)."""
        return self._txn.timeout

    @property
    def native(self) -> _native.Transaction:
        """The native transaction (escape hatch)."""
        return self._txn

    def namespace(self, name: str) -> Namespace[M]:
        """Return a namespace scope whose calls run in this transaction (one namespace each)."""
        if not self._namespace:
            self._namespace.append(name)
        elif name != self._namespace[0]:
            raise InvalidArgumentError(
                f"a transaction works in one namespace: this one is in {self._namespace[0]!r}, "
                f"not {name!r}"
            )
        return Namespace(self._ex, name)

    def with_policy(
        self, policy: Policy | str | None = None, /, **changes: Unpack[PolicyOptions]
    ) -> Transaction[M]:
        """Return a view of this transaction whose calls have other defaults.

        The same transaction (committing either commits both), with the defaults of
        ``db.with_policy(policy, **changes)``.
        """
        view = self._client.with_policy(policy, **changes)
        return Transaction(view, _txn=self._txn, _namespace=self._namespace)

    def batch(self) -> Batch[M]:
        """Return an empty mixed batch whose rows run in this transaction."""
        return Batch(self._ex)

    def commit(self) -> Any:
        """Verify what it read, apply what it wrote, and close it: a :class:`CommitStatus`.

        A failure raises :class:`~aerospike_fluent.errors.CommitError` (its ``stage`` says
        where); when it is ``in_doubt`` call ``commit()`` again (``abort()`` is refused).
        """
        return self._ex.call(Call("commit", (self._txn,), finish=CommitStatus))

    def abort(self) -> Any:
        """Undo what it wrote and close it: an :class:`AbortStatus`."""
        return self._ex.call(Call("abort", (self._txn,), finish=AbortStatus))

    def _open(self) -> bool:
        return self._txn.state == "open"

    async def __aenter__(self: Transaction[Async]) -> Transaction[Async]:
        return self

    async def __aexit__(
        self: Transaction[Async],
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            if self._open():
                await self.commit()
        elif self._open():
            await self.abort()

    def __enter__(self: Transaction[Sync]) -> Transaction[Sync]:
        return self

    def __exit__(
        self: Transaction[Sync],
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            if self._open():
                self.commit()
        elif self._open():
            self.abort()


class Retry:
    """When :meth:`Client.run_transaction` tries again, and how long it waits first."""

    __slots__ = ("attempts", "backoff", "max_backoff")

    def __init__(self, attempts: int, backoff: float, max_backoff: float) -> None:
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
            raise InvalidArgumentError(f"attempts must be an int >= 1, not {attempts!r}")
        for name, value in (("backoff", backoff), ("max_backoff", max_backoff)):
            _validate.millis(name, value)  # finite seconds >= 0, at most 2**32 - 1 ms
        self.attempts = attempts
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)

    def pause(self, attempt: int) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0-based): full jitter."""
        doubled = self.backoff * 2 ** min(attempt, 1000)  # a float times 2**1024 overflows
        return random.uniform(0, min(self.max_backoff, doubled))

    @staticmethod
    def conflict(exc: BaseException) -> bool:
        """Whether ``exc`` is a conflict another attempt may not meet."""
        if isinstance(exc, RETRYABLE):
            return True
        return isinstance(exc, CommitError) and exc.stage == "verify" and not exc.in_doubt

    def again(self, exc: BaseException, attempt: int) -> bool:
        """Whether to try again after ``exc`` ended attempt ``attempt``; logs when so."""
        if attempt + 1 >= self.attempts or not self.conflict(exc):
            return False
        log.debug("transaction attempt %d met %r: retrying", attempt + 1, exc)
        return True


async def run_async(
    client: Client[Async],
    fn: Callable[[Transaction[Async]], Awaitable[T]],
    retry: Retry,
    timeout: float | timedelta | None,
) -> T:
    """:meth:`Client.run_transaction` for async clients."""
    attempt = 0
    while True:
        tx = Transaction(client, timeout)
        ran = False
        try:
            async with tx:
                result = await fn(tx)
                ran = True
        except BaseException as exc:
            if ran and isinstance(exc, CommitError) and exc.in_doubt:
                await _settle_async(tx, exc, retry)
                return result
            if not retry.again(exc, attempt):
                raise
        else:
            return result
        await _sleep(retry.pause(attempt))
        attempt += 1


def run_sync(
    client: Client[Sync],
    fn: Callable[[Transaction[Sync]], T],
    retry: Retry,
    timeout: float | timedelta | None,
) -> T:
    """:meth:`Client.run_transaction` for sync clients."""
    attempt = 0
    while True:
        tx = Transaction(client, timeout)
        ran = False
        try:
            with tx:
                result = fn(tx)
                ran = True
        except BaseException as exc:
            if ran and isinstance(exc, CommitError) and exc.in_doubt:
                _settle_sync(tx, exc, retry)
                return result
            if not retry.again(exc, attempt):
                raise
        else:
            return result
        time.sleep(retry.pause(attempt))
        attempt += 1


async def _settle_async(tx: Transaction[Async], first: CommitError, retry: Retry) -> None:
    """Retry an in-doubt commit (the only way to settle it) until it answers."""
    for attempt in range(retry.attempts):
        await _sleep(retry.pause(attempt))
        try:
            await tx.commit()
        except CommitError as exc:
            if not exc.in_doubt:
                raise
            continue
        return
    raise first


def _settle_sync(tx: Transaction[Sync], first: CommitError, retry: Retry) -> None:
    for attempt in range(retry.attempts):
        time.sleep(retry.pause(attempt))
        try:
            tx.commit()
        except CommitError as exc:
            if not exc.in_doubt:
                raise
            continue
        return
    raise first


async def _sleep(seconds: float) -> None:
    import sniffio

    if sniffio.current_async_library() == "trio":
        import trio

        await trio.sleep(seconds)
    else:
        import asyncio

        await asyncio.sleep(seconds)
