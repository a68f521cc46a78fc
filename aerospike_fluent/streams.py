"""Record streams over a native query, pulled chunk by chunk.

A slow consumer holds back the producer (the native buffer is bounded) instead of growing memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aerospike_fluent._bridge import Detached, Start
from aerospike_fluent._lifecycle import ClosesOnExit
from aerospike_fluent.progress import report

if TYPE_CHECKING:
    from aerospike_fluent._native import QueryStream, Record
    from aerospike_fluent.progress import ProgressCallback


class _Base:
    __slots__ = ("_buf", "_consumed", "_done", "_left", "_pos", "_progress", "_stream")

    def __init__(
        self, stream: QueryStream, limit: int, progress: ProgressCallback | None = None
    ) -> None:
        self._stream = stream
        self._progress = progress
        self._buf: list[Record] = []
        self._pos = 0
        self._consumed = 0
        self._done = False
        self._left = limit if limit > 0 else -1

    def _take(self) -> Record | None:
        if self._pos < len(self._buf) and self._left != 0:
            record = self._buf[self._pos]
            self._pos += 1
            self._consumed += 1
            if self._left > 0:
                self._left -= 1
                if self._left == 0:
                    self.close()
            return record
        return None

    def _refill(self, chunk: list[Record] | None) -> None:
        if chunk is None:
            self.close()
        else:
            if self._progress is not None:
                report(self._progress, self._stream, self._consumed, False)
            self._buf = chunk
            self._pos = 0

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
            if self._progress is not None:
                report(self._progress, self._stream, self._consumed, True)


class Pull:
    """The next native fetch of a chunk.

    A cancelled waiter leaves it in flight; the next call to :meth:`next` picks its result up.
    """

    __slots__ = ("_inflight", "_start")

    def __init__(self, start: Start) -> None:
        self._start = start
        self._inflight: Detached | None = None

    async def next(self) -> Any:
        """Start the fetch unless one is in flight; wait for its result."""
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
    with the records that were on their way.
    """

    __slots__ = ("_pull",)

    def __init__(
        self, stream: QueryStream, limit: int, progress: ProgressCallback | None = None
    ) -> None:
        super().__init__(stream, limit, progress)
        self._pull = Pull(stream.next_chunk)

    def __aiter__(self) -> AsyncRecordStream:
        return self

    async def __anext__(self) -> Record:
        while True:
            record = self._take()
            if record is not None:
                return record
            if self._exhausted:
                raise StopAsyncIteration
            self._refill(await self._pull.next())

    def close(self) -> None:
        """Stop the query and release its buffer; idempotent."""
        self._pull.cancel()
        super().close()


class RecordStream(_Base, ClosesOnExit):
    """``for record in stream`` (also a context manager that closes it)."""

    __slots__ = ()

    def __iter__(self) -> RecordStream:
        return self

    def __next__(self) -> Record:
        while True:
            record = self._take()
            if record is not None:
                return record
            if self._exhausted:
                raise StopIteration
            self._refill(self._stream.next_chunk_blocking())


__all__ = ["AsyncRecordStream", "RecordStream"]
