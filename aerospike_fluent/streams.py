"""Record streams over a native query, pulled chunk by chunk.

A slow consumer holds back the producer (the native buffer is bounded) instead of growing memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from operator import length_hint
from typing import TYPE_CHECKING, Any

from aerospike_fluent._bridge import Detached, Start, _running
from aerospike_fluent._lifecycle import ClosesOnExit
from aerospike_fluent.progress import report

if TYPE_CHECKING:
    from aerospike_fluent._native import QueryStream, Record
    from aerospike_fluent.progress import ProgressCallback


class _Base:
    __slots__ = ("_done", "_it", "_left", "_len", "_progress", "_start", "_stream")

    def __init__(
        self, stream: QueryStream, limit: int, progress: ProgressCallback | None = None
    ) -> None:
        self._stream = stream
        self._progress = progress
        self._it: Iterator[Record] = iter(())
        self._start = 0  # records handed out before the current chunk
        self._len = 0  # records in the current chunk
        self._done = False
        self._left = limit if limit > 0 else -1  # records still to hand out (-1: no limit)

    @property
    def _consumed(self) -> int:
        return self._start + self._len - length_hint(self._it)

    def _refill(self, chunk: list[Record] | None) -> bool:
        """Install the next chunk (cut to the limit); False (and closed) at the end."""
        if chunk is None or self._exhausted:
            self.close()
            return False
        if self._left >= 0:
            if len(chunk) > self._left:
                chunk = chunk[: self._left]
            self._left -= len(chunk)
        if self._progress is not None:
            report(self._progress, self._stream, self._start + self._len, False)
        self._start += self._len
        self._len = len(chunk)
        self._it = iter(chunk)
        return True

    def _last_taken(self) -> None:
        """Close once the limit's last record is taken (the caller may never ask again)."""
        if self._left == 0 and not length_hint(self._it):
            self.close()

    @property
    def _exhausted(self) -> bool:
        return self._done or self._left == 0

    def resume_token(self) -> bytes:
        """Token for ``query.resume(token)``: continues after the records this stream returned."""
        return self._stream.resume_token(self._consumed)

    def close(self) -> None:
        """Stop the query and release its buffer; idempotent."""
        if not self._done:
            self._done = True
            self._stream.close()
            self._start, self._len, self._it = self._consumed, 0, iter(())
            if self._progress is not None:
                report(self._progress, self._stream, self._start, True)


async def _turn() -> None:
    """Let the other tasks run once."""
    if _running() is not None:
        await asyncio.sleep(0)
    else:
        import trio

        await trio.lowlevel.checkpoint()


class Pull:
    """The next native fetch of a chunk.

    A cancelled waiter leaves it in flight; the next call to :meth:`next` picks its result up.
    A chunk already buffered (``ready()`` gives ``(True, chunk)``) is taken without the round
    trip through the worker, after one turn of the event loop so a fast consumer does not
    starve the other tasks.
    """

    __slots__ = ("_buffered", "_inflight", "_start")

    def __init__(self, start: Start, ready: Callable[[], tuple[bool, Any]] | None = None) -> None:
        self._start = start
        self._buffered = ready
        self._inflight: Detached | None = None

    async def next(self) -> Any:
        """Start the fetch unless one is in flight; wait for its result."""
        if self._inflight is None and self._buffered is not None:
            await _turn()
            if self._inflight is None:
                taken, chunk = self._buffered()
                if taken:
                    return chunk
        if self._inflight is None:
            self._inflight = Detached(self._start)
        result = await self._inflight.result()
        self._inflight = None
        return result

    def cancel(self) -> None:
        """Abort the fetch in flight, if any."""
        if self._inflight is not None:
            self._inflight.cancel()
            self._inflight = None


class AsyncRecordStream(_Base, ClosesOnExit):
    """``async for record in stream`` (also an async context manager that closes it).

    Cancelling the task that waits for the next record loses nothing: iterating again continues
    with the records that were on their way. Iterating again means a new ``async for`` over the
    stream, or ``anext(stream)``: on asyncio ``aiter(stream)`` is an async generator, which ends
    with the exception that cancelled it.
    """

    __slots__ = ("_pull",)

    def __init__(
        self, stream: QueryStream, limit: int, progress: ProgressCallback | None = None
    ) -> None:
        super().__init__(stream, limit, progress)
        self._pull = Pull(stream.next_chunk, stream.ready_chunk)

    def __aiter__(self) -> AsyncIterator[Record]:
        # On asyncio an async generator: resuming it costs less per record than a coroutine
        # per ``__anext__``. The stream keeps the position, so a new ``async for`` after a
        # cancellation continues where the cancelled one stopped. Not under trio, which warns
        # about every async generator left unfinished (a ``break``).
        return self._records() if _running() is not None else self

    async def _records(self) -> AsyncIterator[Record]:
        while True:
            it = self._it
            if self._left:  # more chunks may follow this one
                for record in it:
                    yield record
            else:  # the limit's last chunk: close as its last record is taken
                for record in it:
                    self._last_taken()
                    yield record
            if it is not self._it:  # someone else refilled (or closed) meanwhile
                continue
            if not self._refill(None if self._exhausted else await self._pull.next()):
                return

    async def __anext__(self) -> Record:
        while True:
            record = next(self._it, None)
            if record is not None:
                if self._left == 0:
                    self._last_taken()
                return record
            if not self._refill(None if self._exhausted else await self._pull.next()):
                raise StopAsyncIteration

    def close(self) -> None:
        """Stop the query and release its buffer; idempotent."""
        self._pull.cancel()
        super().close()


class RecordStream(_Base, ClosesOnExit):
    """``for record in stream`` (also a context manager that closes it)."""

    __slots__ = ()

    def __iter__(self) -> Iterator[Record]:
        # A generator: ``yield from`` hands out a chunk's records without a Python call each.
        return self._records()

    def _records(self) -> Iterator[Record]:
        while True:
            yield from self._it
            if self._exhausted or not self._refill(self._stream.next_chunk_blocking()):
                self.close()
                return

    def __next__(self) -> Record:
        while True:
            record = next(self._it, None)
            if record is not None:
                if self._left == 0:
                    self._last_taken()
                return record
            if not self._refill(None if self._exhausted else self._stream.next_chunk_blocking()):
                raise StopIteration


__all__ = ["AsyncRecordStream", "RecordStream"]
