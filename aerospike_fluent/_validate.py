"""Client-side checks run at the builder call that received the input, before any I/O.

Values are checked in one cheap pass: flat scalars take a fast path on their exact type; lists
and maps are walked to at most :data:`MAX_DEPTH` levels of nesting (deeper values, and values that
contain themselves, are rejected). Strings must be encodable as UTF-8 (no lone surrogates).
"""

from __future__ import annotations

import difflib
import math
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NoReturn

from aerospike_fluent import _native
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

NAMESPACE_MAX = 31
SET_MAX = 63
BIN_MAX = 15
TTL_MAX = 315_360_000
"""Longest TTL a server takes: 10 years, in seconds (a longer one is a ParameterError)."""
NEVER_EXPIRE = -1
"""TTL: never expire (0xFFFFFFFF on the wire)."""
KEEP_TTL = -2
"""TTL: an update keeps the record's TTL (0xFFFFFFFE on the wire)."""
GENERATION_MAX = 0xFFFF
INT_MIN = -(2**63)
INT_MAX = 2**63 - 1
MILLIS_MAX = 0xFFFF_FFFF  # u32 milliseconds on the wire
MAX_DEPTH = 64
"""Deepest nesting of lists/maps accepted in one value (a flat list is depth 1)."""

_SCALARS = (str, bytes, bytearray, float, _native.GeoJSON)
_PLAIN = frozenset({bytes, float, bool, type(None), bytearray, _native.GeoJSON})
_MAP_KEYS = frozenset({str, int, bytes})
_KEYS = (str, int, bytes)
# "certainly valid" in one native pass; anything they do not vouch for is checked here
_bins_ok = _native.bins_ok
_value_ok = _native.value_ok
# dict.copy of what _bins_ok vouched for (an exact dict): a C call, where typing.cast is a
# Python one
_copy_dict: Callable[[object], dict[str, Any]] = dict.copy  # type: ignore[assignment]


_SHOWN_BITS = 128
"""Integers longer than this are shown by their size: Python refuses to print one of more than
4,300 digits (a ``ValueError`` raised while the message is formatted)."""


def shown(value: object) -> str:
    """``repr(value)`` for an error message, a huge integer shown by its number of digits."""
    if isinstance(value, int) and value.bit_length() > _SHOWN_BITS:
        digits = int(value.bit_length() * math.log10(2)) + 1
        return f"{'-' if value < 0 else ''}<an integer of about {digits:,} digits>"
    return repr(value)


def text(what: str, value: str) -> str:
    """Check that a str can be encoded as UTF-8 (no lone surrogates); returns it."""
    if not value.isascii():
        try:
            value.encode()
        except UnicodeEncodeError as exc:
            bad = value[exc.start : exc.end]
            raise InvalidArgumentError(
                f"{what}: {bad!r} at position {exc.start} is not encodable as UTF-8 "
                "(lone surrogate)"
            ) from None
    return value


def name(kind: str, value: object, limit: int) -> str:
    """Check a namespace/set/bin/index name: a non-empty str of at most ``limit`` UTF-8 bytes.

    A server reads names as C strings: a NUL would cut one short, so it is refused.
    """
    if not isinstance(value, str):
        raise InvalidTypeError(f"{kind} name must be str, not {type(value).__name__}")
    if not value:
        raise InvalidArgumentError(f"{kind} name must not be empty")
    nul = value.find("\0")
    if nul >= 0:
        raise InvalidArgumentError(f"{kind} name {value!r} holds a NUL character (at {nul})")
    size = len(value) if value.isascii() else len(text(f"{kind} name", value).encode())
    if size > limit:
        raise InvalidArgumentError(f"{kind} name {value!r} is {size} bytes (max {limit})")
    return value


def namespace(value: object) -> str:
    """Check a namespace name."""
    return name("namespace", value, NAMESPACE_MAX)


def set_name(value: object) -> str:
    """Check a set name."""
    return name("set", value, SET_MAX)


_BIN_NAMES: set[str] = set()
"""Bin names (exact ``str``) already checked; bounded by :data:`_BIN_NAMES_MAX`."""
_BIN_NAMES_MAX = 4096
_known_names: Callable[[Any], bool] = _BIN_NAMES.issuperset
_join_names: Callable[[object], str] = "".join  # type: ignore[assignment]


def bin_name(value: object) -> str:
    """Check a bin name (names seen before, exact ``str``, skip the check)."""
    if type(value) is str and value in _BIN_NAMES:
        return value
    checked = name("bin", value, BIN_MAX)
    if type(value) is str and len(_BIN_NAMES) < _BIN_NAMES_MAX:
        _BIN_NAMES.add(checked)
    return checked


def bin_names(values: Iterable[object]) -> tuple[str, ...]:
    """Check several bin names."""
    return tuple(bin_name(v) for v in values)


def user_key(value: object) -> str | int | bytes:
    """Check a user key: ``str``, ``int`` (64-bit) or ``bytes``."""
    t = type(value)  # the common cases first, on the exact type
    if (t is str and value.isascii()) or (t is int and INT_MIN <= value <= INT_MAX):  # type: ignore[attr-defined,operator]
        return value  # type: ignore[return-value]
    if isinstance(value, bool) or not isinstance(value, str | int | bytes | bytearray):
        raise InvalidTypeError(f"key must be str, int or bytes, not {type_name(value)}")
    if isinstance(value, int) and not INT_MIN <= value <= INT_MAX:
        raise InvalidArgumentError(f"integer key {shown(value)} does not fit in 64 bits")
    if isinstance(value, str):
        return text("key", value)
    if isinstance(value, bytearray):
        return BlobKey(value)
    return value


class BlobKey(bytes):
    """A copy of a ``bytearray`` key: hashed as a blob whatever ``bytes_keys`` says.

    The official C-based client hashes a ``bytearray`` key as a blob too.
    """

    __slots__ = ()


def record_key(what: str, value: object) -> str | int | bytes:
    """Check a user key taken from data (a model's key field, a ``put_many`` key): not empty.

    ``what`` names where it came from. An empty key is most often a field left at its
    default: every record written under it would overwrite the last.
    """
    t = type(value)
    if (t is str and value and value.isascii()) or (t is int and INT_MIN <= value <= INT_MAX):  # type: ignore[attr-defined,operator]
        return value  # type: ignore[return-value]
    if isinstance(value, bool) or not isinstance(value, str | int | bytes | bytearray):
        raise InvalidTypeError(
            f"{what} is {value!r}: a key is a str, int or bytes, not {type_name(value)}"
        )
    if not isinstance(value, int) and not value:
        raise InvalidArgumentError(
            f"{what} is {value!r}, an empty key: records written under it overwrite each "
            "other; give each record a key of its own"
        )
    try:
        return user_key(value)
    except InvalidArgumentError as e:
        raise type(e)(f"{what} is {value!r}: {e}") from None


def type_name(value: object) -> str:
    """Return the name of ``value``'s type, with its module unless built in (``numpy.bool``)."""
    t = type(value)
    if t.__module__ == "builtins":
        return t.__qualname__
    return f"{t.__module__}.{t.__qualname__}"


def unknown(what: str, name: str, known: Iterable[str], label: str = "known") -> str:
    """Return the message refusing ``name``: the closest of ``known`` to it, then all of them."""
    known = list(known)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown {what} {name!r}{hint} ({label}: {', '.join(known)})"


def choice(what: str, value: object, allowed: Collection[str]) -> None:
    """Refuse ``value`` unless it is one of ``allowed``, naming the closest one."""
    if isinstance(value, str) and value in allowed:
        return
    close = difflib.get_close_matches(value, allowed, n=1) if isinstance(value, str) else []
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise InvalidArgumentError(
        f"{what} must be one of {', '.join(map(repr, allowed))}, not {value!r}{hint}"
    )


def known_names(what: str, given: Iterable[str], known: Collection[str]) -> None:
    """Refuse the first name of ``given`` that is not in ``known`` (e.g. an option)."""
    for name in sorted(set(given) - set(known)):
        raise InvalidArgumentError(unknown(what, name, sorted(known), "options"))


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
        raise InvalidArgumentError(f"{what} {shown(value)} is out of range [{low}, {high}]")
    return value


def ttl(value: int | timedelta | None) -> int | None:
    """Check a TTL: seconds or a ``timedelta``; -1 never expires, -2 keeps the current TTL.

    0 is the namespace's default TTL. Above :data:`TTL_MAX` lie the 32-bit wire forms of the
    special TTLs (0xFFFFFFFF never expire, 0xFFFFFFFE keep the TTL, 0xFFFFFFFD the client's
    default): refused, as a number meaning one of those is better written by its name.
    """
    if value is None:
        return None
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
        if seconds != int(seconds):
            raise InvalidArgumentError(f"ttl {value} is not a whole number of seconds")
        value = int(seconds)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"ttl must be int or timedelta, not {type(value).__name__}")
    if KEEP_TTL <= value <= TTL_MAX:
        return value
    raise InvalidArgumentError(
        f"ttl {shown(value)} is out of range: at most {TTL_MAX} s (10 years), or "
        f"af.NEVER_EXPIRE ({NEVER_EXPIRE}) to never expire, af.KEEP_TTL ({KEEP_TTL}) to keep "
        "the record's TTL, 0 for the namespace's default"
    )


def expire_at(when: object) -> int:
    """Convert an absolute expiry (an aware ``datetime``) to a TTL: whole seconds from now."""
    if not isinstance(when, datetime):
        raise InvalidTypeError(f"expire_at must be a datetime, not {type(when).__name__}")
    if when.tzinfo is None or when.utcoffset() is None:
        raise InvalidArgumentError(
            f"expire_at {when} has no timezone; give an aware datetime "
            "(e.g. datetime.now(timezone.utc) + timedelta(days=1))"
        )
    seconds = math.ceil(when.timestamp() - time.time())
    if seconds <= 0:
        raise InvalidArgumentError(f"expire_at {when.isoformat()} is not in the future")
    if seconds > TTL_MAX:
        raise InvalidArgumentError(
            f"expire_at {when.isoformat()} is beyond the largest TTL ({TTL_MAX} s, 10 years)"
        )
    return seconds


def generation(value: int | None) -> int | None:
    """Check an expected generation."""
    return None if value is None else integer("generation", value, 0, GENERATION_MAX)


def millis(what: str, value: float | timedelta | None) -> int | None:
    """Convert a timeout (seconds as float, or ``timedelta``) to whole milliseconds."""
    return None if value is None else duration(what, value)


def duration(what: str, value: object, per_second: int = 1000, most: int = MILLIS_MAX) -> int:
    """Whole units (ms, or µs when ``per_second`` is a million) of a duration in seconds.

    ``value`` is a number of seconds or a ``timedelta``; 0 means no limit. A positive duration
    shorter than one unit is refused: rounded to 0 it would mean no limit at all.
    """
    if isinstance(value, timedelta):
        seconds: float = value.total_seconds()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seconds = value  # an int stays one: it may be too large for a float
    else:
        raise InvalidTypeError(f"{what} is a number of seconds or a timedelta, not {value!r}")
    if not 0 <= seconds < math.inf:
        raise InvalidArgumentError(
            f"{what} must be a finite number of seconds >= 0, not {shown(value)}"
        )
    count = scaled(seconds, per_second, most)
    if count is None:
        raise InvalidArgumentError(
            f"{what}={shown(value)} is over the maximum ({most / per_second:g} s)"
        )
    if seconds > 0 and count == 0:
        smallest = "1 ms" if per_second == 1000 else "1 µs"
        raise InvalidArgumentError(
            f"{what}={value!r} is below {smallest}, the shortest duration (0 means no limit)"
        )
    return count


def scaled(seconds: float, per_second: int, limit: int) -> int | None:
    """``seconds`` (>= 0) in whole units of ``1 / per_second`` s; None above ``limit`` units.

    Seconds too large to multiply into a finite float are over any limit.
    """
    if seconds > limit:
        return None
    count = round(seconds * per_second)
    return None if count > limit else count


def where(bin_: str) -> str:
    """``bin 'name'``, or what a ``<placeholder>`` stands for (``<udf argument>``)."""
    return bin_[1:-1] if bin_.startswith("<") and bin_.endswith(">") else f"bin {bin_!r}"


def value(bin_: str, v: object) -> None:
    """Check that ``v`` is a value the server can store (recursively, to :data:`MAX_DEPTH`)."""
    t = type(v)
    if t is str:
        if not v.isascii():  # type: ignore[attr-defined]
            text(where(bin_), v)  # type: ignore[arg-type]
    elif t is int:
        if not INT_MIN <= v <= INT_MAX:  # type: ignore[operator]
            raise InvalidArgumentError(f"{where(bin_)}: integer {shown(v)} does not fit in 64 bits")
    elif t not in _PLAIN and not _value_ok(v):
        _walk(bin_, v, v, 0)


def _walk(bin_: str, root: object, v: Any, depth: int) -> None:
    t = type(v)
    if t is str:
        if not v.isascii():
            text(where(bin_), v)
    elif t is int:
        if not INT_MIN <= v <= INT_MAX:
            raise InvalidArgumentError(f"{where(bin_)}: integer {shown(v)} does not fit in 64 bits")
    elif t in _PLAIN:
        return
    elif isinstance(v, list):
        if depth >= MAX_DEPTH:
            _too_deep(bin_, root)
        for item in v:
            _walk(bin_, root, item, depth + 1)
    elif isinstance(v, dict):
        if depth >= MAX_DEPTH:
            _too_deep(bin_, root)
        for k, item in v.items():
            if type(k) not in _MAP_KEYS and (isinstance(k, bool) or not isinstance(k, _KEYS)):
                raise InvalidTypeError(
                    f"{where(bin_)}: map key must be str, int or bytes, not {type_name(k)}"
                )
            _walk(bin_, root, k, depth + 1)
            _walk(bin_, root, item, depth + 1)
    else:
        _other(bin_, root, v, depth)


def _other(bin_: str, root: object, v: object, depth: int) -> None:
    """Check subclasses of the plain types, and the CDT markers."""
    if isinstance(v, _SCALARS):
        if isinstance(v, str):
            text(where(bin_), v)
    elif isinstance(v, int):
        _walk(bin_, root, int(v), depth)
    elif v is not _native.INFINITY and v is not _native.WILDCARD:
        raise InvalidTypeError(f"{where(bin_)}: cannot store a value of type {type_name(v)}")


def _too_deep(bin_: str, root: object) -> NoReturn:
    if _contains_itself(root, ()):
        raise InvalidArgumentError(f"{where(bin_)}: the value contains itself (a cycle)")
    raise InvalidArgumentError(
        f"{where(bin_)}: lists/maps are nested more than {MAX_DEPTH} levels deep"
    )


def _contains_itself(v: object, path: tuple[int, ...]) -> bool:
    """Whether ``v`` reaches one of its ancestors (bounded: error path only)."""
    if not isinstance(v, list | dict) or len(path) > MAX_DEPTH:
        return False
    if id(v) in path:
        return True
    children = v if isinstance(v, list) else [*v.keys(), *v.values()]
    here = (*path, id(v))
    return any(_contains_itself(c, here) for c in children)


def _new_names_ok(values: Any) -> bool:
    """Whether names the native pass vouched for hold no NUL; those that do not are remembered."""
    if "\0" in _join_names(values):
        return False
    if len(_BIN_NAMES) + len(values) <= _BIN_NAMES_MAX:
        _BIN_NAMES.update(values)
    return True


def bins(values: object) -> dict[str, Any]:
    """Check a bins mapping for a write; returns a plain ``dict``."""
    # the common case, checked natively in one pass; that pass lets NUL in names through, so
    # they are names checked before, or new ones looked at here
    if _bins_ok(values) and (_known_names(values) or _new_names_ok(values)):
        return _copy_dict(values)
    if type(values) is not dict and not isinstance(values, Mapping):
        raise InvalidTypeError(f"bins must be a mapping, not {type(values).__name__}")
    if not values:
        raise InvalidArgumentError("bins must not be empty")
    known = _BIN_NAMES
    for k, v in values.items():
        if type(k) is not str or k not in known:
            bin_name(k)
        # value() inlined for the flat scalars (one call less per bin)
        t = type(v)
        if t is int:
            if not INT_MIN <= v <= INT_MAX:
                value(k, v)
        elif t is str:
            if not v.isascii():
                value(k, v)
        elif t not in _PLAIN:
            value(k, v)
    return dict(values)


def udf_call(module: str, function: str, args: Sequence[Any]) -> None:
    """Check a UDF call's module and function names and its arguments."""
    name("udf module", module, 127)
    name("udf function", function, 127)
    for a in args:
        value("<udf argument>", a)
