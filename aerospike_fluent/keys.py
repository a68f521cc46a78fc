"""Key builders: one key (``KeyRef``) or many keys (``KeysRef``, in ``_many``).

A ``KeyRef`` chain compiles to one single-record call, a ``KeysRef`` chain to one batch call.

Terminal verbs return awaitables on an async client and values on a sync one.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from aerospike_fluent import _policy, _validate
from aerospike_fluent._chain import _SET_BASE, _SET_OPS, TARGET, OpChain
from aerospike_fluent._exec import Async, Call, Executor, M, Sync, discard
from aerospike_fluent._many import KeysRef
from aerospike_fluent._native import Record
from aerospike_fluent._plan import reads
from aerospike_fluent._policy import TTL
from aerospike_fluent._policy import expiry as _expiry
from aerospike_fluent._types import Key
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.models._mapping import is_model, mapping_of

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
        send_key: bool | None,
    ) -> Call:
        key = self._base[TARGET]
        ex = self._base[0]
        if type(bins) is not dict and is_model(bins):
            bins, send_key = _model_bins(ex, bins, key, send_key)
        elif ex.dict_codecs is not None:
            bins = ex.dict_codecs.encode_bins(bins)
        checked = _validate.bins(bins)
        policy = self._write_policy(verb, ttl, generation, send_key)
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
            raise InvalidArgumentError(
                f"{verb}() cannot follow bin operations; use execute() "
                f"(and .record.{verb}() for a {verb} inside the chain)"
                if verb in ("delete", "touch")
                else f"{verb}() cannot follow bin operations; use execute()"
            )

    # ----------------------------------------------------------------- writes
    @overload
    def put(
        self: KeyRef[Async],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def put(
        self: KeyRef[Sync],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> None: ...
    def put(
        self,
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Create or update the record (upsert), with the chain's other operations.

        Args:
            bins: bin name → value (``None`` removes the bin).
            ttl: seconds or timedelta; -1 never expires, -2 keeps the current TTL.
            expire_at: expire at this moment instead (a timezone-aware ``datetime``).
            generation: fail with GenerationError unless the record is at this generation.
            send_key: store the user key with the record.

        """
        ex, filt, lim, key = self._base
        ttl = _expiry(ttl, expire_at)
        if (
            not self._ops
            and _is_default(ttl, generation, 0, send_key, None, filt, lim)
            and (type(bins) is dict or not is_model(bins))
            and ex.dict_codecs is None
        ):
            # the common case: one native put with the default policy
            return ex.verbs["put"](key, _validate.bins(bins), None)
        return ex.call(self._write_call("put", bins, ttl, generation, send_key))

    @overload
    def insert(
        self: KeyRef[Async],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def insert(
        self: KeyRef[Sync],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> None: ...
    def insert(
        self,
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Create the record; RecordExistsError if it exists (``expire_at``: as for put)."""
        return self._ex.call(
            self._write_call("insert", bins, _expiry(ttl, expire_at), None, send_key)
        )

    @overload
    def update(
        self: KeyRef[Async],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def update(
        self: KeyRef[Sync],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> None: ...
    def update(
        self,
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Update bins of an existing record; RecordNotFoundError if it does not exist."""
        return self._ex.call(
            self._write_call("update", bins, _expiry(ttl, expire_at), generation, send_key)
        )

    @overload
    def replace(
        self: KeyRef[Async],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def replace(
        self: KeyRef[Sync],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> None: ...
    def replace(
        self,
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Replace every bin (creating the record when missing)."""
        return self._ex.call(
            self._write_call("replace", bins, _expiry(ttl, expire_at), generation, send_key)
        )

    @overload
    def replace_if_exists(
        self: KeyRef[Async],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def replace_if_exists(
        self: KeyRef[Sync],
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> None: ...
    def replace_if_exists(
        self,
        bins: dict[str, Any] | object,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        send_key: bool | None = None,
    ) -> Any:
        """Replace every bin of an existing record; RecordNotFoundError if missing."""
        call = self._write_call(
            "replace_if_exists", bins, _expiry(ttl, expire_at), generation, send_key
        )
        return self._ex.call(call)

    # ----------------------------------------------------------------- reads
    @overload
    def get(
        self: KeyRef[Async], *bins: str, as_: None = None
    ) -> Coroutine[Any, Any, Record | None]: ...
    @overload
    def get(self: KeyRef[Async], *bins: str, as_: type[T]) -> Coroutine[Any, Any, T | None]: ...
    @overload
    def get(self: KeyRef[Sync], *bins: str, as_: None = None) -> Record | None: ...
    @overload
    def get(self: KeyRef[Sync], *bins: str, as_: type[T]) -> T | None: ...
    def get(self, *bins: str, as_: type[Any] | None = None) -> Any:
        """Read the record (only ``bins`` when given); ``None`` when it does not exist.

        After bin operations, runs them and the read as one operate. ``as_``: a model class
        (dataclass, pydantic, attrs, msgspec, TypedDict) to return an instance of.
        """
        ex, filt, lim, key = self._base
        if as_ is not None:
            call = self._get_call(bins, False)
            return ex.call(call._replace(finish=_as_model(ex, as_, key[2], call.finish)))
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
    def delete(
        self: KeyRef[Async], *, generation: int | None = None, durable: bool | None = None
    ) -> Coroutine[Any, Any, bool]: ...
    @overload
    def delete(
        self: KeyRef[Sync], *, generation: int | None = None, durable: bool | None = None
    ) -> bool: ...
    def delete(self, *, generation: int | None = None, durable: bool | None = None) -> Any:
        """Delete the record; True if it existed.

        ``generation``: only if the record is at this generation (else
        :class:`~aerospike_fluent.errors.GenerationError`). ``durable`` leaves a tombstone
        (Enterprise servers; a Community server refuses it with
        :class:`~aerospike_fluent.errors.EnterpriseOnlyError`). Inside a chain, use
        ``.record.delete()``.
        """
        self._plain("delete")
        ex, _, _, key = self._base
        return ex.verbs["delete"](key, self._policy(generation=generation, durable=durable))

    @overload
    def touch(
        self: KeyRef[Async],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def touch(
        self: KeyRef[Sync],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
    ) -> None: ...
    def touch(
        self,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
    ) -> Any:
        """Reset the record's TTL (to ``ttl``, ``expire_at`` or the namespace default).

        ``generation``: only if the record is at this generation (else GenerationError); a
        missing record is RecordNotFoundError. Inside a chain, use ``.record.touch()``.
        """
        self._plain("touch")
        ex, _, _, key = self._base
        policy = self._policy(ttl=_expiry(ttl, expire_at), generation=generation)
        return ex.verbs["touch"](key, policy)

    @overload
    def execute(
        self: KeyRef[Async],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool | None = None,
        durable: bool | None = None,
        as_: None = None,
    ) -> Coroutine[Any, Any, Record | None]: ...
    @overload
    def execute(
        self: KeyRef[Async],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool | None = None,
        durable: bool | None = None,
        as_: type[T],
    ) -> Coroutine[Any, Any, T | None]: ...
    @overload
    def execute(
        self: KeyRef[Sync],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool | None = None,
        durable: bool | None = None,
        as_: None = None,
    ) -> Record | None: ...
    @overload
    def execute(
        self: KeyRef[Sync],
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool | None = None,
        durable: bool | None = None,
        as_: type[T],
    ) -> T | None: ...
    def execute(
        self,
        *,
        ttl: TTL = None,
        expire_at: datetime | None = None,
        generation: int | None = None,
        exists: _policy.Exists = "upsert",
        send_key: bool | None = None,
        durable: bool | None = None,
        as_: type[Any] | None = None,
    ) -> Any:
        """Run the chain's operations as one operate; returns the record of the reads.

        Args:
            ttl: TTL to set with the writes.
            expire_at: absolute expiry instead of ``ttl`` (a timezone-aware ``datetime``).
            generation: expected generation.
            exists: ``"upsert"``, ``"update"``, ``"replace"``, ``"replace_only"`` or ``"create"``.
            send_key: store the user key.
            durable: durable delete (for a chain that deletes).
            as_: a model class: the record read as an instance of it.

        """
        if not self._ops:
            raise InvalidArgumentError("execute() needs at least one operation in the chain")
        ex, filt, lim, key = self._base
        ttl = _expiry(ttl, expire_at)
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
        if as_ is not None:
            finish = _as_model(ex, as_, key[2], None)
            return ex.call(Call("operate", (key, list(self._ops), policy), finish=finish))
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
        _validate.udf_call(module, function, args)
        call = Call("udf_apply", (self.key, module, function, list(args), self._policy()))
        return self._ex.call(call)


def _header_only(rec: Record | None) -> Record | None:
    """Keep only the header of an operate's record (its write ops answer with empty bins)."""
    if rec is None:
        return None
    return Record._restore({}, rec.key, rec.generation, rec.ttl, None)


__all__ = ["KeyRef", "KeysRef"]


T = TypeVar("T")


def _model_bins(
    ex: Executor[Any], obj: object, key: Key, send_key: bool | None
) -> tuple[dict[str, Any], bool | None]:
    """Return the bins of a model instance (a model with a key field stores the key)."""
    mapping = mapping_of(type(obj), ex.codecs)
    own = mapping.user_key(obj)
    if own is not None and key[2] is not None and own != key[2]:
        raise InvalidArgumentError(
            f"{type(obj).__name__}.{mapping.key} is {own!r} but the record's key is {key[2]!r}"
        )
    if send_key is None and mapping.key is not None:
        send_key = True
    return mapping.encode(obj), send_key


def _as_model(
    ex: Executor[Any], cls: type[T], user_key: object, then: Callable[[Any], Any] | None
) -> Callable[[Any], T | None]:
    mapping = mapping_of(cls, ex.codecs)

    def finish(result: Any) -> T | None:
        record = then(result) if then is not None else result
        return None if record is None else mapping.decode(record, user_key)

    return finish
