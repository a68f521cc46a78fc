"""``query().as_(Model)``: the same query, its records returned as model instances."""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from aerospike_fluent._exec import Async, M, Sync, then
from aerospike_fluent.models import codecs as _codecs
from aerospike_fluent.models._mapping import Mapping_, mapping_of
from aerospike_fluent.results import Page

if TYPE_CHECKING:
    from aerospike_fluent.query import Query

T = TypeVar("T")


class TypedQuery(Generic[M, T]):
    """A query whose terminals return instances of a model (see :meth:`Query.as_`)."""

    __slots__ = ("_mapping", "_query")

    def __init__(self, query: Query[M], model: type[T]) -> None:
        self._query: Query[M] = query
        self._mapping: Mapping_ = mapping_of(model, _codecs.DEFAULT)

    def __repr__(self) -> str:
        return f"{self._query!r}.as_({self._mapping.cls.__name__})"

    def _one(self, record: Any) -> T:
        return self._mapping.decode(record)  # type: ignore[no-any-return]

    def _all(self, records: list[Any]) -> list[T]:
        decode = self._mapping.decode
        return [decode(r) for r in records]

    @overload
    def collect(self: TypedQuery[Async, T]) -> Coroutine[Any, Any, list[T]]: ...
    @overload
    def collect(self: TypedQuery[Sync, T]) -> list[T]: ...
    def collect(self) -> Any:
        """Every matching record as an instance (bounded by ``limit`` when set)."""
        q = self._query
        return q._ex.run(then(q._gather(q._limit, q._chunk), self._all))

    @overload
    def first(self: TypedQuery[Async, T]) -> Coroutine[Any, Any, T | None]: ...
    @overload
    def first(self: TypedQuery[Sync, T]) -> T | None: ...
    def first(self) -> Any:
        """Return the first matching record as an instance, or ``None``."""
        q = self._query
        return q._ex.run(then(q._gather(1, 1), lambda rs: self._one(rs[0]) if rs else None))

    @overload
    def page(self: TypedQuery[Async, T], size: int) -> Coroutine[Any, Any, Page[T]]: ...
    @overload
    def page(self: TypedQuery[Sync, T], size: int) -> Page[T]: ...
    def page(self, size: int) -> Any:
        """Up to ``size`` instances and the token resuming after them (``None`` at the end)."""
        q = self._query
        q._check_page(size)
        return q._ex.run(then(q._page(size), lambda p: Page(self._all(p.records), p.token)))

    def __aiter__(self: TypedQuery[Async, T]) -> AsyncIterator[T]:
        return self._instances()

    async def _instances(self: TypedQuery[Async, T]) -> AsyncIterator[T]:
        decode = self._mapping.decode
        async with self._query.stream() as stream:
            async for record in stream:
                yield decode(record)

    def __iter__(self: TypedQuery[Sync, T]) -> Iterator[T]:
        decode = self._mapping.decode
        with self._query.stream() as stream:
            for record in stream:
                yield decode(record)
