"""Client-side checks run at the builder call that received the input, before any I/O."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from aerospike_fluent import _native
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

NAMESPACE_MAX = 31
SET_MAX = 63
BIN_MAX = 15
TTL_MAX = 0xFFFF_FFFF - 1  # u32 on the wire; 0xFFFFFFFF is "never expire" (-1)
GENERATION_MAX = 0xFFFF
INT_MIN = -(2**63)
INT_MAX = 2**63 - 1

_SCALARS = (str, bytes, bytearray, float, _native.GeoJSON)


def name(kind: str, value: object, limit: int) -> str:
    """Check a namespace/set/bin/index name: a non-empty str of at most ``limit`` UTF-8 bytes."""
    if not isinstance(value, str):
        raise InvalidTypeError(f"{kind} name must be str, not {type(value).__name__}")
    if not value:
        raise InvalidArgumentError(f"{kind} name must not be empty")
    size = len(value.encode())
    if size > limit:
        raise InvalidArgumentError(f"{kind} name {value!r} is {size} bytes (max {limit})")
    return value


def namespace(value: object) -> str:
    """Check a namespace name."""
    return name("namespace", value, NAMESPACE_MAX)


def set_name(value: object) -> str:
    """Check a set name."""
    return name("set", value, SET_MAX)


def bin_name(value: object) -> str:
    """Check a bin name."""
    return name("bin", value, BIN_MAX)


def bin_names(values: Iterable[object]) -> tuple[str, ...]:
    """Check several bin names."""
    return tuple(bin_name(v) for v in values)


def user_key(value: object) -> str | int | bytes:
    """Check a user key: ``str``, ``int`` (64-bit) or ``bytes``."""
    if isinstance(value, bool) or not isinstance(value, str | int | bytes | bytearray):
        raise InvalidTypeError(f"key must be str, int or bytes, not {type(value).__name__}")
    if isinstance(value, int) and not INT_MIN <= value <= INT_MAX:
        raise InvalidArgumentError(f"integer key {value} does not fit in 64 bits")
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def digest(value: object) -> bytes:
    """Check a record digest: exactly 20 bytes."""
    if not isinstance(value, bytes | bytearray) or len(value) != 20:
        raise InvalidArgumentError("a digest is exactly 20 bytes")
    return bytes(value)


def integer(what: str, value: object, low: int, high: int) -> int:
    """Check an int within ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{what} must be int, not {type(value).__name__}")
    if not low <= value <= high:
        raise InvalidArgumentError(f"{what} {value} is out of range [{low}, {high}]")
    return value


def ttl(value: int | timedelta | None) -> int | None:
    """Check a TTL: seconds or a ``timedelta``; -1 never expires, -2 keeps the current TTL."""
    if value is None:
        return None
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
        if seconds != int(seconds):
            raise InvalidArgumentError(f"ttl {value} is not a whole number of seconds")
        value = int(seconds)
    return integer("ttl", value, -2, TTL_MAX)


def generation(value: int | None) -> int | None:
    """Check an expected generation."""
    return None if value is None else integer("generation", value, 0, GENERATION_MAX)


def millis(what: str, value: float | timedelta | None) -> int | None:
    """Convert a timeout (seconds as float, or ``timedelta``) to whole milliseconds."""
    if value is None:
        return None
    if isinstance(value, timedelta):
        value = value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidTypeError(f"{what} must be seconds (int/float) or timedelta")
    if value < 0:
        raise InvalidArgumentError(f"{what} must not be negative")
    return round(value * 1000)


def value(bin_: str, v: object) -> None:
    """Check that ``v`` is a value the server can store (recursively)."""
    if v is None or isinstance(v, _SCALARS):
        return
    if isinstance(v, int):
        if not INT_MIN <= v <= INT_MAX:
            raise InvalidArgumentError(f"bin {bin_!r}: integer {v} does not fit in 64 bits")
        return
    if isinstance(v, list):
        for item in v:
            value(bin_, item)
        return
    if isinstance(v, dict):
        for k, item in v.items():
            if isinstance(k, bool) or not isinstance(k, str | int | bytes):
                raise InvalidTypeError(
                    f"bin {bin_!r}: map key must be str, int or bytes, not {type(k).__name__}"
                )
            value(bin_, k)
            value(bin_, item)
        return
    if v is _native.INFINITY or v is _native.WILDCARD:
        return
    raise InvalidTypeError(f"bin {bin_!r}: cannot store a value of type {type(v).__name__}")


def bins(values: object) -> dict[str, Any]:
    """Check a bins mapping for a write; returns a plain ``dict``."""
    if not isinstance(values, Mapping):
        raise InvalidTypeError(f"bins must be a mapping, not {type(values).__name__}")
    if not values:
        raise InvalidArgumentError("bins must not be empty")
    for k, v in values.items():
        bin_name(k)
        value(k, v)
    return dict(values)
