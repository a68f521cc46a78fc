"""Arrow reads: query chunks as Arrow record batches, built natively.

No Python object per record: the native core converts each chunk to a record batch. The plumbing
behind ``to_arrow`` (one table) and ``arrow_batches`` (batch by batch).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar

from aerospike_fluent import _native, _validate
from aerospike_fluent._exec import Call, Program
from aerospike_fluent._lifecycle import ClosesOnExit
from aerospike_fluent._native import ArrowTable
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.progress import ProgressCallback, report
from aerospike_fluent.streams import Pull

if TYPE_CHECKING:
    from aerospike_fluent._native import ArrowReader, QueryStream

T = TypeVar("T")

DEFAULT_ROWS = 4096
"""Rows per record batch (the chunk a query fetches): memory stays bounded by a few of them."""

MetaColumn = bool | str
"""A metadata column: ``True`` for its default name, a string for another name, ``False``."""


class ColumnOptions(TypedDict, total=False):
    """Columns of an Arrow read.

    ``schema``: an Arrow schema (any object with ``__arrow_c_schema__``, such as a
    ``pyarrow.Schema``); without one, the columns and their types are inferred from the
    records (for batches, from the first batch).
    ``key``, ``digest``, ``generation``, ``ttl``: add that metadata column (``True``, or a
    column name).
    ``mixed_types``: ``"str"`` makes a bin whose values have no one column type (ints in
    some records, strings in others) a string column of their text; without it such a bin
    raises ``ArrowSchemaError``.
    """

    schema: object
    mixed_types: Literal["str"] | None
    key: MetaColumn
    digest: MetaColumn
    generation: MetaColumn
    ttl: MetaColumn


class BatchArrowOptions(ColumnOptions, total=False):
    """Columns of an Arrow batch read.

    ``found``: add a boolean column, false in the rows of the keys whose record was not found
    (``True``, or a column name).
    """

    found: MetaColumn


class ArrowOptions(ColumnOptions, total=False):
    """Columns of an Arrow query, and ``rows``: rows per record batch (the chunk fetched)."""

    rows: int


_BATCH_OPTIONS = frozenset(BatchArrowOptions.__annotations__)
_OPTIONS = frozenset(ArrowOptions.__annotations__)


def _meta(value: object, default: str) -> str | None:
    if value is False or value is None:
        return None
    if value is True:
        return default
    if isinstance(value, str) and value:
        return value
    raise InvalidTypeError(f"{default}= takes True, False or a column name, not {value!r}")


def spec(
    options: Mapping[str, Any], bins: tuple[str, ...] | None, *, batch: bool
) -> _native.ArrowSpec:
    """Check the columns asked for (``bins``: the selected bins, if any)."""
    _validate.known_names("Arrow option", options, _BATCH_OPTIONS if batch else _OPTIONS)
    return _native.ArrowSpec(
        options.get("schema"),
        None if bins is None else list(bins),
        key=_meta(options.get("key", False), "key"),
        digest=_meta(options.get("digest", False), "digest"),
        generation=_meta(options.get("generation", False), "generation"),
        ttl=_meta(options.get("ttl", False), "ttl"),
        mixed=options.get("mixed_types"),
        found=_meta(options.get("found", False), "found") if batch else None,
    )


def bins_to_read(selected: tuple[str, ...] | None, s: _native.ArrowSpec) -> tuple[str, ...] | None:
    """Bins the server sends: the selection, else the schema's bins (no schema: all)."""
    if selected is not None:
        return selected
    from_schema = s.schema_bins
    if from_schema is not None and not from_schema:
        raise InvalidArgumentError("the schema has no bin column")
    return None if from_schema is None else tuple(from_schema)


def reader(
    open_stream: Callable[[int, tuple[str, ...] | None], QueryStream],
    selected: tuple[str, ...] | None,
    limit: int,
    options: ArrowOptions,
    *,
    whole: bool,
) -> ArrowReader:
    """Start a query (``open_stream(chunk, bins)``) and read it as record batches.

    ``whole``: the batches make one table, so inferred columns grow to fit every batch; else
    the first batch fixes them.
    """
    s = spec(options, selected, batch=False)
    rows = _validate.integer("rows", options.get("rows", DEFAULT_ROWS), 1, 100_000)
    stream = open_stream(min(rows, limit) if limit else rows, bins_to_read(selected, s))
    return _native.ArrowReader(stream, s, limit, whole)


def table_program(reader: ArrowReader, progress: ProgressCallback | None) -> Program[ArrowTable]:
    """Every batch of ``reader`` in one table."""
    stream = reader.stream
    tables: list[ArrowTable] = []
    done = 0
    try:
        while True:
            table = yield Call("next_batch", (), target=reader)
            if table is None:
                break
            tables.append(table)
            done += table.num_rows
            report(progress, stream, done, False)
    finally:
        stream.close()
        report(progress, stream, done, True)
    return ArrowTable.concat(tables) if tables else reader.empty()


class _Batches(ClosesOnExit):
    __slots__ = ("_done", "_progress", "_reader", "_rows")

    def __init__(self, reader: ArrowReader, progress: ProgressCallback | None) -> None:
        self._reader = reader
        self._progress = progress
        self._done = False
        self._rows = 0

    def _deliver(self, table: ArrowTable | None) -> ArrowTable | None:
        if table is None:
            self.close()
            return None
        self._rows += table.num_rows
        report(self._progress, self._reader.stream, self._rows, False)
        return table

    def resume_token(self) -> bytes:
        """Token for ``query.resume(token)``: continues after the batches returned so far."""
        return self._reader.stream.resume_token(self._rows)

    def close(self) -> None:
        """Stop the query; idempotent."""
        if not self._done:
            self._done = True
            self._reader.stream.close()
            report(self._progress, self._reader.stream, self._rows, True)


class AsyncArrowBatches(_Batches):
    """``async for batch in batches``: one :class:`ArrowTable` of up to ``rows`` rows each.

    Also an async context manager that closes it. Cancelling the waiting task loses nothing.
    """

    __slots__ = ("_pull",)

    def __init__(self, reader: ArrowReader, progress: ProgressCallback | None) -> None:
        super().__init__(reader, progress)
        self._pull = Pull(reader.next_batch)

    def __aiter__(self) -> AsyncArrowBatches:
        return self

    async def __anext__(self) -> ArrowTable:
        table = None if self._done else self._deliver(await self._pull.next())
        if table is None:
            raise StopAsyncIteration
        return table

    def close(self) -> None:
        """Stop the query; idempotent."""
        self._pull.cancel()
        super().close()


class ArrowBatches(_Batches):
    """``for batch in batches``: one :class:`ArrowTable` of up to ``rows`` rows each.

    Also a context manager that closes it.
    """

    __slots__ = ()

    def __iter__(self) -> ArrowBatches:
        return self

    def __next__(self) -> ArrowTable:
        table = None if self._done else self._deliver(self._reader.next_batch_blocking())
        if table is None:
            raise StopIteration
        return table


def to_pandas(table: Any) -> Any:
    """``table.to_pandas()`` (a finish step for a program)."""
    return table.to_pandas()


def to_polars(table: Any) -> Any:
    """``table.to_polars()`` (a finish step for a program)."""
    return table.to_polars()


__all__ = ["DEFAULT_ROWS", "ArrowBatches", "ArrowTable", "AsyncArrowBatches", "MetaColumn"]
