"""List operation builders: ``.bin("tags").list.append("x")``, ``.list.at_index(0).map...``."""

from __future__ import annotations

from typing import Any

from aerospike_fluent import cdt
from aerospike_fluent._collections import (
    C,
    ElementRef,
    Scope,
    items,
    signed_count,
)
from aerospike_fluent._plan import ListOp, list_op
from aerospike_fluent.cdt import ListOrder, ListSort, ListWrite, Return
from aerospike_fluent.errors import InvalidArgumentError


class ListRef(Scope[C]):
    """List operations on a bin or nested list. Selectors take ``return_type`` / ``inverted``."""

    __slots__ = ()

    def _op(self, fn: ListOp, *args: Any) -> C:
        return self._chain._with_op(list_op(fn, self._bin, self._ctx, *args))

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
        checked = items(values)
        if not checked:
            raise InvalidArgumentError("extend() needs at least one value")
        return self._op("append_items", self._policy(order, flags), checked)

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
        """Replace the element at ``index`` (``None`` is refused: use a remove operation)."""
        if value is None:
            raise InvalidArgumentError("list set() cannot store None; remove the element instead")
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
        return self._span("pop_range_from", "pop_range", "index", index, count, check=signed_count)

    def remove(self, index: int) -> C:
        """Remove the element at ``index``; returns how many were removed."""
        return self._op("remove", cdt.index("index", index))

    def remove_range(self, index: int, count: int | None = None) -> C:
        """Remove ``count`` elements from ``index`` (to the end if None)."""
        return self._span(
            "remove_range_from", "remove_range", "index", index, count, check=signed_count
        )

    def remove_by_value(
        self, value: Any, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove every element equal to ``value``."""
        return self._op("remove_by_value", cdt.cdt_value(value), self._rt(return_type, inverted))

    def remove_by_values(
        self, values: list[Any], return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove every element equal to one of ``values``."""
        return self._op("remove_by_value_list", items(values), self._rt(return_type, inverted))

    def remove_by_value_relative_rank_range(
        self,
        value: Any,
        rank: int,
        count: int | None = None,
        return_type: Return = Return.NONE,
        *,
        inverted: bool = False,
    ) -> C:
        """Remove elements by rank relative to ``value``.

        ``count`` elements (to the end if None) from ``rank``, counted from where ``value``
        would sit in value order.
        """
        rt = self._rt(return_type, inverted)
        fn = "remove_by_value_relative_rank_range"
        return self._relative(fn, value, "rank", rank, count, rt, rt_first=True)

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

    def remove_by_index(
        self, index: int, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove the element at ``index``."""
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
        """Remove ``count`` elements from ``index`` (to the end if None)."""
        rt = self._rt(return_type, inverted)
        return self._span(
            "remove_by_index_range", "remove_by_index_range_count", "index", index, count, rt
        )

    def remove_by_rank(
        self, rank: int, return_type: Return = Return.NONE, *, inverted: bool = False
    ) -> C:
        """Remove the element of ``rank`` (0 = smallest, -1 = largest)."""
        return self._op("remove_by_rank", cdt.index("rank", rank), self._rt(return_type, inverted))

    def remove_by_rank_range(
        self,
        rank: int,
        count: int | None = None,
        return_type: Return = Return.NONE,
        *,
        inverted: bool = False,
    ) -> C:
        """Remove ``count`` elements from ``rank`` (to the largest if None)."""
        rt = self._rt(return_type, inverted)
        return self._span(
            "remove_by_rank_range", "remove_by_rank_range_count", "rank", rank, count, rt
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
        return self._span("get_range_from", "get_range", "index", index, count, check=signed_count)

    def get_by_value(
        self, value: Any, return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Elements equal to ``value``."""
        return self._op("get_by_value", cdt.cdt_value(value), self._rt(return_type, inverted))

    def get_by_values(
        self, values: list[Any], return_type: Return = Return.VALUE, *, inverted: bool = False
    ) -> C:
        """Elements equal to one of ``values`` (ranks in the order of ``values``)."""
        return self._op("get_by_value_list", items(values), self._rt(return_type, inverted))

    def get_by_value_relative_rank_range(
        self,
        value: Any,
        rank: int,
        count: int | None = None,
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> C:
        """Return elements by rank relative to ``value``.

        ``count`` elements (to the end if None) from ``rank`` (may be negative), counted from
        where ``value`` would sit in value order.
        """
        rt = self._rt(return_type, inverted)
        return self._relative("get_by_value_relative_rank_range", value, "rank", rank, count, rt)

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

    def get_by_index_range(
        self,
        index: int,
        count: int | None = None,
        return_type: Return = Return.VALUE,
        *,
        inverted: bool = False,
    ) -> C:
        """``count`` elements from ``index`` (to the end if None), as ``return_type``."""
        rt = self._rt(return_type, inverted)
        return self._span(
            "get_by_index_range", "get_by_index_range_count", "index", index, count, rt
        )

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
        return self._span(
            "get_by_rank_range",
            "get_by_rank_range_count",
            "rank",
            rank,
            count,
            rt,
            check=signed_count,
        )
