"""List and map read expressions, with nested contexts (modifies: ``_cdt_modify``)."""

from __future__ import annotations

from typing import Any

from aerospike_fluent import cdt
from aerospike_fluent._plan import ListNode, MapNode, list_node, map_node
from aerospike_fluent.cdt import Ctx, Return
from aerospike_fluent.exp._cdt_modify import ListModifies, MapModifies
from aerospike_fluent.exp._core import EXP_TYPE, Exp, Operand, ValueType, fn, to_exp
from aerospike_fluent.exp._core import value_type as check_type


def _result_type(rt: Return, selected: str | None) -> str | None:
    """Return the result type of a selection (``selected``: type of a single element)."""
    if rt == Return.COUNT:
        return "int"
    if rt == Return.EXISTS:
        return "bool"
    if rt in (Return.KEY_VALUE, Return.UNORDERED_MAP, Return.ORDERED_MAP):
        return "map"
    if rt in (Return.INDEX, Return.REVERSE_INDEX, Return.RANK, Return.REVERSE_RANK):
        return "int" if selected is not None else "list"
    if rt == Return.NONE:
        return "nil"
    return selected if selected is not None else "list"


class _Path:
    __slots__ = ("_bin", "_ctx")
    _is_map = False

    def __init__(self, bin_exp: Exp, ctx: Ctx) -> None:
        self._bin = bin_exp
        self._ctx = ctx

    def _node(self, name: Any, args: tuple[Any, ...], type_: str | None) -> Exp:
        raise NotImplementedError

    def _one(
        self, name: Any, at: Operand, value_type: ValueType, return_type: Return, inverted: bool
    ) -> Exp:
        """Select one element (``at``: index, rank or key) of ``value_type``."""
        rt = cdt.return_type(return_type, inverted, is_map=self._is_map)
        vt = check_type(value_type)
        args = (rt, EXP_TYPE[vt], to_exp(at))
        return self._node(name, args, _result_type(Return(return_type), vt))

    def _many(self, name: Any, args: tuple[Any, ...], return_type: Return, inverted: bool) -> Exp:
        """Select many elements; ``args`` follow the return type."""
        rt = cdt.return_type(return_type, inverted, is_map=self._is_map)
        return self._node(name, (rt, *args), _result_type(Return(return_type), None))

    def _run(
        self,
        name: Any,
        start: Operand,
        count: Operand | None,
        return_type: Return,
        inverted: bool,
    ) -> Exp:
        """Select an index or rank run: ``name`` to the end, ``name_count`` with a count."""
        if count is None:
            return self._many(name, (to_exp(start),), return_type, inverted)
        args = (to_exp(start), to_exp(count))
        return self._many(f"{name}_count", args, return_type, inverted)


class _Reads(_Path):
    """Selectors lists and maps share."""

    __slots__ = ()

    def get_by_index_range(
        self,
        index: Operand,
        count: Operand | None = None,
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> Exp:
        """``count`` elements from ``index`` (to the end when ``count`` is None)."""
        return self._run("get_by_index_range", index, count, return_type, inverted)

    def get_by_rank_range(
        self,
        rank: Operand,
        count: Operand | None = None,
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> Exp:
        """``count`` elements from ``rank`` (to the largest when ``count`` is None)."""
        return self._run("get_by_rank_range", rank, count, return_type, inverted)

    def get_by_value_range(
        self,
        begin: Operand,
        end: Operand,
        return_type: Return = Return.COUNT,
        *,
        inverted: bool = False,
    ) -> Exp:
        """Elements with values in ``[begin, end)``; ``None`` leaves a side open."""
        b = None if begin is None else to_exp(begin)
        e = None if end is None else to_exp(end)
        return self._many("get_by_value_range", (b, e), return_type, inverted)


class ElementExp(_Path):
    """A nested element reached through a context: continue with ``.list`` or ``.map``."""

    __slots__ = ()

    @property
    def list(self) -> ListExp:
        """Treat the element as a list."""
        return ListExp(self._bin, self._ctx)

    @property
    def map(self) -> MapExp:
        """Treat the element as a map."""
        return MapExp(self._bin, self._ctx)


class ListExp(_Reads, ListModifies):
    """Read and modify expressions over a list bin (or a nested list)."""

    __slots__ = ()

    def _node(self, name: ListNode, args: tuple[Any, ...], type_: str | None) -> Exp:
        return fn(list_node(name), (*args, self._bin, self._ctx), type_, "list")

    def at_index(self, index: int) -> ElementExp:
        """Step into the element at ``index``."""
        return ElementExp(self._bin, (*self._ctx, cdt.ctx_list_index(index)))

    def at_rank(self, rank: int) -> ElementExp:
        """Step into the element of ``rank``."""
        return ElementExp(self._bin, (*self._ctx, cdt.ctx_list_rank(rank)))

    def at_value(self, value: object) -> ElementExp:
        """Step into the element equal to ``value``."""
        return ElementExp(self._bin, (*self._ctx, cdt.ctx_list_value(value)))

    def size(self) -> Exp:
        """Return number of elements."""
        return self._node("size", (), "int")

    def get_by_index(
        self,
        index: Operand,
        value_type: ValueType = "int",
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> Exp:
        """Return the element at ``index`` (of ``value_type``)."""
        rt = cdt.return_type(return_type, inverted, is_map=False)
        vt = check_type(value_type)
        return self._node(
            "get_by_index",
            (rt, EXP_TYPE[vt], to_exp(index)),
            _result_type(Return(return_type), vt),
        )

    def get_by_rank(
        self,
        rank: Operand,
        value_type: ValueType = "int",
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> Exp:
        """Return the element of ``rank`` (0 = smallest)."""
        rt = cdt.return_type(return_type, inverted, is_map=False)
        vt = check_type(value_type)
        return self._node(
            "get_by_rank",
            (rt, EXP_TYPE[vt], to_exp(rank)),
            _result_type(Return(return_type), vt),
        )

    def get_by_value(
        self, value: Operand, return_type: Return = Return.COUNT, *, inverted: bool = False
    ) -> Exp:
        """Elements equal to ``value`` (default: how many)."""
        rt = cdt.return_type(return_type, inverted, is_map=False)
        return self._node(
            "get_by_value", (rt, to_exp(value)), _result_type(Return(return_type), None)
        )

    def get_by_value_list(
        self, values: Operand, return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> Exp:
        """Elements equal to one of ``values``."""
        return self._many("get_by_value_list", (to_exp(values),), return_type, inverted)

    def get_by_value_relative_rank_range(
        self,
        value: Operand,
        rank: Operand,
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> Exp:
        """Elements from ``rank`` counted from where ``value`` would sit, to the largest."""
        args = (to_exp(value), to_exp(rank))
        return self._many("get_by_value_relative_rank_range", args, return_type, inverted)


class MapExp(_Reads, MapModifies):
    """Read and modify expressions over a map bin (or a nested map)."""

    __slots__ = ()
    _is_map = True

    def _node(self, name: MapNode, args: tuple[Any, ...], type_: str | None) -> Exp:
        return fn(map_node(name), (*args, self._bin, self._ctx), type_, "map")

    def at_key(self, key: object) -> ElementExp:
        """Step into the entry with ``key``."""
        return ElementExp(self._bin, (*self._ctx, cdt.ctx_map_key(key)))

    def at_index(self, index: int) -> ElementExp:
        """Step into the entry at ``index`` (key order)."""
        return ElementExp(self._bin, (*self._ctx, cdt.ctx_map_index(index)))

    def at_rank(self, rank: int) -> ElementExp:
        """Step into the entry of value ``rank``."""
        return ElementExp(self._bin, (*self._ctx, cdt.ctx_map_rank(rank)))

    def at_value(self, value: object) -> ElementExp:
        """Step into the entry whose value is ``value``."""
        return ElementExp(self._bin, (*self._ctx, cdt.ctx_map_value(value)))

    def size(self) -> Exp:
        """Return number of entries."""
        return self._node("size", (), "int")

    def get_by_key(
        self,
        key: Operand,
        value_type: ValueType = "int",
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> Exp:
        """Return the value at ``key`` (of ``value_type``)."""
        rt = cdt.return_type(return_type, inverted, is_map=True)
        vt = check_type(value_type)
        return self._node(
            "get_by_key", (rt, EXP_TYPE[vt], to_exp(key)), _result_type(Return(return_type), vt)
        )

    def get_by_value(
        self, value: Operand, return_type: Return = Return.COUNT, *, inverted: bool = False
    ) -> Exp:
        """Entries whose value equals ``value`` (default: how many)."""
        rt = cdt.return_type(return_type, inverted, is_map=True)
        return self._node(
            "get_by_value", (rt, to_exp(value)), _result_type(Return(return_type), None)
        )

    def get_by_key_list(
        self, keys: list[Any], return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> Exp:
        """Entries whose key is in ``keys``."""
        rt = cdt.return_type(return_type, inverted, is_map=True)
        t = _result_type(Return(return_type), None) or "list"
        return self._node("get_by_key_list", (rt, to_exp(keys)), t)

    def get_by_key_range(
        self,
        begin: Operand,
        end: Operand,
        return_type: Return = Return.COUNT,
        *,
        inverted: bool = False,
    ) -> Exp:
        """Entries with keys in ``[begin, end)``; ``None`` leaves a side open."""
        rt = cdt.return_type(return_type, inverted, is_map=True)
        b = None if begin is None else to_exp(begin)
        e = None if end is None else to_exp(end)
        return self._node("get_by_key_range", (rt, b, e), _result_type(Return(return_type), None))

    def get_by_index(
        self,
        index: Operand,
        value_type: ValueType = "int",
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> Exp:
        """Return the value at ``index`` in key order (of ``value_type``)."""
        return self._one("get_by_index", index, value_type, return_type, inverted)

    def get_by_rank(
        self,
        rank: Operand,
        value_type: ValueType = "int",
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> Exp:
        """Return the value of ``rank`` (0 = smallest)."""
        return self._one("get_by_rank", rank, value_type, return_type, inverted)

    def get_by_value_list(
        self, values: Operand, return_type: Return = Return.KEY, *, inverted: bool = False
    ) -> Exp:
        """Entries whose value is one of ``values`` (default: their keys)."""
        return self._many("get_by_value_list", (to_exp(values),), return_type, inverted)
