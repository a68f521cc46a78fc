"""Bin-scoped operation builders: ``chain.bin("x").add(1)``, ``.bin("m").map.put(k, v)``.

Every operation returns the chain it was started from (a new one, with the op appended), so a
chain can continue with another ``.bin(...)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from aerospike_fluent import _validate, cdt
from aerospike_fluent.cdt import Ctx, ListOrder, ListSort, ListWrite, MapOrder, MapWrite, Return
from aerospike_fluent.errors import InvalidTypeError

if TYPE_CHECKING:
    from aerospike_fluent.exp import Exp

from aerospike_fluent._types import Op

C = TypeVar("C", bound="Chain")


class Chain(Protocol):
    """Anything that accumulates operations."""

    def _with_op(self: C, op: Op) -> C: ...


class _Scope(Generic[C]):
    __slots__ = ("_bin", "_chain", "_ctx")

    def __init__(self, chain: C, bin_name: str, ctx: Ctx) -> None:
        self._chain = chain
        self._bin = bin_name
        self._ctx = ctx


class ElementRef(_Scope[C]):
    """An element inside a collection bin: continue with ``.list`` or ``.map``."""

    __slots__ = ()

    @property
    def list(self) -> ListRef[C]:
        """List operations on this element."""
        return ListRef(self._chain, self._bin, self._ctx)

    @property
    def map(self) -> MapRef[C]:
        """Map operations on this element."""
        return MapRef(self._chain, self._bin, self._ctx)


class BinRef(ElementRef[C]):
    """One bin of the record: scalar operations, or ``.list`` / ``.map`` for collections."""

    __slots__ = ()

    def set(self, value: Any) -> C:
        """Write ``value`` (``None`` removes the bin)."""
        _validate.value(self._bin, value)
        return self._chain._with_op(("write", self._bin, value))

    def remove(self) -> C:
        """Remove the bin."""
        return self._chain._with_op(("write", self._bin, None))

    def add(self, amount: int | float) -> C:
        """Add ``amount`` (int or float) to a numeric bin (created when missing)."""
        return self._chain._with_op(("add", self._bin, _number(self._bin, amount)))

    increment = add

    def append(self, suffix: str | bytes) -> C:
        """Append to a string/bytes bin."""
        return self._chain._with_op(("append", self._bin, _text(self._bin, suffix)))

    def prepend(self, prefix: str | bytes) -> C:
        """Prepend to a string/bytes bin."""
        return self._chain._with_op(("prepend", self._bin, _text(self._bin, prefix)))

    def read(self) -> C:
        """Read the bin (after the operations before it in the chain)."""
        return self._chain._with_op(("read", self._bin))

    def write_exp(self, exp: Exp, *, flags: int = 0) -> C:
        """Write the value of ``exp`` into the bin."""
        return self._chain._with_op(("exp_write", self._bin, _exp(exp), flags))

    def read_exp(self, exp: Exp, *, flags: int = 0) -> C:
        """Compute ``exp`` and return it under this name (no bin is written)."""
        return self._chain._with_op(("exp_read", self._bin, _exp(exp), flags))


def _exp(e: object) -> tuple[Any, ...]:
    from aerospike_fluent.exp import Exp

    if not isinstance(e, Exp):
        raise InvalidTypeError(f"expected an expression, got {type(e).__name__}")
    return e.compile()


def _number(bin_name: str, v: object) -> int | float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise InvalidTypeError(f"bin {bin_name!r}: add needs an int or float")
    _validate.value(bin_name, v)
    return v


def _text(bin_name: str, v: object) -> str | bytes:
    if not isinstance(v, str | bytes):
        raise InvalidTypeError(f"bin {bin_name!r}: append/prepend need str or bytes")
    return v


class ListRef(_Scope[C]):
    """List operations on a bin or nested list. Selectors take ``return_type`` / ``inverted``."""

    __slots__ = ()

    def _op(self, fn: str, *args: Any) -> C:
        return self._chain._with_op((f"list_{fn}", self._bin, self._ctx, *args))

    @staticmethod
    def _rt(rt: Return, inverted: bool) -> int:
        return cdt.return_type(rt, inverted, is_map=False)

    @staticmethod
    def _policy(order: ListOrder, flags: ListWrite) -> tuple[int, int]:
        return (int(ListOrder(order)), int(ListWrite(flags)))

    # navigation
    def at_index(self, index: int) -> ElementRef[C]:
        """Step into the element at ``index``."""
        return ElementRef(self._chain, self._bin, (*self._ctx, cdt.ctx_list_index(index)))

    def at_index_create(
        self, index: int, order: ListOrder = ListOrder.UNORDERED, pad: bool = False
    ) -> ElementRef[C]:
        """Step into ``index``, creating the list when missing."""
        step = cdt.ctx_list_index_create(index, order, pad)
        return ElementRef(self._chain, self._bin, (*self._ctx, step))

    def at_rank(self, rank: int) -> ElementRef[C]:
        """Step into the element of ``rank``."""
        return ElementRef(self._chain, self._bin, (*self._ctx, cdt.ctx_list_rank(rank)))

    def at_value(self, value: Any) -> ElementRef[C]:
        """Step into the element equal to ``value``."""
        return ElementRef(self._chain, self._bin, (*self._ctx, cdt.ctx_list_value(value)))

    # writes
    def create(self, order: ListOrder = ListOrder.UNORDERED, pad: bool = False) -> C:
        """Create an empty list here if none exists."""
        return self._op("create", int(ListOrder(order)), bool(pad))

    def append(
        self,
        value: Any,
        *,
        order: ListOrder = ListOrder.UNORDERED,
        flags: ListWrite = ListWrite.DEFAULT,
    ) -> C:
        """Append one value; the record's result is the new size."""
        return self._op("append", self._policy(order, flags), cdt.cdt_value(value))

    def extend(
        self,
        values: list[Any],
        *,
        order: ListOrder = ListOrder.UNORDERED,
        flags: ListWrite = ListWrite.DEFAULT,
    ) -> C:
        """Append several values."""
        return self._op("append_items", self._policy(order, flags), _items(values))

    def insert(
        self,
        index: int,
        value: Any,
        *,
        order: ListOrder = ListOrder.UNORDERED,
        flags: ListWrite = ListWrite.DEFAULT,
    ) -> C:
        """Insert ``value`` at ``index``."""
        return self._op(
            "insert", self._policy(order, flags), cdt.index("index", index), cdt.cdt_value(value)
        )

    def set(self, index: int, value: Any) -> C:
        """Replace the element at ``index``."""
        return self._op("set", cdt.index("index", index), cdt.cdt_value(value))

    def increment(
        self,
        index: int,
        amount: int = 1,
        *,
        order: ListOrder = ListOrder.UNORDERED,
        flags: ListWrite = ListWrite.DEFAULT,
    ) -> C:
        """Add ``amount`` to the integer at ``index``."""
        return self._op(
            "increment",
            self._policy(order, flags),
            cdt.index("index", index),
            cdt.index("amount", amount),
        )

    def pop(self, index: int) -> C:
        """Remove and return the element at ``index``."""
        return self._op("pop", cdt.index("index", index))

    def pop_range(self, index: int, count: int | None = None) -> C:
        """Remove and return ``count`` elements from ``index`` (to the end if None)."""
        if count is None:
            return self._op("pop_range_from", cdt.index("index", index))
        return self._op("pop_range", cdt.index("index", index), cdt.index("count", count))

    def remove(self, index: int) -> C:
        """Remove the element at ``index``; returns how many were removed."""
        return self._op("remove", cdt.index("index", index))

    def remove_range(self, index: int, count: int | None = None) -> C:
        """Remove ``count`` elements from ``index`` (to the end if None)."""
        if count is None:
            return self._op("remove_range_from", cdt.index("index", index))
        return self._op("remove_range", cdt.index("index", index), cdt.index("count", count))

    def remove_by_value(
        self, value: Any, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove every element equal to ``value``."""
        return self._op("remove_by_value", cdt.cdt_value(value), self._rt(return_type, inverted))

    def remove_by_value_range(
        self, begin: Any, end: Any, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove elements in ``[begin, end)``."""
        return self._op(
            "remove_by_value_range",
            self._rt(return_type, inverted),
            cdt.cdt_value(begin),
            cdt.cdt_value(end),
        )

    def trim(self, index: int, count: int) -> C:
        """Keep only ``count`` elements from ``index``."""
        return self._op("trim", cdt.index("index", index), cdt.index("count", count))

    def clear(self) -> C:
        """Remove every element."""
        return self._op("clear")

    def sort(self, flags: ListSort = ListSort.DEFAULT) -> C:
        """Sort the list."""
        return self._op("sort", int(ListSort(flags)))

    # reads
    def size(self) -> C:
        """Return number of elements."""
        return self._op("size")

    def get(self, index: int) -> C:
        """Return the element at ``index``."""
        return self._op("get", cdt.index("index", index))

    def get_range(self, index: int, count: int | None = None) -> C:
        """``count`` elements from ``index`` (to the end if None)."""
        if count is None:
            return self._op("get_range_from", cdt.index("index", index))
        return self._op("get_range", cdt.index("index", index), cdt.index("count", count))

    def get_by_value(
        self, value: Any, return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Elements equal to ``value``."""
        return self._op("get_by_value", cdt.cdt_value(value), self._rt(return_type, inverted))

    def get_by_value_range(
        self, begin: Any, end: Any, return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Elements in ``[begin, end)``."""
        return self._op(
            "get_by_value_range",
            cdt.cdt_value(begin),
            cdt.cdt_value(end),
            self._rt(return_type, inverted),
        )

    def get_by_index(
        self, index: int, return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Return the element at ``index``, as ``return_type``."""
        return self._op("get_by_index", cdt.index("index", index), self._rt(return_type, inverted))

    def get_by_rank(
        self, rank: int, return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Return the element of ``rank`` (0 = smallest)."""
        return self._op("get_by_rank", cdt.index("rank", rank), self._rt(return_type, inverted))

    def get_by_rank_range(
        self,
        rank: int,
        count: int | None = None,
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> C:
        """``count`` elements from ``rank`` (to the end if None)."""
        rt = self._rt(return_type, inverted)
        if count is None:
            return self._op("get_by_rank_range", cdt.index("rank", rank), rt)
        return self._op(
            "get_by_rank_range_count", cdt.index("rank", rank), cdt.index("count", count), rt
        )


class MapRef(_Scope[C]):
    """Map operations on a bin or nested map. Selectors take ``return_type`` / ``inverted``."""

    __slots__ = ()

    def _op(self, fn: str, *args: Any) -> C:
        return self._chain._with_op((f"map_{fn}", self._bin, self._ctx, *args))

    @staticmethod
    def _rt(rt: Return, inverted: bool) -> int:
        return cdt.return_type(rt, inverted, is_map=True)

    @staticmethod
    def _policy(order: MapOrder, flags: MapWrite) -> tuple[int, int]:
        return (int(MapOrder(order)), int(MapWrite(flags)))

    # navigation
    def at_key(self, key: Any) -> ElementRef[C]:
        """Step into the value at ``key``."""
        return ElementRef(self._chain, self._bin, (*self._ctx, cdt.ctx_map_key(key)))

    def at_key_create(self, key: Any, order: MapOrder = MapOrder.UNORDERED) -> ElementRef[C]:
        """Step into ``key``, creating the map when missing."""
        step = cdt.ctx_map_key_create(key, order)
        return ElementRef(self._chain, self._bin, (*self._ctx, step))

    def at_index(self, index: int) -> ElementRef[C]:
        """Step into the entry at ``index`` (key order)."""
        return ElementRef(self._chain, self._bin, (*self._ctx, cdt.ctx_map_index(index)))

    def at_rank(self, rank: int) -> ElementRef[C]:
        """Step into the entry of value ``rank``."""
        return ElementRef(self._chain, self._bin, (*self._ctx, cdt.ctx_map_rank(rank)))

    def at_value(self, value: Any) -> ElementRef[C]:
        """Step into the entry whose value is ``value``."""
        return ElementRef(self._chain, self._bin, (*self._ctx, cdt.ctx_map_value(value)))

    # writes
    def put(
        self,
        key: Any,
        value: Any,
        *,
        order: MapOrder = MapOrder.UNORDERED,
        flags: MapWrite = MapWrite.DEFAULT,
    ) -> C:
        """Set ``key`` to ``value``; the record's result is the new size."""
        return self._op("put", self._policy(order, flags), cdt._map_key(key), cdt.cdt_value(value))

    def update(
        self,
        items: dict[Any, Any],
        *,
        order: MapOrder = MapOrder.UNORDERED,
        flags: MapWrite = MapWrite.DEFAULT,
    ) -> C:
        """Put every entry of ``items``."""
        if not isinstance(items, dict):
            raise InvalidTypeError("map update needs a dict")
        cdt.cdt_value(items)
        return self._op("put_items", self._policy(order, flags), dict(items))

    def increment(
        self,
        key: Any,
        amount: int | float = 1,
        *,
        order: MapOrder = MapOrder.UNORDERED,
        flags: MapWrite = MapWrite.DEFAULT,
    ) -> C:
        """Add ``amount`` to the number at ``key``."""
        return self._op(
            "increment_value",
            self._policy(order, flags),
            cdt._map_key(key),
            _number("<map value>", amount),
        )

    def clear(self) -> C:
        """Remove every entry."""
        return self._op("clear")

    def remove_by_key(
        self, key: Any, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove the entry at ``key``."""
        return self._op("remove_by_key", cdt._map_key(key), self._rt(return_type, inverted))

    def remove_by_keys(
        self, keys: list[Any], return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove the entries at ``keys``."""
        return self._op("remove_by_key_list", _items(keys), self._rt(return_type, inverted))

    def remove_by_value(
        self, value: Any, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove entries whose value is ``value``."""
        return self._op("remove_by_value", cdt.cdt_value(value), self._rt(return_type, inverted))

    # reads
    def size(self) -> C:
        """Return number of entries."""
        return self._op("size")

    def get_by_key(
        self, key: Any, return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Return the value at ``key``."""
        return self._op("get_by_key", cdt._map_key(key), self._rt(return_type, inverted))

    def get_by_keys(
        self, keys: list[Any], return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Return the entries at ``keys``."""
        return self._op("get_by_key_list", _items(keys), self._rt(return_type, inverted))

    def get_by_key_range(
        self, begin: Any, end: Any, return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Entries with keys in ``[begin, end)``."""
        return self._op(
            "get_by_key_range",
            cdt.cdt_value(begin),
            cdt.cdt_value(end),
            self._rt(return_type, inverted),
        )

    def get_by_value(
        self, value: Any, return_type: Return = Return.KEY, *, inverted: bool = False
    ) -> C:
        """Entries whose value is ``value`` (default: their keys)."""
        return self._op("get_by_value", cdt.cdt_value(value), self._rt(return_type, inverted))

    def get_by_index(
        self, index: int, return_type: Return = Return.KEY_VALUE, *, inverted: bool = False
    ) -> C:
        """Return the entry at ``index`` in key order."""
        return self._op("get_by_index", cdt.index("index", index), self._rt(return_type, inverted))

    def get_by_rank(
        self, rank: int, return_type: Return = Return.KEY_VALUE, *, inverted: bool = False
    ) -> C:
        """Return the entry of value ``rank``."""
        return self._op("get_by_rank", cdt.index("rank", rank), self._rt(return_type, inverted))

    def get_by_rank_range(
        self,
        rank: int,
        count: int | None = None,
        return_type: Return = Return.KEY_VALUE,
        *,
        inverted: bool = False,
    ) -> C:
        """``count`` entries from value ``rank`` (to the end if None)."""
        rt = self._rt(return_type, inverted)
        if count is None:
            return self._op("get_by_rank_range_from", cdt.index("rank", rank), rt)
        return self._op("get_by_rank_range", cdt.index("rank", rank), cdt.index("count", count), rt)


def _items(values: object) -> list[Any]:
    if not isinstance(values, list | tuple):
        raise InvalidTypeError(f"expected a list, not {type(values).__name__}")
    items = list(values)
    cdt.cdt_value(items)
    return items
