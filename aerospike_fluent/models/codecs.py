"""Codecs: how values of types the server does not store are written and read back.

Built in, for model fields: aware ``datetime`` as integer nanoseconds since the Unix epoch
(sortable and comparable in filter expressions), ``date`` as ISO text, ``UUID`` as a 16-byte
blob, ``Decimal`` as text, an ``Enum`` as its value, ``tuple``/``set``/``frozenset`` as lists,
numpy scalars and ``pd.Timestamp`` as the plain values they hold. Another encoding for one
field: ``Annotated[datetime, codecs.DATETIME_ISO]``. Plain dict puts convert only the types
registered on the client (``connect(codecs=[...])``).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any, Final, Generic, TypeVar
from uuid import UUID

from aerospike_fluent._validate import type_name
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

T = TypeVar("T")

EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND: Final = timedelta(microseconds=1)


@dataclasses.dataclass(frozen=True, slots=True)
class Codec(Generic[T]):
    """How values of ``type`` are stored (``encode``) and read back (``decode``)."""

    type: type[T]
    encode: Callable[[T], Any]
    decode: Callable[[Any], T]
    name: str


def _datetime_ns(value: datetime) -> int:
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidArgumentError(
            f"datetime {value} has no timezone: give an aware datetime (stored as UTC "
            "nanoseconds), or annotate the field with codecs.DATETIME_ISO"
        )
    micros = (value - EPOCH) // _MICROSECOND
    return int(micros) * 1000 + int(getattr(value, "nanosecond", 0))


def _from_ns(value: Any) -> datetime:
    if type(value) is not int:
        raise TypeError(f"expected integer nanoseconds, not {type(value).__name__}")
    return EPOCH + timedelta(microseconds=value // 1000)


def _uuid(value: Any) -> UUID:
    if isinstance(value, bytes | bytearray):
        return UUID(bytes=bytes(value))
    return UUID(value)


DATETIME_NS: Final = Codec(datetime, _datetime_ns, _from_ns, "datetime as UTC nanoseconds")
DATETIME_ISO: Final = Codec(datetime, datetime.isoformat, datetime.fromisoformat, "ISO text")
DATE: Final = Codec(date, date.isoformat, date.fromisoformat, "date as ISO text")
UUID_BYTES: Final = Codec(UUID, lambda u: u.bytes, _uuid, "UUID as 16 bytes")
UUID_TEXT: Final = Codec(UUID, str, _uuid, "UUID as text")
DECIMAL: Final = Codec(Decimal, str, Decimal, "Decimal as text")

BUILT_IN: Final = (DATETIME_NS, DATE, UUID_BYTES, DECIMAL)


class Codecs:
    """Codecs by type: exact type first, then the nearest base class."""

    __slots__ = ("_by_type",)

    def __init__(self, codecs: Iterable[Codec[Any]] = ()) -> None:
        self._by_type: dict[type, Codec[Any]] = {}
        for codec in codecs:
            if not isinstance(codec, Codec):
                raise InvalidTypeError(f"a codec is an af.models.codecs.Codec, not {codec!r}")
            self._by_type[codec.type] = codec

    def __bool__(self) -> bool:
        return bool(self._by_type)

    def __repr__(self) -> str:
        return f"Codecs({', '.join(t.__name__ for t in self._by_type)})"

    def all(self) -> list[Codec[Any]]:
        """Return the codecs, one per type."""
        return list(self._by_type.values())

    def encode_bins(self, bins: Any) -> Any:
        """Return a dict put's bins with the values of registered types encoded."""
        if not isinstance(bins, dict):
            return bins
        return {k: self.encode(v, f"bin {k!r}", strict=False) for k, v in bins.items()}

    def with_(self, codecs: Iterable[Codec[Any]]) -> Codecs:
        """Return these codecs with ``codecs`` added (replacing those of the same type)."""
        return Codecs([*self._by_type.values(), *codecs])

    def find(self, tp: type) -> Codec[Any] | None:
        """Return the codec of ``tp``, or of its nearest registered base class."""
        found = self._by_type.get(tp)
        if found is not None:
            return found
        for base in getattr(tp, "__mro__", ())[1:]:
            if base in self._by_type:
                return self._by_type[base]
        return None

    def encode(self, value: Any, where: str, *, strict: bool = True) -> Any:
        """Return ``value`` as the server stores it (lists and maps converted throughout).

        ``strict=False`` (dict puts): only registered types are converted; the rest is left to
        the usual checks.
        """
        t = type(value)
        if t in _STORED:
            return value
        if t is list:
            return [self.encode(v, where, strict=strict) for v in value]
        if t is dict:
            return {k: self.encode(v, where, strict=strict) for k, v in value.items()}
        codec = self.find(t)
        if codec is not None:
            return codec.encode(value)
        return _generic(self, value, where) if strict else value

    def names(self) -> list[str]:
        """Names of the types these codecs handle."""
        return [t.__name__ for t in self._by_type]


def _generic(codecs: Codecs, value: Any, where: str) -> Any:
    if isinstance(value, enum.Enum):
        return codecs.encode(value.value, where)
    if isinstance(value, tuple | set | frozenset):
        return [codecs.encode(v, where) for v in value]
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy":
        return item()
    supported = ", ".join(
        [
            *("int", "float", "str", "bytes", "bool", "None", "list", "dict"),
            *codecs.names(),
            *("Enum", "tuple", "set", "frozenset", "numpy scalars"),
        ]
    )
    raise InvalidTypeError(
        f"{where}: cannot store a value of type {type_name(value)} (supported: {supported}; "
        "register a Codec for others)"
    )


_STORED: Final = frozenset({int, float, str, bytes, bytearray, bool, type(None)})

DEFAULT: Final = Codecs(BUILT_IN)
"""The codecs every model uses unless a field or the client names another."""
