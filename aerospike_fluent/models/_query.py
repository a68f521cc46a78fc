"""``query().as_(Model)``: the same query, its records returned as model instances."""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from aerospike_fluent._exec import Async, M, Sync, then
from aerospike_fluent.models._mapping import Mapping_, mapping_of
from aerospike_fluent.models._stream import AsyncModelStream, ModelStream
from aerospike_fluent.results import Page
from aerospike_fluent.streams import AsyncRecordStream

if TYPE_CHECKING:
    from aerospike_fluent.query import Query

T = TypeVar("T")


class TypedQuery(Generic[M, T]):
    """A query whose terminals return instances of a model (see :meth:`Query.as_`)."""

    __slots__ = ("_mapping", "_query")

    def __init__(self, query: Query[M], model: type[T]) -> None:
        self._query: Query[M] = query
        self._mapping: Mapping_ = mapping_of(model, query._ex.codecs)

    def __repr__(self) -> str:
        return f"{self._query!r}.as_({self._mapping.cls.__name__})"

    def _all(self, records: list[Any]) -> list[T]:
        return self._mapping.decode_many(records)

    @overload
    def collect(self: TypedQuery[Async, T]) -> Coroutine[Any, Any, list[T]]: ...
    @overload
    def collect(self: TypedQuery[Sync, T]) -> list[T]: ...
    def collect(self) -> Any:
        """Every matching record as an instance (bounded by ``limit`` when set)."""
        q = self._query
        return q._ex.run(then(q._gather(q._limit, q._chunk, self._mapping.plan), self._all))

    @overload
    def first(self: TypedQuery[Async, T]) -> Coroutine[Any, Any, T | None]: ...
    @overload
    def first(self: TypedQuery[Sync, T]) -> T | None: ...
    def first(self) -> Any:
        """Return the first matching record as an instance, or ``None``."""
        q = self._query
        found = q._gather(1, 1, self._mapping.plan)
        return q._ex.run(then(found, lambda rs: self._all(rs)[0] if rs else None))

    @overload
    def page(self: TypedQuery[Async, T], size: int) -> Coroutine[Any, Any, Page[T]]: ...
    @overload
    def page(self: TypedQuery[Sync, T], size: int) -> Page[T]: ...
    def page(self, size: int) -> Any:
        """Up to ``size`` instances and the token resuming after them (``None`` at the end)."""
        q = self._query
        q._check_page(size)
        page = q._page(size, self._mapping.plan)
        return q._ex.run(then(page, lambda p: Page(self._all(p.records), p.token)))

    @overload
    def count(self: TypedQuery[Async, T]) -> Coroutine[Any, Any, int]: ...
    @overload
    def count(self: TypedQuery[Sync, T]) -> int: ...
    def count(self) -> Any:
        """How many records match (no bin data is transferred)."""
        return self._query.count()

    @overload
    def stream(self: TypedQuery[Async, T]) -> AsyncModelStream[T]: ...
    @overload
    def stream(self: TypedQuery[Sync, T]) -> ModelStream[T]: ...
    def stream(self) -> AsyncModelStream[T] | ModelStream[T]:
        """Start the query; iterate the instances as they arrive (``async for`` / ``for``)."""
        stream = self._query._stream(self._mapping.plan)
        if isinstance(stream, AsyncRecordStream):
            return AsyncModelStream(stream, self._all)
        return ModelStream(stream, self._all)

    def __aiter__(self: TypedQuery[Async, T]) -> AsyncIterator[T]:
        return self._instances()

    async def _instances(self: TypedQuery[Async, T]) -> AsyncIterator[T]:
        async with self.stream() as stream:
            async for instance in stream:
                yield instance

    def __iter__(self: TypedQuery[Sync, T]) -> Iterator[T]:
        with self.stream() as stream:
            yield from stream
