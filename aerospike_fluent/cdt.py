"""Collection (list/map) constants and context steps shared by operations and expressions."""

from __future__ import annotations

from enum import IntEnum, IntFlag
from typing import Any

from aerospike_fluent import _validate
from aerospike_fluent.errors import InvalidArgumentError

Ctx = tuple[tuple[Any, ...], ...]

INVERTED = 0x10000


class Return(IntEnum):
    """What a selecting list/map operation returns.

    ``KEY``, ``KEY_VALUE`` (a list of ``(key, value)`` pairs in the server's order),
    ``UNORDERED_MAP`` and ``ORDERED_MAP`` (a dict) are for maps only.
    """

    NONE = 0
    INDEX = 1
    REVERSE_INDEX = 2
    RANK = 3
    REVERSE_RANK = 4
    COUNT = 5
    KEY = 6
    VALUE = 7
    KEY_VALUE = 8
    EXISTS = 13
    UNORDERED_MAP = 16
    ORDERED_MAP = 17


class ListOrder(IntEnum):
    """List ordering."""

    UNORDERED = 0
    ORDERED = 1


class MapOrder(IntEnum):
    """Map ordering."""

    UNORDERED = 0
    KEY_ORDERED = 1
    KEY_VALUE_ORDERED = 3


class ListWrite(IntFlag):
    """List write flags."""

    DEFAULT = 0
    ADD_UNIQUE = 1
    INSERT_BOUNDED = 2
    NO_FAIL = 4
    PARTIAL = 8


class MapWrite(IntFlag):
    """Map write flags."""

    DEFAULT = 0
    CREATE_ONLY = 1
    UPDATE_ONLY = 2
    NO_FAIL = 4
    PARTIAL = 8


class ListSort(IntFlag):
    """List sort flags."""

    DEFAULT = 0
    DESCENDING = 1
    DROP_DUPLICATES = 2


_MAP_ONLY = frozenset({Return.KEY, Return.KEY_VALUE, Return.UNORDERED_MAP, Return.ORDERED_MAP})


def return_type(rt: Return, inverted: bool, *, is_map: bool) -> int:
    """Return the wire int for a return type (``| 0x10000`` when inverted)."""
    rt = Return(rt)
    if not is_map and rt in _MAP_ONLY:
        raise InvalidArgumentError(f"{rt.name} is a map return type")
    return int(rt) | (INVERTED if inverted else 0)


def index(what: str, value: object) -> int:
    """Check a (possibly negative) 64-bit index/rank/count."""
    return _validate.integer(what, value, _validate.INT_MIN, _validate.INT_MAX)


def cdt_value(v: object) -> Any:
    """Check a value used inside a collection operation."""
    _validate.value("<a list or map value>", v)
    return v


# Context steps: tuples ``(step_name, *args)`` in the native plan format.


def ctx_list_index(i: int) -> tuple[Any, ...]:
    """Step into the list element at index ``i``."""
    return ("list_index", index("index", i))


def ctx_list_index_create(i: int, order: ListOrder, pad: bool) -> tuple[Any, ...]:
    """Step into index ``i``, creating the list if missing."""
    return ("list_index_create", index("index", i), int(ListOrder(order)), bool(pad))


def ctx_list_rank(r: int) -> tuple[Any, ...]:
    """Step into the list element of rank ``r``."""
    return ("list_rank", index("rank", r))


def ctx_list_value(v: object) -> tuple[Any, ...]:
    """Step into the list element equal to ``v``."""
    return ("list_value", cdt_value(v))


def ctx_map_key(k: object) -> tuple[Any, ...]:
    """Step into the map entry with key ``k``."""
    return ("map_key", _map_key(k))


def ctx_map_key_create(k: object, order: MapOrder) -> tuple[Any, ...]:
    """Step into key ``k``, creating the map if missing."""
    return ("map_key_create", _map_key(k), int(MapOrder(order)))


def ctx_map_index(i: int) -> tuple[Any, ...]:
    """Step into the map entry at index ``i`` (key order)."""
    return ("map_index", index("index", i))


def ctx_map_rank(r: int) -> tuple[Any, ...]:
    """Step into the map entry of value rank ``r``."""
    return ("map_rank", index("rank", r))


def ctx_map_value(v: object) -> tuple[Any, ...]:
    """Step into the map entry whose value is ``v``."""
    return ("map_value", cdt_value(v))


def _map_key(k: object) -> Any:
    if isinstance(k, bool) or not isinstance(k, str | int | bytes):
        from aerospike_fluent.errors import InvalidTypeError

        raise InvalidTypeError(f"map key must be str, int or bytes, not {_validate.type_name(k)}")
    return cdt_value(k)
