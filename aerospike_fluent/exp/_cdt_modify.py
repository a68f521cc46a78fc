"""List and map modify expressions: the bin as the operation would leave it, unwritten.

``F.list_bin("l").list.append(5)`` is the list with 5 appended, to compare
(``.list.size() > 3``), read with ``read_exp`` or write back with ``write_exp``. Under a context
(``F.map_bin("m").map.at_key("a").list.append(5)``) the result is the whole bin with the
nested element changed. A failing change (a refused write flag, an index out of bounds) makes
the expression unknown: a filter leaves the record out, ``read_exp`` raises
``OpNotApplicableError`` unless ``no_fail``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aerospike_fluent import cdt
from aerospike_fluent._plan import ListModifyNode, MapModifyNode, list_node, map_node
from aerospike_fluent.cdt import ListOrder, ListSort, ListWrite, MapOrder, MapWrite, Return
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.exp._core import _BIN, Exp, Operand, bin_, fn, to_exp

if TYPE_CHECKING:
    from aerospike_fluent.cdt import Ctx


def bin_type(ctx: Ctx, own: str) -> str:
    """Return the type of the bin a modify changes: its first context step's, else ``own``."""
    if not ctx:
        return own
    return "list" if str(ctx[0][0]).startswith("list") else "map"


def _typed_bin(e: Exp, t: str) -> Exp:
    """Read an untyped bin as ``t``; refuse expressions of another type."""
    if e._kind == _BIN and e.value_type is None:
        return bin_(e._args[0], t)
    if e.value_type not in (None, t):
        raise InvalidArgumentError(f"this modify expression changes a {t}, not a {e.value_type}")
    return e


def _typed(what: str, v: Operand, t: str) -> Exp:
    e = to_exp(v)
    if e.value_type not in (None, t):
        raise InvalidArgumentError(f"{what} must be a {t} expression, not a {e.value_type}")
    return e


class _Modifies:
    """What list and map modifies share: the node, typed by the bin they change, and removes."""

    __slots__ = ()
    _bin: Exp
    _ctx: Ctx
    _is_map: bool

    def _changed(self, name: str, args: tuple[Any, ...]) -> Exp:
        t = bin_type(self._ctx, "map" if self._is_map else "list")
        node = map_node(name) if self._is_map else list_node(name)  # type: ignore[arg-type]
        return fn(node, (*args, _typed_bin(self._bin, t), self._ctx), t)

    def _rt(self, inverted: bool) -> int:
        return cdt.return_type(Return.NONE, inverted, is_map=self._is_map)

    def _remove_run(
        self, name: str, start: Operand, count: Operand | None, inverted: bool, *lead: Operand
    ) -> Exp:
        """Remove a run: ``name`` to the end, ``name_count`` with a count."""
        args = (self._rt(inverted), *(to_exp(x) for x in lead), _typed(name, start, "int"))
        if count is None:
            return self._changed(name, args)
        return self._changed(f"{name}_count", (*args, _typed("count", count, "int")))

    def clear(self) -> Exp:
        """Return the collection emptied."""
        return self._changed("clear", ())

    def remove_by_value(self, value: Operand, *, inverted: bool = False) -> Exp:
        """Return the collection without the elements (map entries) whose value is ``value``."""
        return self._changed("remove_by_value", (self._rt(inverted), to_exp(value)))

    def remove_by_value_list(self, values: Operand, *, inverted: bool = False) -> Exp:
        """Return the collection without the values equal to one of ``values``."""
        items = _typed("values", values, "list")
        return self._changed("remove_by_value_list", (self._rt(inverted), items))

    def remove_by_value_range(self, begin: Operand, end: Operand, *, inverted: bool = False) -> Exp:
        """Return the collection without the values in ``[begin, end)``; ``None``: open side."""
        b, e = _bounds(begin, end)
        return self._changed("remove_by_value_range", (self._rt(inverted), b, e))

    def remove_by_value_relative_rank_range(
        self, value: Operand, rank: Operand, count: Operand | None = None, *, inverted: bool = False
    ) -> Exp:
        """Return the collection without ``count`` values from ``rank`` relative to ``value``."""
        return self._remove_run("remove_by_value_relative_rank_range", rank, count, inverted, value)

    def remove_by_index(self, index: Operand) -> Exp:
        """Return the collection without the element at ``index`` (maps: in key order)."""
        at = _typed("index", index, "int")
        return self._changed("remove_by_index", (self._rt(False), at))

    def remove_by_index_range(
        self, index: Operand, count: Operand | None = None, *, inverted: bool = False
    ) -> Exp:
        """Return the collection without ``count`` elements from ``index`` (to the end if None)."""
        return self._remove_run("remove_by_index_range", index, count, inverted)

    def remove_by_rank(self, rank: Operand) -> Exp:
        """Return the collection without the element of value ``rank``."""
        return self._changed("remove_by_rank", (self._rt(False), _typed("rank", rank, "int")))

    def remove_by_rank_range(
        self, rank: Operand, count: Operand | None = None, *, inverted: bool = False
    ) -> Exp:
        """Return the collection without ``count`` elements from ``rank`` (to the top if None)."""
        return self._remove_run("remove_by_rank_range", rank, count, inverted)


class ListModifies(_Modifies):
    """List modify expressions (each returns the changed bin)."""

    __slots__ = ()

    def _list(self, name: ListModifyNode, *args: Any) -> Exp:
        return self._changed(name, args)

    def append(
        self,
        value: Operand,
        *,
        order: ListOrder = ListOrder.UNORDERED,
        flags: ListWrite = ListWrite.DEFAULT,
    ) -> Exp:
        """Return the list with ``value`` appended (``order`` applies to a list it creates)."""
        return self._list("append", _policy(order, flags), to_exp(value))

    def append_items(
        self,
        values: Operand,
        *,
        order: ListOrder = ListOrder.UNORDERED,
        flags: ListWrite = ListWrite.DEFAULT,
    ) -> Exp:
        """Return the list with every item of ``values`` appended."""
        return self._list("append_items", _policy(order, flags), _typed("values", values, "list"))

    def insert(
        self, index: Operand, value: Operand, *, flags: ListWrite = ListWrite.DEFAULT
    ) -> Exp:
        """Return the list with ``value`` inserted at ``index`` (padded with nils past the end)."""
        at = _typed("index", index, "int")
        return self._list("insert", _policy(ListOrder.UNORDERED, flags), at, to_exp(value))

    def insert_items(
        self, index: Operand, values: Operand, *, flags: ListWrite = ListWrite.DEFAULT
    ) -> Exp:
        """Return the list with the items of ``values`` inserted from ``index``."""
        at, items = _typed("index", index, "int"), _typed("values", values, "list")
        return self._list("insert_items", _policy(ListOrder.UNORDERED, flags), at, items)

    def increment(
        self,
        index: Operand,
        delta: Operand,
        *,
        order: ListOrder = ListOrder.UNORDERED,
        flags: ListWrite = ListWrite.DEFAULT,
    ) -> Exp:
        """Return the list with the number at ``index`` increased by ``delta``."""
        at = _typed("index", index, "int")
        return self._list("increment", _policy(order, flags), at, to_exp(delta))

    def set(self, index: Operand, value: Operand, *, flags: ListWrite = ListWrite.DEFAULT) -> Exp:
        """Return the list with the element at ``index`` replaced by ``value``."""
        at = _typed("index", index, "int")
        return self._list("set", _policy(ListOrder.UNORDERED, flags), at, to_exp(value))

    def sort(self, flags: ListSort = ListSort.DEFAULT) -> Exp:
        """Return the list sorted (``DESCENDING``, ``DROP_DUPLICATES``)."""
        return self._list("sort", int(ListSort(flags)))


class MapModifies(_Modifies):
    """Map modify expressions (each returns the changed bin)."""

    __slots__ = ()

    def _map(self, name: MapModifyNode, *args: Any) -> Exp:
        return self._changed(name, args)

    def put(
        self,
        key: Operand,
        value: Operand,
        *,
        order: MapOrder = MapOrder.UNORDERED,
        flags: MapWrite = MapWrite.DEFAULT,
    ) -> Exp:
        """Return the map with ``key`` set to ``value``."""
        return self._map("put", _map_policy(order, flags), to_exp(key), to_exp(value))

    def put_items(
        self,
        items: Operand,
        *,
        order: MapOrder = MapOrder.UNORDERED,
        flags: MapWrite = MapWrite.DEFAULT,
    ) -> Exp:
        """Return the map with every entry of ``items`` put."""
        return self._map("put_items", _map_policy(order, flags), _typed("items", items, "map"))

    def increment(
        self, key: Operand, delta: Operand, *, order: MapOrder = MapOrder.UNORDERED
    ) -> Exp:
        """Return the map with the number at ``key`` increased by ``delta`` (created if missing)."""
        policy = _map_policy(order, MapWrite.DEFAULT)
        return self._map("increment", policy, to_exp(key), to_exp(delta))

    def remove_by_key(self, key: Operand) -> Exp:
        """Return the map without ``key``."""
        return self._map("remove_by_key", self._rt(False), to_exp(key))

    def remove_by_key_list(self, keys: Operand, *, inverted: bool = False) -> Exp:
        """Return the map without the entries whose key is in ``keys``."""
        items = _typed("keys", keys, "list")
        return self._map("remove_by_key_list", self._rt(inverted), items)

    def remove_by_key_range(self, begin: Operand, end: Operand, *, inverted: bool = False) -> Exp:
        """Return the map without the keys in ``[begin, end)``; ``None`` leaves a side open."""
        b, e = _bounds(begin, end)
        return self._map("remove_by_key_range", self._rt(inverted), b, e)

    def remove_by_key_relative_index_range(
        self, key: Operand, index: Operand, count: Operand | None = None, *, inverted: bool = False
    ) -> Exp:
        """Return the map without ``count`` entries from ``index`` relative to ``key``."""
        return self._remove_run("remove_by_key_relative_index_range", index, count, inverted, key)


def _policy(order: ListOrder, flags: ListWrite) -> tuple[int, int]:
    return (int(ListOrder(order)), int(ListWrite(flags)))


def _map_policy(order: MapOrder, flags: MapWrite) -> tuple[int, int]:
    return (int(MapOrder(order)), int(MapWrite(flags)))


def _bounds(begin: Operand, end: Operand) -> tuple[Exp | None, Exp | None]:
    return (None if begin is None else to_exp(begin), None if end is None else to_exp(end))
