"""Batch reads as Arrow (``to_arrow()``, ``to_pandas()``, ``to_polars()``) and numpy.

A row per key, in key order (a missing record's row is null but for its key); a row that fails
raises its error. Built natively, without a Python object per record.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING, Any, Generic, Unpack, overload

from aerospike_fluent import _arrow, _numpy, _validate
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
        read = None if names is None else list(names)
        # built by zip in C: a third quicker than a comprehension for 50,000 keys
        rows = list(zip(repeat("read"), self._keys, repeat(read), repeat(False), repeat(policy)))
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
        """Read the records (only ``bins`` when given) into one :class:`ArrowTable`.

        A row per key, in order; a missing record's row is null but for the key and digest.

        Options as :meth:`Query.to_arrow <aerospike_fluent.query.Query.to_arrow>`
        (``schema``, ``key``, ``digest``, ``generation``, ``ttl``), without ``rows``, and
        ``found``: a boolean column, false where the record was not found.
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

    @overload
    def to_numpy(
        self: KeysArrow[Async], *bins: str, dtype: object = None
    ) -> Coroutine[Any, Any, Any]: ...
    @overload
    def to_numpy(self: KeysArrow[Sync], *bins: str, dtype: object = None) -> Any: ...
    def to_numpy(self, *bins: str, dtype: object = None) -> Any:
        """Read the records into a numpy structured array: a row per key, in order.

        Its first field, ``found`` (bool), is false where the record was not found; then a
        field per bin (``bins``, else every bin read). ``dtype``: a structured dtype whose
        fields name the bins to read (checked against their values); without it, each field's
        type comes from the values (ints ``int64``, floats ``float64``, other values
        ``object``). A value a row lacks is the field's zero (``None`` in ``object`` fields).
        Needs numpy and pyarrow.
        """
        if _numpy.FOUND in bins:
            raise InvalidArgumentError(
                f"to_numpy() names its own field {_numpy.FOUND!r}: read that bin with to_arrow()"
            )
        dt = None
        options: BatchArrowOptions = {"found": _numpy.FOUND}
        if dtype is not None:
            dt, bins = _numpy.dtype_of(dtype, bins)
            schema = _numpy.schema_of(dt)
            if schema is not None:
                options["schema"] = schema
        call = self._arrow_call(bins, options)
        return self._ex.call(call._replace(finish=partial(_numpy.structured, dtype=dt)))
