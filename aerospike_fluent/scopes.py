"""Namespace and set scopes: where keys, queries, indexes and truncation start."""

from __future__ import annotations

from collections.abc import Coroutine, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypedDict, TypeVar, Unpack, overload

from aerospike_fluent import _native, _policy, _validate
from aerospike_fluent._arrow_write import ArrowWriteResult, WriteMode, put_arrow
from aerospike_fluent._chain import _NEW, _SET_BASE, _SET_OPS, Frozen
from aerospike_fluent._exec import Async, Call, Executor, M, Program, Sync, discard, then
from aerospike_fluent._indexes import (
    INDEX_NAME_MAX,
    CtxStep,
    IndexCollection,
    IndexType,
    create_index,
    definition,
)
from aerospike_fluent._policy import TTL
from aerospike_fluent._policy import expiry as _expiry
from aerospike_fluent._types import Key
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp import Exp
from aerospike_fluent.keys import KeyRef, KeysRef
from aerospike_fluent.models._mapping import is_model, mapping_of, to_bins
from aerospike_fluent.progress import (
    OnWriteProgress,
    WriteProgress,
    WriteProgressCallback,
    write_callback,
)
from aerospike_fluent.query import Query
from aerospike_fluent.results import BatchResult, whole

if TYPE_CHECKING:
    import polars as pl

    from aerospike_fluent.polars import ScanOptions

T = TypeVar("T")


class ArrowWriteOptions(TypedDict, total=False):
    """The options of :meth:`RecordSet.put_arrow`."""

    mode: WriteMode
    ttl: TTL
    expire_at: datetime | None
    send_key: bool | None
    batch_size: int
    concurrency: int
    timeout: float | None
    progress: OnWriteProgress | None
    raise_on_error: bool


ARROW_WRITE_DEFAULTS: ArrowWriteOptions = {
    "mode": "upsert",
    "ttl": None,
    "expire_at": None,
    "send_key": True,
    "batch_size": 5000,
    "concurrency": 4,
    "timeout": None,
    "progress": None,
    "raise_on_error": False,
}


class _Scope(Frozen, Generic[M]):
    __slots__ = ("_ex", "_ns", "_set")
    _fields: ClassVar[tuple[str, ...]] = ("_ex", "_ns", "_set")
    _ex: Executor[M]
    _ns: str
    _set: str

    @property
    def namespace_name(self) -> str:
        """The namespace name."""
        return self._ns

    def _key(self, key: object) -> Key:
        return (self._ns, self._set, _validate.user_key(key), None)

    def key(self, key: str | int | bytes | bytearray) -> KeyRef[M]:
        """One record by user key."""
        ref: KeyRef[M] = _NEW(KeyRef)  # KeyRef.__init__ inlined: once per single-record call
        _SET_BASE(ref, (self._ex, None, None, (self._ns, self._set, _validate.user_key(key), None)))
        _SET_OPS(ref, ())
        return ref

    def digest(self, digest: bytes) -> KeyRef[M]:
        """One record by its 20-byte digest."""
        return KeyRef(self._ex, (self._ns, self._set, None, _validate.digest(digest)))

    def keys(self, keys: Iterable[str | int | bytes | bytearray]) -> KeysRef[M]:
        """Many records by user key; their verbs are one batch request."""
        if isinstance(keys, str | bytes) or not isinstance(keys, Iterable):
            raise InvalidTypeError("keys() takes an iterable of keys (a list, a range...)")
        if not isinstance(keys, list | tuple):
            keys = list(keys)
        made: tuple[Key, ...] | None = _native.key_tuples(self._ns, self._set, keys)
        if made is None:
            made = tuple(self._key(k) for k in keys)
        return KeysRef(self._ex, made)

    def query(self) -> Query[M]:
        """Return a query (scan) over every record of this scope."""
        return Query(self._ex, self._ns, self._set)

    @overload
    def truncate(
        self: _Scope[Async], *, before: datetime | None = None
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def truncate(self: _Scope[Sync], *, before: datetime | None = None) -> None: ...
    def truncate(self, *, before: datetime | None = None) -> Any:
        """Delete every record (last updated before ``before`` when given) on every node.

        ``before`` must not be in the future (the server refuses it); a naive datetime is local
        time. Servers keep last-update times in milliseconds: records updated in the
        millisecond of ``before`` or later stay.
        """
        before_ns = 0
        if before is not None:
            if not isinstance(before, datetime):
                raise InvalidTypeError("before must be a datetime")
            since_epoch = before.astimezone(UTC) - _EPOCH
            before_ns = since_epoch // timedelta(microseconds=1) * 1000
        return self._ex.call(Call("truncate", (self._ns, self._set, before_ns), finish=discard))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Namespace(_Scope[M]):
    """A namespace: ``.set(name)`` for a set, or keys/queries over the whole namespace."""

    __slots__ = ()

    def __init__(self, ex: Executor[M], name: str) -> None:
        self._init(ex, _validate.namespace(name), "")

    def __repr__(self) -> str:
        return f"Namespace({self._ns!r})"

    @property
    def name(self) -> str:
        """The namespace name."""
        return self._ns

    def set(self, name: str) -> RecordSet[M]:
        """Return a set of this namespace."""
        return RecordSet(self._ex, self._ns, _validate.set_name(name))


class RecordSet(_Scope[M]):
    """A set: keys, queries, secondary indexes, bulk writes."""

    __slots__ = ()

    def __init__(self, ex: Executor[M], namespace: str, name: str) -> None:
        self._init(ex, namespace, name)

    def __repr__(self) -> str:
        return f"RecordSet({self._ns!r}, {self._set!r})"

    @property
    def name(self) -> str:
        """The set name."""
        return self._set

    @overload
    def put_many(
        self: RecordSet[Async],
        records: Mapping[str | int | bytes, Mapping[str, Any] | object] | Iterable[object],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
        timeout: float | None = None,
        progress: OnWriteProgress | None = None,
        batch_size: int | None = None,
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def put_many(
        self: RecordSet[Sync],
        records: Mapping[str | int | bytes, Mapping[str, Any] | object] | Iterable[object],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
        timeout: float | None = None,
        progress: OnWriteProgress | None = None,
        batch_size: int | None = None,
    ) -> BatchResult: ...
    def put_many(
        self,
        records: Mapping[str | int | bytes, Mapping[str, Any] | object] | Iterable[object],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
        timeout: float | None = None,
        progress: OnWriteProgress | None = None,
        batch_size: int | None = None,
    ) -> Any:
        """Upsert ``{key: bins}``, or model instances with a key field, in batch requests.

        One request for all rows, or ``batch_size`` rows per request (one after another).
        ``timeout`` is seconds per request; ``progress`` (a callable taking a
        :class:`~aerospike_fluent.progress.WriteProgress`, or ``"tqdm"``) is told after each
        request. A row that fails does not stop the others: see the result's ``errors``.
        """
        if not isinstance(records, Mapping):
            if isinstance(records, str | bytes) or not isinstance(records, Iterable):
                raise InvalidTypeError(
                    "put_many() takes a mapping of key -> bins, or model instances"
                )
            records = {_model_key(self._ex, obj): obj for obj in records}
            if send_key is None:
                send_key = True
        policy = _policy.build(
            ttl=_validate.ttl(_expiry(ttl, expire_at)),
            send_key=_policy.flag("send_key", send_key),
            lim=_policy.limits(timeout, None, None),
        )
        report = write_callback(progress)
        if batch_size is not None:
            _validate.integer("batch_size", batch_size, 1, 1_000_000)
        ex = self._ex
        ns, set_name, check = self._ns, self._set, _validate.record_key
        rows = [
            ("put", (ns, set_name, check("put_many key", k), None), _bins_of(ex, bins), None)
            for k, bins in records.items()
        ]
        return self._ex.run(_batches(rows, policy, batch_size or len(rows) or 1, report))

    @overload
    def put_arrow(
        self: RecordSet[Async], data: object, *, key: str, **options: Unpack[ArrowWriteOptions]
    ) -> Coroutine[Any, Any, ArrowWriteResult]: ...
    @overload
    def put_arrow(
        self: RecordSet[Sync], data: object, *, key: str, **options: Unpack[ArrowWriteOptions]
    ) -> ArrowWriteResult: ...
    def put_arrow(self, data: object, *, key: str, **options: Unpack[ArrowWriteOptions]) -> Any:
        """Write every row of ``data`` as a record, the column ``key`` giving its user key.

        ``data`` is anything exporting the Arrow PyCapsule stream (a pyarrow Table or
        RecordBatchReader, a polars DataFrame, a DuckDB result) or a pandas DataFrame; every
        other column becomes a bin (a null cell writes no bin; a timestamp with a time zone
        is stored as UTC nanoseconds, as models store ``datetime``). Columns are read natively, in
        batches of ``batch_size`` rows, ``concurrency`` batches at a time. Options: ``mode``
        (``"upsert"``, ``"insert"``, ``"update"``, ``"replace"``), ``ttl`` / ``expire_at``,
        ``send_key`` (default True: each record keeps its key, which ``key=`` reads give
        back), ``timeout`` (seconds per batch request), ``progress`` (a callable
        taking a :class:`~aerospike_fluent.progress.WriteProgress`, or ``"tqdm"``) and
        ``raise_on_error``. Returns an :class:`ArrowWriteResult`: rows written, and each
        failed row's key and error.
        """
        _validate.known_names("put_arrow option", options, ARROW_WRITE_DEFAULTS)
        o = {**ARROW_WRITE_DEFAULTS, **options}
        program = put_arrow(self._ns, self._set, data, key=key, **o)  # type: ignore[arg-type]
        return self._ex.run(program)

    def put_dataframe(self, data: object, *, key: str, **options: Unpack[ArrowWriteOptions]) -> Any:
        """:meth:`put_arrow` (the same options), named for DataFrames."""
        return self.put_arrow(data, key=key, **options)

    def scan_polars(self: RecordSet[Sync], **options: Unpack[ScanOptions]) -> pl.LazyFrame:
        """Return this set as a lazy ``polars.LazyFrame`` with pushdown (blocking clients only).

        See :func:`aerospike_fluent.polars.scan_set` for the options. Needs polars.
        """
        from aerospike_fluent.polars import scan

        return scan(self, **options)

    def put(self, obj: object, **options: Any) -> Any:
        """Upsert a model instance under its key field (see :meth:`KeyRef.put`)."""
        return self.key(_model_key(self._ex, obj)).put(obj, **options)

    def insert(self, obj: object, **options: Any) -> Any:
        """Create a record from a model instance; RecordExistsError if its key exists."""
        return self.key(_model_key(self._ex, obj)).insert(obj, **options)

    def update(self, obj: object, **options: Any) -> Any:
        """Update the record of a model instance; RecordNotFoundError if missing."""
        return self.key(_model_key(self._ex, obj)).update(obj, **options)

    def replace(self, obj: object, **options: Any) -> Any:
        """Replace every bin of the record of a model instance."""
        return self.key(_model_key(self._ex, obj)).replace(obj, **options)

    @overload
    def create_index(
        self: RecordSet[Async],
        source: str | Exp,
        type: IndexType = "numeric",
        *,
        name: str | None = None,
        collection: IndexCollection | None = None,
        context: Sequence[CtxStep] | None = None,
    ) -> Coroutine[Any, Any, str]: ...
    @overload
    def create_index(
        self: RecordSet[Sync],
        source: str | Exp,
        type: IndexType = "numeric",
        *,
        name: str | None = None,
        collection: IndexCollection | None = None,
        context: Sequence[CtxStep] | None = None,
    ) -> str: ...
    def create_index(
        self,
        source: str | Exp,
        type: IndexType = "numeric",
        *,
        name: str | None = None,
        collection: IndexCollection | None = None,
        context: Sequence[CtxStep] | None = None,
    ) -> Any:
        """Create a secondary index and wait until it is built.

        ``source`` is a bin name (with ``context``: the value at that path inside the bin,
        e.g. ``[cdt.ctx_map_key("scores"), cdt.ctx_list_index(0)]``) or an expression
        (``abs(F.int_bin("a"))``; then ``name`` is required). ``collection`` indexes the
        elements of a list, or a map's keys or values.

        Returns:
            The index name (default ``"<set>_<bin>_<collection>_<type>"``).

        """
        spec: tuple[Any, ...]
        index: str
        spec, index = definition(self._set, source, type, name, collection, context)
        self._ex.indexes.forget(self._ns)
        return self._ex.run(then(create_index(self._ns, self._set, spec, index), self._known))

    @overload
    def drop_index(self: RecordSet[Async], name: str) -> Coroutine[Any, Any, None]: ...
    @overload
    def drop_index(self: RecordSet[Sync], name: str) -> None: ...
    def drop_index(self, name: str) -> Any:
        """Drop the secondary index ``name``."""
        _validate.name("index", name, INDEX_NAME_MAX)
        return self._ex.call(Call("drop_index", (self._ns, self._set, name), finish=self._known))

    def _known(self, result: T) -> T:
        """Pass ``result`` on; the next query of the namespace fetches its index list again."""
        self._ex.indexes.forget(self._ns)
        return result


def _batch(rows: list[tuple[Any, ...]]) -> Program[BatchResult]:
    if not rows:
        return BatchResult([], False)
    result = yield Call("batch", (rows, None))
    return BatchResult(result, False)


def _batches(
    rows: list[tuple[Any, ...]],
    policy: _native.Policy | None,
    size: int,
    report: WriteProgressCallback | None,
) -> Program[BatchResult]:
    """``rows`` in requests of ``size`` rows under ``policy``, telling ``report`` after each."""
    done: list[Any] = []
    failed = 0
    try:
        for start in range(0, len(rows), size):
            part = yield Call("batch", (rows[start : start + size], policy))
            done.extend(part)
            failed += sum(1 for row in part if row.result_code not in (0, None))
            if report is not None:
                report(WriteProgress(len(done), failed, len(rows), False))
    finally:
        if report is not None:
            report(WriteProgress(len(done), failed, len(rows), True))
    return whole(done, False)


def _model_key(ex: Executor[Any], obj: object) -> str | int | bytes:
    """Return the user key of a model instance, from its key field."""
    if not is_model(obj):
        raise InvalidTypeError(
            f"expected a model instance (dataclass, pydantic, attrs, msgspec), not "
            f"{type(obj).__name__}; a dict needs a key: s.key(k).put(bins)"
        )
    mapping = mapping_of(type(obj), ex.codecs)
    if mapping.key is None:
        raise InvalidArgumentError(
            f"{type(obj).__name__} has no key field: mark one with Annotated[str, af.models.Key] "
            "or give the key: s.key(k).put(obj)"
        )
    return _validate.record_key(f"{type(obj).__name__}.{mapping.key}", mapping.user_key(obj))


def _bins_of(ex: Executor[Any], bins: object) -> dict[str, Any]:
    return _validate.bins(to_bins(bins, ex.codecs, ex.dict_codecs))
