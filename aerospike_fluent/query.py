"""Queries and scans over a set or a whole namespace.

Example:
    >>> q = users.query().where(F.bin("age") > 25).select("name").limit(100)
    >>> async for record in q.stream(): ...
    >>> n = await users.query().where("$.age > 25 and $.country == 'US'").count()
    >>> page = await users.query().page(50); more = await users.query().resume(page.token).page(50)

"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, Unpack, overload

from aerospike_fluent import _arrow, _policy, _validate
from aerospike_fluent import progress as _progress
from aerospike_fluent._aggregate import aggregate_call
from aerospike_fluent._chain import _NEW, _SET_BASE, _SET_OPS, Frozen, and_filter
from aerospike_fluent._exec import Async, Call, Executor, M, Program, Sync, then
from aerospike_fluent._index_choice import Explain, choose, conditions
from aerospike_fluent._indexes import CtxStep, IndexCollection, IndexFilter
from aerospike_fluent.background import BackgroundTask, BackgroundWrite, start
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp import Exp
from aerospike_fluent.models._query import TypedQuery
from aerospike_fluent.results import Page
from aerospike_fluent.streams import AsyncRecordStream, RecordStream

_log = logging.getLogger("aerospike_fluent.transactions")


def outside_transaction(what: str) -> None:
    """Warn that ``what``, started through a transaction, reads committed data outside it."""
    _log.warning(
        "%s through a transaction reads committed data: it does not see the transaction's "
        "writes, and its reads are not verified at commit",
        what,
    )


T = TypeVar("T")

if TYPE_CHECKING:
    from aerospike_fluent._arrow import ArrowBatches, ArrowOptions, AsyncArrowBatches
    from aerospike_fluent._native import ArrowTable, ModelPlan, QueryStream, Record
    from aerospike_fluent.progress import OnProgress

Collection = IndexCollection
PARTITIONS = 4096
DEFAULT_CHUNK = 1024


class Query(Frozen, Generic[M]):
    """An immutable query description; terminals start it."""

    __slots__ = (
        "_auto",
        "_bins",
        "_chunk",
        "_ex",
        "_filter",
        "_index",
        "_limit",
        "_limits",
        "_ns",
        "_pace",
        "_partitions",
        "_progress",
        "_set",
    )
    _fields: ClassVar[tuple[str, ...]] = (
        "_ex",
        "_ns",
        "_set",
        "_bins",
        "_filter",
        "_index",
        "_limit",
        "_partitions",
        "_chunk",
        "_limits",
        "_pace",
        "_progress",
        "_auto",
    )
    _ex: Executor[M]
    _ns: str
    _set: str
    _bins: tuple[str, ...] | None
    _filter: tuple[Any, ...] | None
    _index: tuple[Any, ...] | None
    _limit: int
    _partitions: tuple[int, int] | bytes | None
    _chunk: int
    _limits: _policy.Limits | None
    _pace: tuple[int, bool] | None
    _progress: OnProgress | None
    _auto: bool

    def __init__(self, ex: Executor[M], namespace: str, set_name: str) -> None:
        self._init(
            ex,
            namespace,
            set_name,
            None,
            None,
            None,
            0,
            None,
            DEFAULT_CHUNK,
            None,
            None,
            None,
            True,
        )

    def __repr__(self) -> str:
        return f"Query({self._ns!r}, {self._set!r})"

    # ------------------------------------------------------------------ builders
    def where(self, condition: Exp | str) -> Query[M]:
        """Keep records matching ``condition`` (expression or AEL text), evaluated server-side.

        Several ``where`` calls all apply (AND).
        """
        return self._evolve(_filter=and_filter(self._filter, condition))

    def where_index(
        self,
        source: str | Exp | None = None,
        *,
        index: str | None = None,
        collection: Collection | None = None,
        context: Sequence[CtxStep] | None = None,
    ) -> IndexFilter[M]:
        """Use a secondary index: ``.between(lo, hi)``, ``.equals(v)``, ``.within(region)``...

        ``source`` is the indexed bin (with ``context``: the value at that path inside it) or
        the indexed expression; or name the index with ``index=``.
        """
        return IndexFilter(self, source, index=index, collection=collection, context=context)

    def scan(self) -> Query[M]:
        """Read every record, filtering each: no automatic index choice (see :meth:`explain`)."""
        return self._evolve(_auto=False)

    def select(self, *bins: str) -> Query[M]:
        """Return only these bins."""
        if not bins:
            raise InvalidArgumentError("select() needs at least one bin (no_bins() for none)")
        return self._evolve(_bins=_validate.bin_names(bins))

    def no_bins(self) -> Query[M]:
        """Return records without bin data: keys, generation and TTL only."""
        return self._evolve(_bins=())

    def records_per_second(self, n: int) -> Query[M]:
        """Pace the query: each node returns at most ``n`` records per second (0: no limit)."""
        n = _validate.integer("records per second", n, 0, 2**32 - 1)
        return self._evolve(_pace=(n, self._pace[1] if self._pace else False))

    def short(self) -> Query[M]:
        """Hint that the query returns few records (the server answers it on one thread)."""
        return self._evolve(_pace=(self._pace[0] if self._pace else 0, True))

    def limit(self, n: int) -> Query[M]:
        """Stop after ``n`` records."""
        return self._evolve(_limit=_validate.integer("limit", n, 1, 2**63 - 1))

    def chunk_size(self, n: int) -> Query[M]:
        """Return records per native chunk (the unit of backpressure)."""
        return self._evolve(_chunk=_validate.integer("chunk size", n, 1, 100_000))

    def partitions(self, begin: int, count: int = 1) -> Query[M]:
        """Only partitions ``[begin, begin + count)`` of the 4096."""
        _validate.integer("partition", begin, 0, PARTITIONS - 1)
        _validate.integer("partition count", count, 1, PARTITIONS - begin)
        return self._evolve(_partitions=(begin, count))

    def resume(self, token: bytes) -> Query[M]:
        """Continue after the records a previous page or stream delivered."""
        if not isinstance(token, bytes) or not token:
            raise InvalidTypeError("a resume token is the non-empty bytes of Page.token")
        return self._evolve(_partitions=token)

    def timeout(
        self,
        total: float | timedelta | None = None,
        *,
        socket: float | timedelta | None = None,
        retries: int | None = None,
    ) -> Query[M]:
        """Limits: ``total`` / ``socket`` in seconds, ``retries`` attempts."""
        return self._evolve(_limits=_policy.limits(total, socket, retries))

    def on_progress(self, callback: OnProgress | None) -> Query[M]:
        """Report progress: ``callback(Progress)`` after each chunk and when the read ends.

        ``"tqdm"`` shows a progress bar (a widget in notebooks); ``None`` turns it off.
        See :mod:`aerospike_fluent.progress`.
        """
        return self._evolve(_progress=_progress.check(callback))

    @property
    def index_filter(self) -> tuple[Any, ...] | None:
        """The compiled secondary-index filter (native plan format)."""
        return self._index

    @property
    def filter(self) -> tuple[Any, ...] | None:
        """The compiled filter expression."""
        return self._filter

    def _plan(self, by_partition: bool = False) -> Explain:
        if self._index is not None:
            target = self._index[1]
            named = target[1] if isinstance(target, tuple) and target[0] == "index" else None
            shown = named or (f"the index on {target}" if isinstance(target, str) else "exp")
            return Explain(shown, self._index, self._filter, "where_index() chose it")
        if not self._auto:
            return Explain(None, None, self._filter, "scan() asked for no index")
        if by_partition or isinstance(self._partitions, bytes):
            return Explain(None, None, self._filter, "pages and resumed queries read partitions")
        return choose(self._filter, self._set, self._ex.indexes.cached(self._ns))

    def _refresh(self) -> Program[None]:
        """Fetch the namespace's index list when an index could serve and it is stale."""
        if self._index is None and self._auto and not isinstance(self._partitions, bytes):
            wanted = conditions(self._filter)
            if wanted:
                yield from self._ex.indexes.refresh(self._ns, wanted)

    def _fresh(self, program: Program[T]) -> Program[T]:
        yield from self._refresh()
        return (yield from program)

    def _explain(self) -> Program[Explain]:
        yield from self._refresh()
        return self._plan()

    @overload
    def explain(self: Query[Async]) -> Coroutine[Any, Any, Explain]: ...
    @overload
    def explain(self: Query[Sync]) -> Explain: ...
    def explain(self) -> Any:
        """How the query would run: the index chosen (if any) and the filter left for the server.

        ``query().where(...)`` uses a fitting secondary index by itself (the rule is in the
        Queries guide); :meth:`where_index` names one, :meth:`scan` asks for none.
        """
        return self._ex.run(self._explain())

    # ------------------------------------------------------------------ terminals
    def _open(
        self,
        limit: int,
        chunk: int,
        *,
        no_bins: bool = False,
        bins: tuple[str, ...] | None = None,
        model: ModelPlan | None = None,
        by_partition: bool = False,
    ) -> QueryStream:
        if self._ex.transaction is not None:
            outside_transaction("a query")
        plan = self._plan(by_partition)
        policy = _policy.build(filter=plan.filter, lim=self._limits, pace=self._pace)
        selected = self._bins if bins is None else bins
        if no_bins or selected == ():
            names: list[str] | None = []
        else:
            names = None if selected is None else list(selected)
        stream = self._ex.native.query(
            self._ns,
            self._set,
            names,
            plan.index_filter,
            policy,
            limit,
            self._partitions,
            chunk,
        )
        if model is not None:
            stream.set_model(model)
        return stream

    def background(self) -> BackgroundWrite[M]:
        """Operations to apply to every selected record, on the servers (end with ``execute()``)."""
        chain: BackgroundWrite[M] = _NEW(BackgroundWrite)
        _SET_BASE(chain, (self._ex, self._filter, self._limits, self))
        _SET_OPS(chain, ())
        return chain

    @overload
    def background_udf(
        self: Query[Async], module: str, function: str, *args: Any
    ) -> Coroutine[Any, Any, BackgroundTask[Async]]: ...
    @overload
    def background_udf(
        self: Query[Sync], module: str, function: str, *args: Any
    ) -> BackgroundTask[Sync]: ...
    def background_udf(self, module: str, function: str, *args: Any) -> Any:
        """Run record UDF ``module.function(*args)`` on every selected record, on the servers."""
        for what, name in (("module", module), ("function", function)):
            if not isinstance(name, str) or not name:
                raise InvalidArgumentError(f"udf {what} must be a non-empty str")
        _validate.value("udf args", list(args))
        return start(self, self._filter, self._limits, udf=(module, function, list(args)))

    @overload
    def stream(self: Query[Async]) -> AsyncRecordStream: ...
    @overload
    def stream(self: Query[Sync]) -> RecordStream: ...
    def stream(self) -> AsyncRecordStream | RecordStream:
        """Start the query; iterate the records as they arrive (``async for`` / ``for``)."""
        return self._stream(None)

    def _stream(self, model: ModelPlan | None) -> AsyncRecordStream | RecordStream:
        if not self._ex.is_async:  # an async stream starts at once: it uses the list known
            self._ex.run(self._refresh())
        stream = self._open(self._limit, self._chunk, model=model)
        progress = _progress.callback(self._progress)
        if self._ex.is_async:
            return AsyncRecordStream(stream, self._limit, progress)
        return RecordStream(stream, self._limit, progress)

    def __aiter__(self: Query[Async]) -> AsyncIterator[Record]:
        return self.stream().__aiter__()

    def __iter__(self: Query[Sync]) -> Iterator[Record]:
        return iter(self.stream())

    # ------------------------------------------------------------------ Arrow
    @overload
    def arrow_batches(self: Query[Async], **options: Unpack[ArrowOptions]) -> AsyncArrowBatches: ...
    @overload
    def arrow_batches(self: Query[Sync], **options: Unpack[ArrowOptions]) -> ArrowBatches: ...
    def arrow_batches(self, **options: Unpack[ArrowOptions]) -> AsyncArrowBatches | ArrowBatches:
        """Start the query; iterate it as Arrow record batches (``async for`` / ``for``).

        Each item is an :class:`ArrowTable` of at most ``rows`` rows (default 4096), built
        natively; memory stays bounded by a few batches. Options: ``schema``, ``rows``,
        ``key``, ``digest``, ``generation``, ``ttl`` (see :meth:`to_arrow`). Without a schema
        the first batch fixes the columns, so a bin first seen later raises
        :class:`~aerospike_fluent.errors.ArrowSchemaError`: on a cluster each batch comes from
        one node, so pass a schema (or ``select()`` the bins) when records differ.
        """
        reader = _arrow.reader(self._arrow_stream, self._bins, self._limit, options, whole=False)
        progress = _progress.callback(self._progress)
        if self._ex.is_async:
            return _arrow.AsyncArrowBatches(reader, progress)
        return _arrow.ArrowBatches(reader, progress)

    @overload
    def to_arrow(
        self: Query[Async], **options: Unpack[ArrowOptions]
    ) -> Coroutine[Any, Any, ArrowTable]: ...
    @overload
    def to_arrow(self: Query[Sync], **options: Unpack[ArrowOptions]) -> ArrowTable: ...
    def to_arrow(self, **options: Unpack[ArrowOptions]) -> Any:
        """Every matching record in one :class:`ArrowTable` (``pyarrow.table(t)``, polars...).

        Options: ``schema``, an Arrow schema (else the columns and types come from the
        records: every bin in order of first appearance, missing bins null, ints among floats
        floats); ``rows``, rows per record
        batch; ``key``, ``digest``, ``generation``, ``ttl``: ``True`` (or a column name) to
        add that metadata column. A value that does not fit its column raises
        :class:`~aerospike_fluent.errors.ArrowSchemaError` naming the bin.
        """
        return self._ex.run(self._arrow_table(options))

    @overload
    def to_pandas(
        self: Query[Async], **options: Unpack[ArrowOptions]
    ) -> Coroutine[Any, Any, Any]: ...
    @overload
    def to_pandas(self: Query[Sync], **options: Unpack[ArrowOptions]) -> Any: ...
    def to_pandas(self, **options: Unpack[ArrowOptions]) -> Any:
        """:meth:`to_arrow` as a ``pandas.DataFrame`` (needs pandas and pyarrow)."""
        return self._ex.run(then(self._arrow_table(options), _arrow.to_pandas))

    @overload
    def to_polars(
        self: Query[Async], **options: Unpack[ArrowOptions]
    ) -> Coroutine[Any, Any, Any]: ...
    @overload
    def to_polars(self: Query[Sync], **options: Unpack[ArrowOptions]) -> Any: ...
    def to_polars(self, **options: Unpack[ArrowOptions]) -> Any:
        """:meth:`to_arrow` as a ``polars.DataFrame`` (needs polars)."""
        return self._ex.run(then(self._arrow_table(options), _arrow.to_polars))

    def _arrow_stream(self, chunk: int, bins: tuple[str, ...] | None) -> QueryStream:
        return self._open(self._limit, chunk, bins=bins)

    def _arrow_table(self, options: ArrowOptions) -> Program[ArrowTable]:
        reader = _arrow.reader(self._arrow_stream, self._bins, self._limit, options, whole=True)
        return self._fresh(_arrow.table_program(reader, _progress.callback(self._progress)))

    # ------------------------------------------------------------------ records
    @overload
    def collect(self: Query[Async]) -> Coroutine[Any, Any, list[Record]]: ...
    @overload
    def collect(self: Query[Sync]) -> list[Record]: ...
    def collect(self) -> Any:
        """All matching records in a list (bounded by ``limit`` when set)."""
        return self._ex.run(self._fresh(self._gather(self._limit, self._chunk)))

    @overload
    def first(self: Query[Async]) -> Coroutine[Any, Any, Record | None]: ...
    @overload
    def first(self: Query[Sync]) -> Record | None: ...
    def first(self) -> Any:
        """Return the first matching record, or ``None``."""
        return self._ex.run(_first(self._fresh(self._gather(1, 1))))

    @overload
    def count(self: Query[Async]) -> Coroutine[Any, Any, int]: ...
    @overload
    def count(self: Query[Sync]) -> int: ...
    def count(self) -> Any:
        """How many records match (no bin data is transferred)."""
        return self._ex.run(self._fresh(self._count()))

    @overload
    def page(self: Query[Async], size: int) -> Coroutine[Any, Any, Page[Record]]: ...
    @overload
    def page(self: Query[Sync], size: int) -> Page[Record]: ...
    def page(self, size: int) -> Any:
        """Up to ``size`` records and the token to resume after them (``None`` at the end)."""
        self._check_page(size)
        return self._ex.run(self._page(size))

    def _check_page(self, size: int) -> None:
        _validate.integer("page size", size, 1, 2**31 - 1)
        if self._limit:
            raise InvalidArgumentError(
                f"page({size}) after limit({self._limit}): a page is bounded by its size; "
                "drop limit() or use page(min(size, limit))"
            )

    def as_(self, model: type[T]) -> TypedQuery[M, T]:
        """Return this query with its records as instances of ``model``.

        A dataclass, pydantic model, attrs class, msgspec Struct or TypedDict: ``collect()``,
        ``first()``, ``page()``, ``stream()`` and iteration return instances; ``count()``
        counts. For DataFrames, read the query itself (``to_arrow()``...).
        """
        return TypedQuery(self, model)

    @overload
    def aggregate(
        self: Query[Async], module: str, function: str, *args: Any
    ) -> Coroutine[Any, Any, list[Any]]: ...
    @overload
    def aggregate(self: Query[Sync], module: str, function: str, *args: Any) -> list[Any]: ...
    def aggregate(self, module: str, function: str, *args: Any) -> Any:
        """Run stream UDF ``module.function(stream, *args)`` over the matching records.

        Returns the stream's final values (one for a function ending in ``reduce``). Select
        records with ``where_index()``: a server refuses ``where()`` expressions and
        ``short()`` here, so filter inside the stream function instead.
        """
        unsupported = [
            name
            for name, used in (
                ("select()/no_bins()", self._bins is not None),
                ("limit()", self._limit),
                ("partitions()/resume()", self._partitions is not None),
            )
            if used
        ]
        if self._ex.transaction is not None:
            outside_transaction("an aggregation")
        policy = _policy.build(filter=self._filter, lim=self._limits, pace=self._pace)
        call = aggregate_call(
            self._ns,
            self._set,
            self._index,
            policy,
            module,
            function,
            args,
            unsupported,
            where=self._filter is not None,
            short=self._pace is not None and self._pace[1],
        )
        return self._ex.call(call)

    # ------------------------------------------------------------------ programs
    def _gather(
        self, limit: int, chunk: int, model: ModelPlan | None = None
    ) -> Program[list[Record]]:
        stream = self._open(limit, min(chunk, limit) if limit else chunk, model=model)
        progress = _progress.callback(self._progress)
        out: list[Record] = []
        try:
            while True:
                records = yield Call("next_chunk", (), target=stream)
                if records is None:
                    break
                out.extend(records)
                if limit and len(out) >= limit:
                    del out[limit:]
                    break
                _progress.report(progress, stream, len(out), False)
        finally:
            stream.close()
            _progress.report(progress, stream, len(out), True)
        return out

    def _count(self) -> Program[int]:
        stream = self._open(self._limit, max(self._chunk, 1024), no_bins=True)
        n = 0
        try:
            while True:
                records = yield Call("next_chunk", (), target=stream)
                if records is None:
                    break
                n += len(records)
        finally:
            stream.close()
        return min(n, self._limit) if self._limit else n

    def _page(self, size: int, model: ModelPlan | None = None) -> Program[Page[Record]]:
        # No max_records: a cluster splits it between nodes and may stop short of `size` with
        # records left. The page ends when `size` records came (the token marks exactly those)
        # or the stream ended (no token).
        stream = self._open(0, min(self._chunk, size), model=model, by_partition=True)
        out: list[Record] = []
        try:
            while len(out) < size:
                records = yield Call("next_chunk", (), target=stream)
                if records is None:
                    return Page(out, None)
                out.extend(records)
            return Page(out[:size], stream.resume_token(size))
        finally:
            stream.close()


def _first(program: Program[list[Record]]) -> Program[Record | None]:
    records = yield from program
    return records[0] if records else None
