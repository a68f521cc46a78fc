"""Record streams over a native query, pulled chunk by chunk.

A slow consumer holds back the producer (the native buffer is bounded) instead of growing memory.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from aerospike_fluent._bridge import Detached

if TYPE_CHECKING:
    from aerospike_fluent._native import QueryStream, Record


class _Base:
    __slots__ = ("_buf", "_consumed", "_done", "_left", "_pos", "_stream")

    def __init__(self, stream: QueryStream, limit: int) -> None:
        self._stream = stream
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


class AsyncRecordStream(_Base):
    """``async for record in stream`` (also an async context manager that closes it).

    Cancelling the task that waits for the next record loses nothing: iterating again continues
    with the records that were on their way.
    """

    __slots__ = ("_inflight",)

    def __init__(self, stream: QueryStream, limit: int) -> None:
        super().__init__(stream, limit)
        self._inflight: Detached | None = None

    def __aiter__(self) -> AsyncRecordStream:
        return self

    async def __anext__(self) -> Record:
        while True:
            record = self._take()
            if record is not None:
                return record
            if self._exhausted:
                raise StopAsyncIteration
            self._refill(await self._next_chunk())

    async def _next_chunk(self) -> list[Record] | None:
        # A cancelled iteration leaves the fetch in flight; the next one picks its chunk up.
        if self._inflight is None:
            self._inflight = Detached(self._stream.next_chunk)
        chunk: list[Record] | None = await self._inflight.result()
        self._inflight = None
        return chunk

    def close(self) -> None:
        """Stop the query and release its buffer; idempotent."""
        if self._inflight is not None:
            self._inflight.cancel()
            self._inflight = None
        super().close()

    async def aclose(self) -> None:
        """Close the stream."""
        self.close()

    async def __aenter__(self) -> AsyncRecordStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class RecordStream(_Base):
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

    def __enter__(self) -> RecordStream:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


__all__ = ["AsyncRecordStream", "RecordStream"]
