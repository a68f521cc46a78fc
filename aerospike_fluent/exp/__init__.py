"""Filter and read expressions, conventionally imported as ``F``.

Example:
    >>> from aerospike_fluent import exp as F
    >>> adult_us = (F.bin("age") >= 18) & (F.str_bin("country") == "US")
    >>> recent = F.since_update() < 60_000  # milliseconds
    >>> same = F.parse("$.age >= 18 and $.country == 'US'")  # AEL text, compiled client-side

"""

from __future__ import annotations

from aerospike_fluent import _validate
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp._ael import parse, to_ael
from aerospike_fluent.exp._bits import BitsExp
from aerospike_fluent.exp._cdt import ElementExp, ListExp, MapExp
from aerospike_fluent.exp._control import Let, cond, exclusive, let, unknown, var
from aerospike_fluent.exp._core import Exp, Operand, ValueType, bin_, fn, to_exp, val
from aerospike_fluent.exp._core import key as _key
from aerospike_fluent.exp._core import value_type as _check_type
from aerospike_fluent.exp._hll import HllExp
from aerospike_fluent.exp._intbits import (
    arshift,
    int_and,
    int_count,
    int_lscan,
    int_not,
    int_or,
    int_rscan,
    int_xor,
    lshift,
    rshift,
)

__all__ = [
    "BitsExp",
    "ElementExp",
    "Exp",
    "HllExp",
    "Let",
    "ListExp",
    "MapExp",
    "Operand",
    "ValueType",
    "abs_",
    "all_of",
    "any_of",
    "arshift",
    "bin",
    "bin_exists",
    "bin_type",
    "blob_bin",
    "bool_bin",
    "ceil",
    "cond",
    "device_size",
    "digest_modulo",
    "exclusive",
    "float_bin",
    "floor",
    "geo_bin",
    "geo_compare",
    "hll_bin",
    "in_list",
    "int_and",
    "int_bin",
    "int_count",
    "int_lscan",
    "int_not",
    "int_or",
    "int_rscan",
    "int_xor",
    "is_tombstone",
    "key",
    "key_exists",
    "last_update",
    "let",
    "list_bin",
    "lshift",
    "map_bin",
    "max_",
    "memory_size",
    "min_",
    "not_",
    "parse",
    "record_size",
    "regex",
    "rshift",
    "set_name",
    "since_update",
    "str_bin",
    "to_ael",
    "to_float",
    "to_int",
    "ttl",
    "unknown",
    "val",
    "var",
    "void_time",
]


def bin(name: str, type: ValueType | None = None) -> Exp:
    """Return a bin; its type is inferred from use unless given (``"int"``, ``"str"``, ...)."""
    return bin_(name, type)


def int_bin(name: str) -> Exp:
    """Return an integer bin."""
    return bin_(name, "int")


def float_bin(name: str) -> Exp:
    """Return a float bin."""
    return bin_(name, "float")


def str_bin(name: str) -> Exp:
    """Return a string bin."""
    return bin_(name, "str")


def bool_bin(name: str) -> Exp:
    """Return a boolean bin."""
    return bin_(name, "bool")


def blob_bin(name: str) -> Exp:
    """Return a bytes bin."""
    return bin_(name, "blob")


def hll_bin(name: str) -> Exp:
    """Return an HLL bin read."""
    return bin_(name, "hll")


def list_bin(name: str) -> Exp:
    """Return a list bin (see :attr:`Exp.list`)."""
    return bin_(name, "list")


def map_bin(name: str) -> Exp:
    """Return a map bin (see :attr:`Exp.map`)."""
    return bin_(name, "map")


def geo_bin(name: str) -> Exp:
    """Return a GeoJSON bin."""
    return bin_(name, "geo")


def bin_exists(name: str) -> Exp:
    """Return True when the record has bin ``name``."""
    return fn("bin_exists", (_validate.bin_name(name),), "bool")


def bin_type(name: str) -> Exp:
    """Return the particle type (int) of bin ``name``."""
    return fn("bin_type", (_validate.bin_name(name),), "int")


def key(type: ValueType | None = None) -> Exp:
    """Return the record's stored user key (only when written with ``send_key``).

    Its type (int, str or bytes) is inferred from what it is compared with when not given.
    """
    return _key(None if type is None else _check_type(type))


def key_exists() -> Exp:
    """Return True when the user key is stored with the record."""
    return fn("key_exists", (), "bool")


def set_name() -> Exp:
    """Return the record's set name."""
    return fn("set_name", (), "str")


def record_size() -> Exp:
    """Return the record's size in bytes."""
    return fn("record_size", (), "int")


def device_size() -> Exp:
    """Return the record's size in bytes (the server's deprecated name of `record_size`)."""
    return record_size()


def memory_size() -> Exp:
    """Return the record's size in bytes (the server's deprecated name of `record_size`)."""
    return record_size()


def ttl() -> Exp:
    """Seconds until the record expires."""
    return fn("ttl", (), "int")


def void_time() -> Exp:
    """Expiration time in nanoseconds since the epoch."""
    return fn("void_time", (), "int")


def last_update() -> Exp:
    """Last update time in nanoseconds since the epoch."""
    return fn("last_update", (), "int")


def since_update() -> Exp:
    """Milliseconds since the last update."""
    return fn("since_update", (), "int")


def is_tombstone() -> Exp:
    """Return True for a tombstone (durable delete)."""
    return fn("is_tombstone", (), "bool")


def digest_modulo(modulo: int) -> Exp:
    """Return the record digest modulo ``modulo`` (for sampling)."""
    return fn("digest_modulo", (_validate.integer("modulo", modulo, 1, 2**31 - 1),), "int")


def all_of(*exps: Exp) -> Exp:
    """Logical and of every expression."""
    return _fold(exps, "all_of", Exp.__and__)


def any_of(*exps: Exp) -> Exp:
    """Logical or of every expression."""
    return _fold(exps, "any_of", Exp.__or__)


def not_(e: Exp) -> Exp:
    """Logical not."""
    return ~e


def regex(bin_exp: Exp, pattern: str, flags: int = 0) -> Exp:
    """Return True when the string ``bin_exp`` matches the POSIX regex ``pattern``."""
    if not isinstance(pattern, str):
        raise InvalidTypeError("regex pattern must be a str")
    return fn("regex_compare", (pattern, flags, bin_exp), "bool", "str")


def geo_compare(left: Operand, right: Operand) -> Exp:
    """Return True when the two GeoJSON values intersect / contain each other."""
    return fn("geo_compare", (to_exp(left), to_exp(right)), "bool", "geo")


def in_list(value: Operand, values: Operand) -> Exp:
    """Return True when ``value`` is an element of the list ``values``."""
    lst = _typed(to_exp(values), "list")
    if lst.value_type != "list":
        raise InvalidArgumentError(f"in_list() needs a list, got a {lst.value_type}")
    v = to_exp(value)
    items = lst._args[0][1] if lst._name == "list_val" else None
    if items and v.value_type is None:
        v = _typed(v, to_exp(items[0]).value_type)
    return fn("in_list", (v, lst), "bool")


def _typed(e: Exp, t: str | None) -> Exp:
    """``e`` with type ``t`` when it is an untyped bin or path read."""
    from aerospike_fluent.exp._core import _BIN, _LAZY

    if t is None or e.value_type is not None:
        return e
    if e._kind == _BIN:
        return bin_(e._args[0], t)
    if e._kind == _LAZY:
        return Exp(_LAZY, e._name, e._args, t)
    return e


def min_(*values: Operand) -> Exp:
    """Return the smallest of the numbers."""
    return _variadic("min", values)


def max_(*values: Operand) -> Exp:
    """Return the largest of the numbers."""
    return _variadic("max", values)


def abs_(value: Operand) -> Exp:
    """Absolute value."""
    return abs(to_exp(value))


def floor(value: Operand) -> Exp:
    """Round a float down."""
    return fn("num_floor", (to_exp(value),), "float", "float")


def ceil(value: Operand) -> Exp:
    """Round a float up."""
    return fn("num_ceil", (to_exp(value),), "float", "float")


def to_int(value: Operand) -> Exp:
    """Convert a float to an int."""
    return fn("to_int", (to_exp(value),), "int", "float")


def to_float(value: Operand) -> Exp:
    """Convert an int to a float."""
    return fn("to_float", (to_exp(value),), "float", "int")


def _fold(exps: tuple[Exp, ...], what: str, op: object) -> Exp:
    if not exps:
        raise InvalidArgumentError(f"{what}() needs at least one expression")
    result = exps[0]
    for e in exps[1:]:
        result = op(result, e)  # type: ignore[operator]
    return result


def _variadic(name: str, values: tuple[Operand, ...]) -> Exp:
    from aerospike_fluent.exp._core import _NUM

    if len(values) < 2:
        raise InvalidArgumentError(f"{name} needs at least two values")
    return Exp(_NUM, name, tuple(to_exp(v) for v in values), None)
