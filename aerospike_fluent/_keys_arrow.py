"""Batch reads as Arrow: ``keys(...).to_arrow()``, ``to_pandas()``, ``to_polars()``.

A row per record found, in key order (missing records have no row); a row that fails raises
its error. Built natively, without a Python object per record.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Generic, Unpack, overload

from aerospike_fluent import _arrow, _validate
from aerospike_fluent._exec import Async, Call, M, Sync
from aerospike_fluent.errors import InvalidArgumentError

if TYPE_CHECKING:
    from aerospike_fluent import _native
    from aerospike_fluent._arrow import BatchArrowOptions
    from aerospike_fluent._exec import Executor
    from aerospike_fluent._native import ArrowTable
    from aerospike_fluent._types import Key


class KeysArrow(Generic[M]):
    """The Arrow terminals of :class:`~aerospike_fluent.keys.KeysRef`."""

    __slots__ = ()

    if TYPE_CHECKING:
        _ops: tuple[Any, ...]

        @property
        def _ex(self) -> Executor[M]: ...
        @property
        def _keys(self) -> tuple[Key, ...]: ...

        _policy: Callable[..., Any]

        def _batch_policy(self) -> _native.Policy | None: ...

    def _arrow_call(self, bins: tuple[str, ...], options: BatchArrowOptions) -> Call:
        if self._ops:
            raise InvalidArgumentError(
                "to_arrow() reads bins: run the chained operations with execute() first"
            )
        selected = _validate.bin_names(bins) if bins else None
        spec = _arrow.spec(options, selected, batch=True)
        names = _arrow.bins_to_read(selected, spec)
        policy = self._policy()
        rows = [
            ("read", k, None if names is None else list(names), False, policy) for k in self._keys
        ]
        return Call("batch_arrow", (rows, self._batch_policy(), spec))

    @overload
    def to_arrow(
        self: KeysArrow[Async], *bins: str, **options: Unpack[BatchArrowOptions]
    ) -> Coroutine[Any, Any, ArrowTable]: ...
    @overload
    def to_arrow(
        self: KeysArrow[Sync], *bins: str, **options: Unpack[BatchArrowOptions]
    ) -> ArrowTable: ...
    def to_arrow(self, *bins: str, **options: Unpack[BatchArrowOptions]) -> Any:
        """Read the records found (only ``bins`` when given) into one :class:`ArrowTable`.

        Options as :meth:`Query.to_arrow <aerospike_fluent.query.Query.to_arrow>`
        (``schema``, ``key``, ``digest``, ``generation``, ``ttl``), without ``rows``.
        """
        return self._ex.call(self._arrow_call(bins, options))

    @overload
    def to_pandas(
        self: KeysArrow[Async], *bins: str, **options: Unpack[BatchArrowOptions]
    ) -> Coroutine[Any, Any, Any]: ...
    @overload
    def to_pandas(
        self: KeysArrow[Sync], *bins: str, **options: Unpack[BatchArrowOptions]
    ) -> Any: ...
    def to_pandas(self, *bins: str, **options: Unpack[BatchArrowOptions]) -> Any:
        """:meth:`to_arrow` as a ``pandas.DataFrame`` (needs pandas and pyarrow)."""
        return self._ex.call(self._arrow_call(bins, options)._replace(finish=_arrow.to_pandas))

    @overload
    def to_polars(
        self: KeysArrow[Async], *bins: str, **options: Unpack[BatchArrowOptions]
    ) -> Coroutine[Any, Any, Any]: ...
    @overload
    def to_polars(
        self: KeysArrow[Sync], *bins: str, **options: Unpack[BatchArrowOptions]
    ) -> Any: ...
    def to_polars(self, *bins: str, **options: Unpack[BatchArrowOptions]) -> Any:
        """:meth:`to_arrow` as a ``polars.DataFrame`` (needs polars)."""
        return self._ex.call(self._arrow_call(bins, options)._replace(finish=_arrow.to_polars))
