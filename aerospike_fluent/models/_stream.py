"""``query().as_(Model).stream()``: a record stream whose records are model instances."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Generic, TypeVar

from aerospike_fluent._lifecycle import ClosesOnExit
from aerospike_fluent._native import Record
from aerospike_fluent.streams import AsyncRecordStream, RecordStream

T = TypeVar("T")


class _Instances(ClosesOnExit, Generic[T]):
    __slots__ = ("_decode", "_stream")

    def __init__(
        self, stream: AsyncRecordStream | RecordStream, decode: Callable[[list[Any]], list[T]]
    ) -> None:
        self._stream = stream
        self._decode = decode

    def _instance(self, record: Any) -> T:
        # the native stream builds the instances itself when it can; the rest come as records
        return record if type(record) is not Record else self._decode([record])[0]

    def resume_token(self) -> bytes:
        """Token for ``query.resume(token)``: continues after the instances handed out."""
        return self._stream.resume_token()

    def close(self) -> None:
        """Stop the query and release its buffer; idempotent."""
        self._stream.close()


class AsyncModelStream(_Instances[T]):
    """``async for instance in stream`` (an async context manager that closes it)."""

    __slots__ = ()

    def __aiter__(self) -> AsyncIterator[T]:
        return self

    async def __anext__(self) -> T:
        assert isinstance(self._stream, AsyncRecordStream)
        return self._instance(await self._stream.__anext__())


class ModelStream(_Instances[T]):
    """``for instance in stream`` (a context manager that closes it)."""

    __slots__ = ()

    def __iter__(self) -> Iterator[T]:
        assert isinstance(self._stream, RecordStream)
        instance = self._instance
        for record in self._stream:  # the stream's generator: no Python call per record
            yield instance(record)

    def __next__(self) -> T:
        assert isinstance(self._stream, RecordStream)
        return self._instance(next(self._stream))
