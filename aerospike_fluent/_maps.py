"""Map operation builders: ``.bin("prefs").map.put("theme", "dark")``, ``.map.at_key(k)...``."""

from __future__ import annotations

from typing import Any

from aerospike_fluent import cdt
from aerospike_fluent._collections import (
    C,
    ElementRef,
    Scope,
    items,
    number,
    signed_count,
)
from aerospike_fluent._plan import MapOp, map_op
from aerospike_fluent.cdt import MapOrder, MapWrite, Return
from aerospike_fluent.errors import InvalidTypeError


class MapRef(Scope[C]):
    """Map operations on a bin or nested map. Selectors take ``return_type`` / ``inverted``."""

    __slots__ = ()

    def _op(self, fn: MapOp, *args: Any) -> C:
        return self._chain._with_op(map_op(fn, self._bin, self._ctx, *args))

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
    def create(self, order: MapOrder = MapOrder.UNORDERED) -> C:
        """Create an empty map of ``order`` here if none exists.

        On a bin (no context) this sets the order of the bin's map, creating it when missing;
        inside a context (``.map.at_key("k").map.create(...)``) it creates the nested map.
        """
        return self._op("create", int(MapOrder(order)))

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
            number("<map value>", amount),
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
        return self._op("remove_by_key_list", items(keys), self._rt(return_type, inverted))

    def remove_by_value(
        self, value: Any, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove entries whose value is ``value``."""
        return self._op("remove_by_value", cdt.cdt_value(value), self._rt(return_type, inverted))

    def remove_by_key_range(
        self, begin: Any, end: Any, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove entries with keys in ``[begin, end)``."""
        rt = self._rt(return_type, inverted)
        return self._op("remove_by_key_range", cdt.cdt_value(begin), cdt.cdt_value(end), rt)

    def remove_by_value_range(
        self, begin: Any, end: Any, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove entries with values in ``[begin, end)``."""
        rt = self._rt(return_type, inverted)
        return self._op("remove_by_value_range", cdt.cdt_value(begin), cdt.cdt_value(end), rt)

    def remove_by_index(
        self, index: int, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove the entry at ``index`` (key order)."""
        return self._op(
            "remove_by_index", cdt.index("index", index), self._rt(return_type, inverted)
        )

    def remove_by_index_range(
        self,
        index: int,
        count: int | None = None,
        return_type: Return = Return.NONE,
        *,
        inverted: bool = False,
    ) -> C:
        """Remove ``count`` entries from ``index`` (to the end if None)."""
        rt = self._rt(return_type, inverted)
        return self._span(
            "remove_by_index_range_from", "remove_by_index_range", "index", index, count, rt
        )

    def remove_by_rank(
        self, rank: int, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove the entry of value ``rank``."""
        return self._op("remove_by_rank", cdt.index("rank", rank), self._rt(return_type, inverted))

    def remove_by_rank_range(
        self,
        rank: int,
        count: int | None = None,
        return_type: Return = Return.NONE,
        *,
        inverted: bool = False,
    ) -> C:
        """Remove ``count`` entries from value ``rank`` (to the largest if None)."""
        rt = self._rt(return_type, inverted)
        return self._span(
            "remove_by_rank_range_from", "remove_by_rank_range", "rank", rank, count, rt
        )

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
        return self._op("get_by_key_list", items(keys), self._rt(return_type, inverted))

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

    def get_by_values(
        self, values: list[Any], return_type: Return = Return.KEY, *, inverted: bool = False
    ) -> C:
        """Entries whose value is one of ``values`` (default: their keys)."""
        return self._op("get_by_value_list", items(values), self._rt(return_type, inverted))

    def remove_by_values(
        self, values: list[Any], return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove the entries whose value is one of ``values``."""
        return self._op("remove_by_value_list", items(values), self._rt(return_type, inverted))

    def get_by_value_relative_rank_range(
        self,
        value: Any,
        rank: int,
        count: int | None = None,
        return_type: Return = Return.KEY,
        *,
        inverted: bool = False,
    ) -> C:
        """Return entries by value rank relative to ``value``.

        ``count`` entries (all if None) from ``rank``, counted from where ``value`` would sit in
        value order.
        """
        rt = self._rt(return_type, inverted)
        return self._relative("get_by_value_relative_rank_range", value, "rank", rank, count, rt)

    def remove_by_value_relative_rank_range(
        self,
        value: Any,
        rank: int,
        count: int | None = None,
        return_type: Return = Return.NONE,
        *,
        inverted: bool = False,
    ) -> C:
        """Remove what :meth:`get_by_value_relative_rank_range` selects."""
        rt = self._rt(return_type, inverted)
        return self._relative("remove_by_value_relative_rank_range", value, "rank", rank, count, rt)

    def get_by_key_relative_index_range(
        self,
        key: Any,
        index: int,
        count: int | None = None,
        return_type: Return = Return.KEY_VALUE,
        *,
        inverted: bool = False,
    ) -> C:
        """Return entries by key index relative to ``key``.

        ``count`` entries (all if None) from ``index``, counted from where ``key`` would sit in
        key order.
        """
        rt = self._rt(return_type, inverted)
        return self._relative("get_by_key_relative_index_range", key, "index", index, count, rt)

    def remove_by_key_relative_index_range(
        self,
        key: Any,
        index: int,
        count: int | None = None,
        return_type: Return = Return.NONE,
        *,
        inverted: bool = False,
    ) -> C:
        """Remove what :meth:`get_by_key_relative_index_range` selects."""
        rt = self._rt(return_type, inverted)
        return self._relative("remove_by_key_relative_index_range", key, "index", index, count, rt)

    def get_by_value_range(
        self, begin: Any, end: Any, return_type: Return = Return.KEY, *, inverted: bool = False
    ) -> C:
        """Entries with values in ``[begin, end)`` (default: their keys)."""
        rt = self._rt(return_type, inverted)
        return self._op("get_by_value_range", cdt.cdt_value(begin), cdt.cdt_value(end), rt)

    def get_by_index_range(
        self,
        index: int,
        count: int | None = None,
        return_type: Return = Return.KEY_VALUE,
        *,
        inverted: bool = False,
    ) -> C:
        """``count`` entries from ``index`` in key order (to the end if None)."""
        rt = self._rt(return_type, inverted)
        return self._span(
            "get_by_index_range_from", "get_by_index_range", "index", index, count, rt
        )

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
        return self._span(
            "get_by_rank_range_from",
            "get_by_rank_range",
            "rank",
            rank,
            count,
            rt,
            check=signed_count,
        )
