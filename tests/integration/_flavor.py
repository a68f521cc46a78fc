"""One test body, three clients: an async client on asyncio, one on trio, and the sync client.

The fluent builders are shared: a chain ends in an awaitable on an async client and in a value
on a sync one. A *flavored* test is an ``async def`` that takes the ``fl`` fixture (a
:class:`Flavor`, one per flavor) and passes every terminal through ``fl.run``::

    async def test_put_get(fl: Flavor, set_name: str) -> None:
        k = fl.db.namespace("test").set(set_name).key("u1")
        await fl.run(k.put({"a": 1}))
        assert (await fl.run(k.get()))["a"] == 1

On asyncio and trio, ``fl.run`` awaits what the verb returned. On the sync flavor the verb has
already blocked and returned its value, which ``fl.run`` hands back; the test coroutine is driven
by hand on the test's thread with no event loop running (a blocking call inside a running loop
is refused), so every ``await`` in it completes at once and one that would really suspend fails
the test (use ``fl.sleep``, never ``anyio.sleep``). ``fl.run`` also checks that the terminal
returned an awaitable on the async flavors and a plain value on the sync one.

The ``fl`` fixture and the hook that runs these tests are in ``conftest.py``.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, TypeVar

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync

T = TypeVar("T")

FLAVORS = ("asyncio", "trio", "sync")
"""Test ids: an async client on each anyio backend, and the blocking client."""


class Blocking:
    """A blocking record stream behind ``async with`` / ``async for`` (the sync flavor's)."""

    __slots__ = ("_stream",)

    def __init__(self, stream: af.RecordStream | Iterator[af.Record]) -> None:
        self._stream = stream

    async def __aenter__(self) -> Blocking:
        assert isinstance(self._stream, af.RecordStream)
        self._stream.__enter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert isinstance(self._stream, af.RecordStream)
        self._stream.__exit__(exc_type, exc, tb)

    def __aiter__(self) -> Blocking:
        return self

    def resume_token(self) -> bytes:
        """The stream's resume token."""
        assert isinstance(self._stream, af.RecordStream)
        return self._stream.resume_token()

    async def __anext__(self) -> af.Record:
        try:
            return next(self._stream)
        except StopIteration:
            raise StopAsyncIteration from None


Stream = af.AsyncRecordStream | Blocking


class Flavor:
    """The client flavor a test body runs on, and the few spellings that differ between them."""

    __slots__ = ("_db", "name", "seeds")

    def __init__(self, name: str, seeds: str) -> None:
        if name not in FLAVORS:
            raise ValueError(f"unknown flavor {name!r}")
        self.name = name
        self.seeds = seeds
        self._db: af.Client[Any] | None = None

    def __repr__(self) -> str:
        return f"Flavor({self.name!r})"

    @property
    def is_async(self) -> bool:
        """Whether terminals return awaitables (asyncio, trio)."""
        return self.name != "sync"

    @property
    def db(self) -> af.Client[Any]:
        """This flavor's client on the suite's server, connected while the test body runs."""
        if self._db is None:
            raise RuntimeError("fl.db is connected only while the test body runs")
        return self._db

    async def run(self, outcome: Any) -> Any:
        """The result of a terminal verb: awaited on the async flavors, as is on the sync one."""
        if self.is_async:
            assert inspect.isawaitable(outcome), f"an async terminal returned {outcome!r}"
            return await outcome
        assert not inspect.isawaitable(outcome), f"a sync terminal returned {outcome!r}"
        return outcome

    async def rows(self, terminal: Callable[[], Any]) -> Any:
        """``terminal()``'s batch result, or the ``partial`` result of the failed node it raised
        (a callable: a sync terminal raises before returning)."""
        try:
            return await self.run(terminal())
        except af.errors.AerospikeError as e:
            if e.partial is None:
                raise
            return e.partial

    @asynccontextmanager
    async def connect(self, seeds: str, **options: Any) -> AsyncIterator[af.Client[Any]]:
        """A client of this flavor, closed on exit: ``af.connect`` or ``af.sync.connect``."""
        if self.is_async:
            async with af.connect(seeds, **options) as db:
                yield db
        else:
            with af_sync.connect(seeds, **options) as sdb:
                yield sdb

    def stream(self, query: af.Query[Any]) -> Stream:
        """``query.stream()``: ``async with fl.stream(q) as st: async for record in st``."""
        stream: af.AsyncRecordStream | af.RecordStream = query.stream()
        if self.is_async:
            assert isinstance(stream, af.AsyncRecordStream), stream
            return stream
        assert isinstance(stream, af.RecordStream), stream
        return Blocking(stream)

    def iterate(self, query: af.Query[Any]) -> AsyncIterable[af.Record]:
        """The query as its own iterator: ``async for`` on the async flavors, ``for`` on sync."""
        if self.is_async:
            return query
        return Blocking(iter(query))

    async def sleep(self, seconds: float) -> None:
        """Pause: ``anyio.sleep`` on the async flavors, ``time.sleep`` on the sync one."""
        if self.is_async:
            await anyio.sleep(seconds)
        else:
            time.sleep(seconds)

    def run_test(
        self, test: Callable[..., Coroutine[Any, Any, None]], kwargs: dict[str, Any]
    ) -> None:
        """Run a flavored test body with ``fl.db`` connected (called by the conftest hook)."""
        if self.is_async:
            anyio.run(self._with_client, test, kwargs, backend=self.name)
        else:
            _drive(self._with_client(test, kwargs))

    async def _with_client(
        self, test: Callable[..., Coroutine[Any, Any, None]], kwargs: dict[str, Any]
    ) -> None:
        async with self.connect(self.seeds) as db:
            self._db = db
            try:
                await test(**kwargs)
            finally:
                self._db = None


def _drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends to its end, without an event loop."""
    try:
        suspended_on = coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    pytest.fail(
        f"the sync flavor of this test awaited something that suspends ({suspended_on!r}):"
        " await only fl.run(...) and the other fl helpers",
        pytrace=False,
    )
