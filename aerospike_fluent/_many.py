"""Many keys (``KeysRef``): the same operations on every key, compiled to one batch call."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar, overload

from aerospike_fluent import _native, _policy, _validate
from aerospike_fluent._chain import LIMITS, TARGET, OpChain
from aerospike_fluent._exec import Async, Call, Executor, M, Program, Sync, then
from aerospike_fluent._keys_arrow import KeysArrow
from aerospike_fluent._policy import TTL
from aerospike_fluent._policy import expiry as _expiry
from aerospike_fluent._types import Key
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.models._mapping import mapping_of, to_bins
from aerospike_fluent.models.codecs import Codecs
from aerospike_fluent.results import BatchResult, whole

T = TypeVar("T")


def _models(
    cls: type[T], keys: Sequence[Key], codecs: Codecs
) -> Callable[[BatchResult], list[T | None]]:
    """Return the decoder of a batch read's records into instances, in key order."""
    mapping = mapping_of(cls, codecs)

    def finish(result: BatchResult) -> list[T | None]:
        result.raise_on_error()
        return mapping.decode_many(result.records, [k[2] for k in keys])

    return finish


def _batch_program(
    rows: list[tuple[Any, ...]], missing_ok: bool, policy: _native.Policy | None
) -> Program[BatchResult]:
    result = yield Call("batch", (rows, policy))
    return whole(result, missing_ok)


class KeysRef(KeysArrow[M], OpChain[M], Generic[M]):
    """Many records: the same operations on every key, compiled to one batch request.

    Results are :class:`BatchResult` rows in key order, each with its own record or error; their
    bins have the shape a single key's ``execute()`` gives: ``keys.add("n", 1).read("n")`` gives
    ``{"n": 6}``.
    """

    __slots__ = ()
    _base: tuple[Executor[M], tuple[Any, ...] | None, _policy.Limits | None, tuple[Key, ...]]

    def _batch_policy(self) -> _native.Policy | None:
        """Return the whole request's policy: the chain's limits (rows carry the rest)."""
        lim = self._base[LIMITS]
        return None if lim is None else _policy.build(lim=lim)

    def __init__(self, ex: Executor[M], keys: tuple[Key, ...]) -> None:
        self._init((ex, None, None, keys), ())

    @property
    def _keys(self) -> tuple[Key, ...]:
        return self._base[TARGET]

    def __repr__(self) -> str:
        return f"KeysRef({len(self._keys)} keys, ops={len(self._ops)})"

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def keys(self) -> tuple[Key, ...]:
        """The key tuples."""
        return self._keys

    def _rows_of_ops(self, ops: list[Any], policy: Any) -> list[tuple[Any, ...]]:
        return [("write", k, ops, policy) for k in self._keys]

    def _write_all(self, verb: str, bins: object, ttl: TTL, send_key: bool | None) -> Any:
        """Write the same bins (then the chained ops) to every key in one batch."""
        ex = self._ex
        ops = self._writes_then_ops(_validate.bins(to_bins(bins, ex.codecs, ex.dict_codecs)))
        policy = self._write_policy(verb, ttl, None, send_key)
        return self._ex.run(
            _batch_program(self._rows_of_ops(ops, policy), False, self._batch_policy())
        )

    @overload
    def put(
        self: KeysRef[Async],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def put(
        self: KeysRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> BatchResult: ...
    def put(
        self,
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Upsert the same bins into every record."""
        return self._write_all("put", bins, _expiry(ttl, expire_at), send_key)

    @overload
    def insert(
        self: KeysRef[Async],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def insert(
        self: KeysRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> BatchResult: ...
    def insert(
        self,
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Create every record; rows of existing records fail with RecordExistsError."""
        return self._write_all("insert", bins, _expiry(ttl, expire_at), send_key)

    @overload
    def update(
        self: KeysRef[Async],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def update(
        self: KeysRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> BatchResult: ...
    def update(
        self,
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Update existing records; rows of missing ones fail with RecordNotFoundError."""
        return self._write_all("update", bins, _expiry(ttl, expire_at), send_key)

    @overload
    def replace(
        self: KeysRef[Async],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def replace(
        self: KeysRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> BatchResult: ...
    def replace(
        self,
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Replace every bin of every record."""
        return self._write_all("replace", bins, _expiry(ttl, expire_at), send_key)

    @overload
    def get(
        self: KeysRef[Async], *bins: str, as_: None = None
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def get(
        self: KeysRef[Async], *bins: str, as_: type[T]
    ) -> Coroutine[Any, Any, list[T | None]]: ...
    @overload
    def get(self: KeysRef[Sync], *bins: str, as_: None = None) -> BatchResult: ...
    @overload
    def get(self: KeysRef[Sync], *bins: str, as_: type[T]) -> list[T | None]: ...
    def get(self, *bins: str, as_: type[Any] | None = None) -> Any:
        """Read every record (only ``bins`` when given) in one batch; missing → ``None``.

        ``as_``: a model class; returns a list of instances (``None`` where missing) in key
        order, and raises the first row's error if any row failed.
        """
        names = list(_validate.bin_names(bins)) if bins else None
        policy = self._policy(operate=bool(self._ops))
        if self._ops:
            ops: list[Any] = list(self._ops)
            ops.extend([("read", b) for b in names] if names else [("read_all", None)])
            rows = self._rows_of_ops(ops, policy)
        else:
            rows = [("read", k, names, False, policy) for k in self._keys]
        program = _batch_program(rows, True, self._batch_policy())
        if as_ is not None:
            return self._ex.run(then(program, _models(as_, self._keys, self._ex.codecs)))
        return self._ex.run(program)

    @overload
    def get_header(self: KeysRef[Async]) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def get_header(self: KeysRef[Sync]) -> BatchResult: ...
    def get_header(self) -> Any:
        """Read generation and TTL of every record."""
        policy = self._policy()
        rows = [("read", k, None, True, policy) for k in self._keys]
        return self._ex.run(_batch_program(rows, True, self._batch_policy()))

    @overload
    def exists(self: KeysRef[Async]) -> Coroutine[Any, Any, list[bool]]: ...
    @overload
    def exists(self: KeysRef[Sync]) -> list[bool]: ...
    def exists(self) -> Any:
        """Whether each record exists (one header-only batch read)."""
        policy = self._policy()
        rows = [("read", k, None, True, policy) for k in self._keys]
        return self._ex.run(_exists_program(rows, self._batch_policy()))

    @overload
    def delete(
        self: KeysRef[Async], *, durable: bool | None = None
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def delete(self: KeysRef[Sync], *, durable: bool | None = None) -> BatchResult: ...
    def delete(self, *, durable: bool | None = None) -> Any:
        """Delete every record; missing records are not errors."""
        policy = self._policy(durable=durable)
        rows = [("delete", k, policy) for k in self._keys]
        return self._ex.run(_batch_program(rows, True, self._batch_policy()))

    @overload
    def touch(
        self: KeysRef[Async], *, ttl: TTL = None, expire_at: datetime | None = None
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def touch(
        self: KeysRef[Sync], *, ttl: TTL = None, expire_at: datetime | None = None
    ) -> BatchResult: ...
    def touch(self, *, ttl: TTL = None, expire_at: datetime | None = None) -> Any:
        """Reset every record's TTL."""
        rows = self._rows_of_ops([("touch", None)], self._policy(ttl=_expiry(ttl, expire_at)))
        return self._ex.run(_batch_program(rows, False, self._batch_policy()))

    @overload
    def execute(
        self: KeysRef[Async],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def execute(
        self: KeysRef[Sync],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool | None = None,
    ) -> BatchResult: ...
    def execute(
        self,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool | None = None,
    ) -> Any:
        """Run the chain's operations on every key, as one batch request."""
        if not self._ops:
            raise InvalidArgumentError("execute() needs at least one operation in the chain")
        policy = self._policy(
            ttl=_expiry(ttl, expire_at),
            exists=_policy.exists(exists),
            send_key=send_key,
            operate=True,
        )
        return self._ex.run(
            _batch_program(self._rows_of_ops(list(self._ops), policy), False, self._batch_policy())
        )

    @overload
    def udf(
        self: KeysRef[Async], module: str, function: str, *args: Any
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def udf(self: KeysRef[Sync], module: str, function: str, *args: Any) -> BatchResult: ...
    def udf(self, module: str, function: str, *args: Any) -> Any:
        """Apply a Lua function to every record in one batch."""
        _validate.udf_call(module, function, args)
        policy = self._policy()
        rows = [("udf", k, module, function, list(args), policy) for k in self._keys]
        return self._ex.run(_batch_program(rows, False, self._batch_policy()))


def _exists_program(
    rows: list[tuple[Any, ...]], policy: _native.Policy | None
) -> Program[list[bool]]:
    result = yield Call("batch", (rows, policy))
    batch = whole(result, True)
    batch.raise_on_error()
    return [row.record is not None for row in batch]
