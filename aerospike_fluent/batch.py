"""Mixed batches: writes, reads, deletes and operates on any keys, sent as one request.

Example:
    >>> result = await (
    ...     db.batch()
    ...     .put(users.key("u1"), {"name": "Ann"})
    ...     .get(users.key("u2"))
    ...     .delete(users.key("u3"))
    ...     .operate(users.key("u4").add("visits", 1).read("visits"))
    ...     .execute()
    ... )
    >>> result.raise_on_error()

"""

from __future__ import annotations

from collections.abc import Coroutine
from datetime import datetime, timedelta
from typing import Any, ClassVar, Generic, overload

from aerospike_fluent import _native, _policy, _validate
from aerospike_fluent._chain import Frozen
from aerospike_fluent._exec import Async, Call, Executor, M, Program, Sync
from aerospike_fluent._policy import TTL
from aerospike_fluent._policy import expiry as _expiry
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.keys import KeyRef
from aerospike_fluent.models._mapping import to_bins
from aerospike_fluent.results import BatchResult, whole


def _key_of(ref: object) -> KeyRef[Any]:
    if not isinstance(ref, KeyRef):
        raise InvalidTypeError(f"expected a key from set.key(...), not {type(ref).__name__}")
    return ref


# One row added to a batch: the batch before it, the row, and whether a missing record is fine.
# Each copy shares its predecessor's rows, so adding a row costs the same at any length.
_Link = tuple["_Link | None", tuple[Any, ...], bool]


class Batch(Frozen, Generic[M]):
    """An immutable list of rows; ``execute()`` sends them as one batch request."""

    __slots__ = ("_count", "_ex", "_last", "_limits")
    _fields: ClassVar[tuple[str, ...]] = ("_ex", "_last", "_count", "_limits")
    _ex: Executor[M]
    _last: _Link | None
    _count: int
    _limits: _policy.Limits | None

    def __init__(self, ex: Executor[M]) -> None:
        self._init(ex, None, 0, None)

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"Batch({self._count} rows)"

    @property
    def rows(self) -> tuple[tuple[Any, ...], ...]:
        """The compiled rows (native plan format)."""
        return tuple(row for row, _ in self._links())

    def _links(self) -> list[tuple[tuple[Any, ...], bool]]:
        """Every row with its missing-is-fine flag, first row first."""
        out: list[tuple[tuple[Any, ...], bool]] = []
        link = self._last
        while link is not None:
            link, row, missing_ok = link
            out.append((row, missing_ok))
        out.reverse()
        return out

    def _row(self, row: tuple[Any, ...], missing_ok: bool) -> Batch[M]:
        return self._evolve(_last=(self._last, row, missing_ok), _count=self._count + 1)

    def _write(
        self,
        verb: str,
        ref: object,
        bins: object,
        ttl: TTL,
        generation: int | None,
        send_key: bool | None,
    ) -> Batch[M]:
        key = _key_of(ref)
        ex = self._ex
        ops = key._writes_then_ops(_validate.bins(to_bins(bins, ex.codecs, ex.dict_codecs)))
        policy = key._write_policy(verb, ttl, generation, send_key)
        return self._row(("write", key.key, ops, policy), False)

    def put(
        self,
        key: KeyRef[Any],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Batch[M]:
        """Add an upsert row."""
        return self._write("put", key, bins, _expiry(ttl, expire_at), generation, send_key)

    def insert(
        self,
        key: KeyRef[Any],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Batch[M]:
        """Add a create-only row."""
        return self._write("insert", key, bins, _expiry(ttl, expire_at), None, send_key)

    def update(
        self,
        key: KeyRef[Any],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
    ) -> Batch[M]:
        """Add an update-only row."""
        return self._write("update", key, bins, _expiry(ttl, expire_at), generation, False)

    def replace(
        self,
        key: KeyRef[Any],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
    ) -> Batch[M]:
        """Add a replace row."""
        return self._write("replace", key, bins, _expiry(ttl, expire_at), generation, False)

    def get(self, key: KeyRef[Any], *bins: str) -> Batch[M]:
        """Add a read row (only ``bins`` when given)."""
        ref = _key_of(key)
        names = list(_validate.bin_names(bins)) if bins else None
        return self._row(("read", ref.key, names, False, ref._policy()), True)

    def get_header(self, key: KeyRef[Any]) -> Batch[M]:
        """Add a header-only read row."""
        ref = _key_of(key)
        return self._row(("read", ref.key, None, True, ref._policy()), True)

    def delete(
        self, key: KeyRef[Any], *, generation: int | None = None, durable: bool | None = None
    ) -> Batch[M]:
        """Add a delete row (only if the record is at ``generation``, when given)."""
        ref = _key_of(key)
        policy = ref._policy(generation=generation, durable=durable)
        return self._row(("delete", ref.key, policy), True)

    def operate(
        self,
        key: KeyRef[Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
    ) -> Batch[M]:
        """Add the operations accumulated on ``key`` (``users.key("u1").add("n", 1)``) as a row."""
        ref = _key_of(key)
        if not ref._ops:
            raise InvalidArgumentError("operate() needs a key chain with operations")
        policy = ref._policy(
            ttl=_expiry(ttl, expire_at),
            generation=generation,
            exists=_policy.exists(exists),
            operate=True,
        )
        return self._row(("write", ref.key, list(ref._ops), policy), False)

    def udf(self, key: KeyRef[Any], module: str, function: str, *args: Any) -> Batch[M]:
        """Add a UDF row."""
        ref = _key_of(key)
        _validate.udf_call(module, function, args)
        return self._row(("udf", ref.key, module, function, list(args), ref._policy()), False)

    def timeout(
        self,
        total: float | timedelta | None = None,
        *,
        socket: float | timedelta | None = None,
        retries: int | None = None,
    ) -> Batch[M]:
        """Limit the whole request: ``total`` and ``socket`` in seconds, ``retries`` attempts."""
        return self._evolve(_limits=_policy.limits(total, socket, retries))

    @overload
    def execute(self: Batch[Async]) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def execute(self: Batch[Sync]) -> BatchResult: ...
    def execute(self) -> Any:
        """Send every row in one batch request; the result keeps per-row errors."""
        policy = None if self._limits is None else _policy.build(lim=self._limits)
        links = self._links()
        rows = [row for row, _ in links]
        return self._ex.run(_program(rows, tuple(ok for _, ok in links), policy))


def _program(
    rows: list[tuple[Any, ...]], missing_ok: tuple[bool, ...], policy: _native.Policy | None
) -> Program[BatchResult]:
    if not rows:
        return BatchResult([], missing_ok)
    result = yield Call("batch", (rows, policy))
    return whole(result, missing_ok)
