"""Shared base of the key builders: immutability, bin ops, filter and limits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar, Final, Generic, NoReturn, Self

from aerospike_fluent import _policy, _validate
from aerospike_fluent._bins import BinRef
from aerospike_fluent._collections import number
from aerospike_fluent._exec import Executor, M
from aerospike_fluent._plan import scalar_op
from aerospike_fluent._record_ops import RecordOps
from aerospike_fluent._types import Op
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp import Exp, parse


class Frozen:
    """Immutable slotted object: fields are set once, in ``__init__``, via ``_init``."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def _init(self, *values: Any) -> None:
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    def _evolve(self, **changes: Any) -> Self:
        new = object.__new__(type(self))
        for name in self._fields:
            object.__setattr__(new, name, changes.get(name, getattr(self, name)))
        return new

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable; chain methods return a copy")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")


def filter_exp(condition: Exp | str) -> tuple[Any, ...]:
    """Compile a ``where`` condition: an expression or AEL text."""
    e = parse(condition) if isinstance(condition, str) else condition
    if not isinstance(e, Exp):
        raise InvalidTypeError(
            f"where() takes an expression or AEL text, not {type(condition).__name__}"
        )
    if e.value_type not in (None, "bool"):
        raise InvalidArgumentError(f"a filter must be boolean, not {e.value_type}")
    return e.compile()


def and_filter(previous: tuple[Any, ...] | None, condition: Exp | str) -> tuple[Any, ...]:
    """Add a ``where`` condition: a second one narrows the first (AND), never replaces it."""
    new = filter_exp(condition)
    if previous is None:
        return new
    if previous[0] == "and":
        return (*previous, new)
    return ("and", previous, new)


_INT_MIN, _INT_MAX = _validate.INT_MIN, _validate.INT_MAX

_VERB_EXISTS: dict[str, int] = {
    verb: _policy.EXISTS[mode]
    for verb, mode in (
        ("put", "upsert"),
        ("update", "update"),
        ("replace", "replace"),
        ("replace_if_exists", "replace_only"),
        ("insert", "create"),
    )
}


Base = tuple[Executor[Any], tuple[Any, ...] | None, _policy.Limits | None, Any]
"""What a chain's operations do not change: executor, filter, limits, target (key or keys).

A plain tuple, built for every key (a ``NamedTuple`` costs 5-7x more to build): read it by
unpacking, or at the positions below.
"""
EX: Final = 0
FILTER: Final = 1
LIMITS: Final = 2
TARGET: Final = 3


class OpChain(Frozen, Generic[M]):
    """Accumulates bin operations plus the ``where`` filter and transaction limits.

    Two slots, ``_base`` and ``_ops``: every chained operation returns a copy, and a copy costs
    a slot write per field.
    """

    __slots__ = ("_base", "_ops")
    _fields: ClassVar[tuple[str, ...]] = ("_base", "_ops")
    _base: Base
    _ops: tuple[Op, ...]

    @property
    def _ex(self) -> Executor[M]:
        return self._base[EX]

    def _copy(self, base: Base, ops: tuple[Op, ...]) -> Self:
        new = _NEW(type(self))
        _SET_BASE(new, base)
        _SET_OPS(new, ops)
        return new

    def _with_op(self, op: Op) -> Self:
        # _copy inlined: once per chained operation
        new = _NEW(type(self))
        _SET_BASE(new, self._base)
        _SET_OPS(new, (*self._ops, op))
        return new

    def _with_ops(self, ops: tuple[Op, ...]) -> Self:
        """Return a copy whose operations are ``ops``."""
        return self._copy(self._base, ops)

    def bin(self, name: str) -> BinRef[Self]:
        """Operations on bin ``name``: ``.set``, ``.add``, ``.append``, ``.list``, ``.map``..."""
        return BinRef(self, _validate.bin_name(name), ())

    @property
    def record(self) -> RecordOps[Self]:
        """Record-wide operations in the chain: ``.record.touch()``, ``.record.delete()``."""
        return RecordOps(self)

    def set_bins(self, bins: dict[str, Any]) -> Self:
        """Write several bins (in the same request as the chain's other operations)."""
        checked: dict[str, Any] = _validate.bins(bins)
        return self._with_ops((*self._ops, *(("write", k, v) for k, v in checked.items())))

    def add(self, bin_name: str, amount: int | float = 1) -> Self:
        """Add ``amount`` to a numeric bin."""
        name = _validate.bin_name(bin_name)
        t = type(amount)
        if t is not float and (t is not int or not _INT_MIN <= amount <= _INT_MAX):
            amount = number(name, amount)  # raises for anything but an int64 or a float
        return self._with_op(scalar_op("add", name, amount))

    increment = add

    def append(self, bin_name: str, suffix: str | bytes) -> Self:
        """Append to a string/bytes bin."""
        return self.bin(bin_name).append(suffix)

    def prepend(self, bin_name: str, prefix: str | bytes) -> Self:
        """Prepend to a string/bytes bin."""
        return self.bin(bin_name).prepend(prefix)

    def read(self, *bins: str) -> Self:
        """Read bins (all when none given) after the operations before it."""
        if not bins:
            return self._with_op(scalar_op("read_all", None))
        if len(bins) == 1:
            return self._with_op(scalar_op("read", _validate.bin_name(bins[0])))
        return self._with_ops((*self._ops, *(("read", b) for b in _validate.bin_names(bins))))

    def read_header(self) -> Self:
        """Read generation and TTL only."""
        return self._with_op(scalar_op("read_header", None))

    def where(self, condition: Exp | str) -> Self:
        """Apply only to records matching ``condition`` (others fail with FilteredOutError).

        Several ``where`` calls all apply (AND).
        """
        ex, previous, lim, target = self._base
        return self._copy((ex, and_filter(previous, condition), lim, target), self._ops)

    def timeout(
        self,
        total: float | timedelta | None = None,
        *,
        socket: float | timedelta | None = None,
        retries: int | None = None,
        retry_writes: bool | None = None,
    ) -> Self:
        """Set transaction limits for this chain's request.

        Args:
            total: whole-call timeout, seconds (float) or ``timedelta``; 0 = none, at least
                1 ms otherwise.
            socket: per-attempt socket idle timeout.
            retries: attempts after the first; by default they apply to reads only.
            retry_writes: let writes (put, operate with writes, delete, touch, UDF) be retried
                too. Off by default: a write that timed out may have been applied, and sending
                it again is only safe when it is idempotent (e.g. a plain put of fixed values,
                not ``add``/``append``/list appends).

        """
        ex, filt, _, target = self._base
        lim = _policy.limits(total, socket, retries, retry_writes)
        return self._copy((ex, filt, lim, target), self._ops)

    @property
    def ops(self) -> tuple[Op, ...]:
        """The compiled operations of this chain (native plan format)."""
        return self._ops

    def _write_policy(
        self, verb: str, ttl: _policy.TTL, generation: int | None, send_key: bool | None
    ) -> Any:
        """Return the policy of a write verb (put, insert, update, replace, ...)."""
        return self._policy(
            ttl=ttl,
            generation=generation,
            exists=_VERB_EXISTS[verb],
            send_key=send_key,
            operate=bool(self._ops),
        )

    def _writes_then_ops(self, bins: dict[str, Any]) -> list[Op]:
        """Bin writes followed by the chain's own operations: one operate."""
        ops: list[Op] = [("write", k, v) for k, v in bins.items()]
        ops.extend(self._ops)
        return ops

    def _policy(
        self,
        *,
        ttl: _policy.TTL = None,
        generation: int | None = None,
        exists: int = 0,
        send_key: bool | None = None,
        durable: bool | None = None,
        operate: bool = False,
    ) -> Any:
        _, filt, lim, _ = self._base
        if _is_default(ttl, generation, exists, send_key, durable, filt, lim):
            # skip the validation and the keyword-heavy build
            return _policy.operate_default() if operate else None
        return _policy.build(
            operate=operate,
            filter=filt,
            lim=lim,
            ttl=_validate.ttl(ttl),
            generation=_validate.generation(generation),
            exists=exists,
            send_key=_policy.flag("send_key", send_key),
            durable_delete=_policy.flag("durable", durable),
        )


_is_default = _policy.is_default
_NEW = object.__new__
# the slots' own setters: a third of object.__setattr__'s cost
_SET_BASE, _SET_OPS = (getattr(OpChain, name).__set__ for name in ("_base", "_ops"))
