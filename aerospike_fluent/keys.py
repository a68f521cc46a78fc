"""Key builders: one key (``KeyRef``) or many keys (``KeysRef``).

A ``KeyRef`` chain compiles to one single-record call, a ``KeysRef`` chain to one batch call.

Terminal verbs return awaitables on an async client and values on a sync one.
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Generic, overload

from aerospike_fluent import _native, _policy, _validate
from aerospike_fluent._chain import _SET_BASE, _SET_OPS, LIMITS, TARGET, OpChain
from aerospike_fluent._exec import Async, Call, Executor, M, Program, Sync, discard
from aerospike_fluent._keys_arrow import KeysArrow
from aerospike_fluent._native import Record
from aerospike_fluent._plan import reads
from aerospike_fluent._policy import TTL
from aerospike_fluent._types import Key
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.results import BatchResult

_is_default = _policy.is_default


class KeyRef(OpChain[M], Generic[M]):
    """One record. Chain bin operations, then end with a verb.

    Example:
        >>> await users.key("u1").put({"name": "Ann", "age": 30}, ttl=3600)
        >>> await users.key("u1").add("age", 1).append("log", "x").read("age").execute()

    """

    __slots__ = ()
    _base: tuple[Executor[M], tuple[Any, ...] | None, _policy.Limits | None, Key]

    def __init__(self, ex: Executor[M], key: Key) -> None:
        _SET_BASE(self, (ex, None, None, key))
        _SET_OPS(self, ())

    def __repr__(self) -> str:
        return f"KeyRef({self._base[TARGET]!r}, ops={len(self._ops)})"

    @property
    def key(self) -> Key:
        """The key tuple ``(namespace, set, user_key, digest)``."""
        return self._base[TARGET]

    if TYPE_CHECKING:
        _key: Key  # Frozen rejects every write
    else:
        _key = key

    # ----------------------------------------------------------------- compiled plans
    def _write_call(
        self,
        verb: str,
        bins: object,
        ttl: TTL,
        generation: int | None,
        send_key: bool,
    ) -> Call:
        checked = _validate.bins(bins)
        policy = self._write_policy(verb, ttl, generation, send_key)
        key = self._base[TARGET]
        if not self._ops:
            return Call("put", (key, checked, policy))
        if any(reads(op) for op in self._ops):
            raise InvalidArgumentError(
                f"{verb}() returns nothing, so the chain's reads would be lost: "
                "write with .bin(name).set(value) and call execute()"
            )
        return Call("operate", (key, self._writes_then_ops(checked), policy), finish=discard)

    def _get_call(self, bins: tuple[str, ...], header: bool) -> Call:
        names = _validate.bin_names(bins) if bins else None
        policy = self._policy(operate=bool(self._ops))
        key = self._base[TARGET]
        if not self._ops:
            return Call("get", (key, names, header, policy))
        ops: list[Any] = list(self._ops)
        if header:
            ops.append(("read_header", None))
            return Call("operate", (key, ops, policy), finish=_header_only)
        if names:
            ops.extend(("read", b) for b in names)
        else:
            ops.append(("read_all", None))
        return Call("operate", (key, ops, policy))

    def _plain(self, verb: str) -> None:
        if self._ops:
            raise InvalidArgumentError(f"{verb}() cannot follow bin operations; use execute()")

    # ----------------------------------------------------------------- writes
    @overload
    def put(
        self: KeyRef[Async],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def put(
        self: KeyRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> None: ...
    def put(
        self,
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> Any:
        """Create or update the record (upsert), with the chain's other operations.

        Args:
            bins: bin name → value (``None`` removes the bin).
            ttl: seconds or timedelta; -1 never expires, -2 keeps the current TTL.
            generation: fail with GenerationError unless the record is at this generation.
            send_key: store the user key with the record.

        """
        ex, filt, lim, key = self._base
        if not self._ops and _is_default(ttl, generation, 0, send_key, False, filt, lim):
            # the common case: one native put with the default policy
            return ex.verbs["put"](key, _validate.bins(bins), None)
        return ex.call(self._write_call("put", bins, ttl, generation, send_key))

    @overload
    def insert(
        self: KeyRef[Async], bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def insert(
        self: KeyRef[Sync], bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False
    ) -> None: ...
    def insert(self, bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False) -> Any:
        """Create the record; RecordExistsError if it exists."""
        return self._ex.call(self._write_call("insert", bins, ttl, None, send_key))

    @overload
    def update(
        self: KeyRef[Async],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def update(
        self: KeyRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> None: ...
    def update(
        self,
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> Any:
        """Update bins of an existing record; RecordNotFoundError if it does not exist."""
        return self._ex.call(self._write_call("update", bins, ttl, generation, send_key))

    @overload
    def replace(
        self: KeyRef[Async],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def replace(
        self: KeyRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> None: ...
    def replace(
        self,
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> Any:
        """Replace every bin (creating the record when missing)."""
        return self._ex.call(self._write_call("replace", bins, ttl, generation, send_key))

    @overload
    def replace_if_exists(
        self: KeyRef[Async],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def replace_if_exists(
        self: KeyRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> None: ...
    def replace_if_exists(
        self,
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        send_key: bool = False,
    ) -> Any:
        """Replace every bin of an existing record; RecordNotFoundError if missing."""
        call = self._write_call("replace_if_exists", bins, ttl, generation, send_key)
        return self._ex.call(call)

    # ----------------------------------------------------------------- reads
    @overload
    def get(self: KeyRef[Async], *bins: str) -> Coroutine[Any, Any, Record | None]: ...
    @overload
    def get(self: KeyRef[Sync], *bins: str) -> Record | None: ...
    def get(self, *bins: str) -> Any:
        """Read the record (only ``bins`` when given); ``None`` when it does not exist.

        After bin operations, runs them and the read as one operate.
        """
        ex, filt, lim, key = self._base
        if not bins and not self._ops and filt is None and lim is None:
            return ex.verbs["get"](key, None, False, None)
        return ex.call(self._get_call(bins, False))

    @overload
    def get_header(self: KeyRef[Async]) -> Coroutine[Any, Any, Record | None]: ...
    @overload
    def get_header(self: KeyRef[Sync]) -> Record | None: ...
    def get_header(self) -> Any:
        """Read generation and TTL only; ``None`` when the record does not exist."""
        return self._ex.call(self._get_call((), True))

    @overload
    def exists(self: KeyRef[Async]) -> Coroutine[Any, Any, bool]: ...
    @overload
    def exists(self: KeyRef[Sync]) -> bool: ...
    def exists(self) -> Any:
        """Whether the record exists."""
        self._plain("exists")
        ex, _, _, key = self._base
        return ex.verbs["exists"](key, self._policy())

    @overload
    def delete(self: KeyRef[Async], *, durable: bool = False) -> Coroutine[Any, Any, bool]: ...
    @overload
    def delete(self: KeyRef[Sync], *, durable: bool = False) -> bool: ...
    def delete(self, *, durable: bool = False) -> Any:
        """Delete the record; True if it existed.

        ``durable`` leaves a tombstone (Enterprise servers; a Community server refuses it with
        :class:`~aerospike_fluent.errors.EnterpriseOnlyError`).
        """
        self._plain("delete")
        ex, _, _, key = self._base
        return ex.verbs["delete"](key, self._policy(durable=durable))

    @overload
    def touch(self: KeyRef[Async], *, ttl: TTL = None) -> Coroutine[Any, Any, None]: ...
    @overload
    def touch(self: KeyRef[Sync], *, ttl: TTL = None) -> None: ...
    def touch(self, *, ttl: TTL = None) -> Any:
        """Reset the record's TTL (to ``ttl`` or the namespace default)."""
        self._plain("touch")
        ex, _, _, key = self._base
        return ex.verbs["touch"](key, self._policy(ttl=ttl))

    @overload
    def execute(
        self: KeyRef[Async],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool = False,
        durable: bool = False,
    ) -> Coroutine[Any, Any, Record | None]: ...
    @overload
    def execute(
        self: KeyRef[Sync],
        *,
        ttl: TTL = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool = False,
        durable: bool = False,
    ) -> Record | None: ...
    def execute(
        self,
        *,
        ttl: TTL = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool = False,
        durable: bool = False,
    ) -> Any:
        """Run the chain's operations as one operate; returns the record of the reads.

        Args:
            ttl: TTL to set with the writes.
            generation: expected generation.
            exists: ``"upsert"``, ``"update"``, ``"replace"``, ``"replace_only"`` or ``"create"``.
            send_key: store the user key.
            durable: durable delete (for a chain that deletes).

        """
        if not self._ops:
            raise InvalidArgumentError("execute() needs at least one operation in the chain")
        ex, filt, lim, key = self._base
        if (
            type(exists) is str
            and exists == "upsert"
            and _is_default(ttl, generation, 0, send_key, durable, filt, lim)
        ):
            policy = _policy.operate_default()
        else:
            policy = self._policy(
                ttl=ttl,
                generation=generation,
                exists=_policy.exists(exists),
                send_key=send_key,
                durable=durable,
                operate=True,
            )
        return ex.verbs["operate"](key, list(self._ops), policy)

    @overload
    def udf(
        self: KeyRef[Async], module: str, function: str, *args: Any
    ) -> Coroutine[Any, Any, Any]: ...
    @overload
    def udf(self: KeyRef[Sync], module: str, function: str, *args: Any) -> Any: ...
    def udf(self, module: str, function: str, *args: Any) -> Any:
        """Apply the registered Lua function ``module.function(record, *args)``."""
        self._plain("udf")
        _check_udf(module, function, args)
        call = Call("udf_apply", (self.key, module, function, list(args), self._policy()))
        return self._ex.call(call)


def _header_only(rec: Record | None) -> Record | None:
    """Keep only the header of an operate's record (its write ops answer with empty bins)."""
    if rec is None:
        return None
    return Record._restore({}, rec.key, rec.generation, rec.ttl, None)


def _check_udf(module: str, function: str, args: Sequence[Any]) -> None:
    _validate.name("udf module", module, 127)
    _validate.name("udf function", function, 127)
    for a in args:
        _validate.value("<udf argument>", a)


def _batch_program(
    rows: list[tuple[Any, ...]], missing_ok: bool, policy: _native.Policy | None
) -> Program[BatchResult]:
    result = yield Call("batch", (rows, policy))
    return BatchResult(result, missing_ok)


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

    def _write_all(self, verb: str, bins: object, ttl: TTL, send_key: bool) -> Any:
        """Write the same bins (then the chained ops) to every key in one batch."""
        ops = self._writes_then_ops(_validate.bins(bins))
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
        send_key: bool = False,
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def put(
        self: KeysRef[Sync],
        bins: dict[str, Any],
        *,
        ttl: TTL = None,
        send_key: bool = False,
    ) -> BatchResult: ...
    def put(self, bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False) -> Any:
        """Upsert the same bins into every record."""
        return self._write_all("put", bins, ttl, send_key)

    @overload
    def insert(
        self: KeysRef[Async], bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def insert(
        self: KeysRef[Sync], bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False
    ) -> BatchResult: ...
    def insert(self, bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False) -> Any:
        """Create every record; rows of existing records fail with RecordExistsError."""
        return self._write_all("insert", bins, ttl, send_key)

    @overload
    def update(
        self: KeysRef[Async], bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def update(
        self: KeysRef[Sync], bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False
    ) -> BatchResult: ...
    def update(self, bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False) -> Any:
        """Update existing records; rows of missing ones fail with RecordNotFoundError."""
        return self._write_all("update", bins, ttl, send_key)

    @overload
    def replace(
        self: KeysRef[Async], bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def replace(
        self: KeysRef[Sync], bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False
    ) -> BatchResult: ...
    def replace(self, bins: dict[str, Any], *, ttl: TTL = None, send_key: bool = False) -> Any:
        """Replace every bin of every record."""
        return self._write_all("replace", bins, ttl, send_key)

    @overload
    def get(self: KeysRef[Async], *bins: str) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def get(self: KeysRef[Sync], *bins: str) -> BatchResult: ...
    def get(self, *bins: str) -> Any:
        """Read every record (only ``bins`` when given) in one batch; missing → ``None``."""
        names = list(_validate.bin_names(bins)) if bins else None
        policy = self._policy(operate=bool(self._ops))
        if self._ops:
            ops: list[Any] = list(self._ops)
            ops.extend([("read", b) for b in names] if names else [("read_all", None)])
            return self._ex.run(
                _batch_program(self._rows_of_ops(ops, policy), True, self._batch_policy())
            )
        rows = [("read", k, names, False, policy) for k in self._keys]
        return self._ex.run(_batch_program(rows, True, self._batch_policy()))

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
        self: KeysRef[Async], *, durable: bool = False
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def delete(self: KeysRef[Sync], *, durable: bool = False) -> BatchResult: ...
    def delete(self, *, durable: bool = False) -> Any:
        """Delete every record; missing records are not errors."""
        policy = self._policy(durable=durable)
        rows = [("delete", k, policy) for k in self._keys]
        return self._ex.run(_batch_program(rows, True, self._batch_policy()))

    @overload
    def touch(self: KeysRef[Async], *, ttl: TTL = None) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def touch(self: KeysRef[Sync], *, ttl: TTL = None) -> BatchResult: ...
    def touch(self, *, ttl: TTL = None) -> Any:
        """Reset every record's TTL."""
        rows = self._rows_of_ops([("touch", None)], self._policy(ttl=ttl))
        return self._ex.run(_batch_program(rows, False, self._batch_policy()))

    @overload
    def execute(
        self: KeysRef[Async],
        *,
        ttl: TTL = None,
        exists: _policy.Exists = "upsert",
        send_key: bool = False,
    ) -> Coroutine[Any, Any, BatchResult]: ...
    @overload
    def execute(
        self: KeysRef[Sync],
        *,
        ttl: TTL = None,
        exists: _policy.Exists = "upsert",
        send_key: bool = False,
    ) -> BatchResult: ...
    def execute(
        self, *, ttl: TTL = None, exists: _policy.Exists = "upsert", send_key: bool = False
    ) -> Any:
        """Run the chain's operations on every key, as one batch request."""
        if not self._ops:
            raise InvalidArgumentError("execute() needs at least one operation in the chain")
        policy = self._policy(
            ttl=ttl, exists=_policy.exists(exists), send_key=send_key, operate=True
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
        _check_udf(module, function, args)
        policy = self._policy()
        rows = [("udf", k, module, function, list(args), policy) for k in self._keys]
        return self._ex.run(_batch_program(rows, False, self._batch_policy()))


def _exists_program(
    rows: list[tuple[Any, ...]], policy: _native.Policy | None
) -> Program[list[bool]]:
    result = yield Call("batch", (rows, policy))
    batch = BatchResult(result, True)
    batch.raise_on_error()
    return [row.record is not None for row in batch]
