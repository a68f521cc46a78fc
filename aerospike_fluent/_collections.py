"""Shared parts of the list and map builders (``_lists``, ``_maps``).

Every collection operation returns the chain it was started from (a new one, with the op
appended) in the native plan format ``(f"list_{fn}" | f"map_{fn}", bin, ctx, *args)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from aerospike_fluent import _validate, cdt
from aerospike_fluent._types import Op
from aerospike_fluent.cdt import Ctx
from aerospike_fluent.errors import InvalidTypeError

if TYPE_CHECKING:
    from aerospike_fluent._lists import ListRef
    from aerospike_fluent._maps import MapRef

C = TypeVar("C", bound="Chain")


class Chain(Protocol):
    """Anything that accumulates operations."""

    def _with_op(self: C, op: Op) -> C: ...


class Scope(Generic[C]):
    __slots__ = ("_bin", "_chain", "_ctx")

    def __init__(self, chain: C, bin_name: str, ctx: Ctx) -> None:
        self._chain = chain
        self._bin = bin_name
        self._ctx = ctx

    def _op(self, fn: Any, *args: Any) -> C:
        """Append the family's op ``fn`` (a name ``_plan`` declares) on this bin and context."""
        raise NotImplementedError

    def _span(
        self,
        open_fn: Any,
        counted_fn: Any,
        what: str,
        start: int,
        count: int | None,
        *rest: Any,
        check: Callable[[object], int] | None = None,
    ) -> C:
        """Apply ``counted_fn`` to ``count`` items from ``start``; ``open_fn`` if ``count`` is None.

        ``start`` is an index or a rank (``what`` names it in errors); ``rest`` follows the count.
        """
        first = cdt.index(what, start)
        if count is None:
            return self._op(open_fn, first, *rest)
        return self._op(counted_fn, first, (check or range_count)(count), *rest)

    def _relative(
        self,
        fn: Any,
        anchor: Any,
        what: str,
        start: int,
        count: int | None,
        rt: int,
        *,
        rt_first: bool = False,
    ) -> C:
        """Append relative range op ``fn`` (``anchor``, ``start``), or its ``_count`` form.

        The return type goes last, or first with ``rt_first`` (the list removes' order).
        """
        args: tuple[Any, ...] = (cdt.cdt_value(anchor), cdt.index(what, start))
        if count is not None:
            fn, args = f"{fn}_count", (*args, range_count(count))
        return self._op(fn, *((rt, *args) if rt_first else (*args, rt)))


class ElementRef(Scope[C]):
    """An element inside a collection bin: continue with ``.list`` or ``.map``."""

    __slots__ = ()

    @property
    def list(self) -> ListRef[C]:
        """List operations on this element."""
        from aerospike_fluent._lists import ListRef

        return ListRef(self._chain, self._bin, self._ctx)

    @property
    def map(self) -> MapRef[C]:
        """Map operations on this element."""
        from aerospike_fluent._maps import MapRef

        return MapRef(self._chain, self._bin, self._ctx)


def number(bin_name: str, v: object) -> int | float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        where = _validate.where(bin_name)
        raise InvalidTypeError(f"{where}: add needs an int or float, not {_validate.type_name(v)}")
    _validate.value(bin_name, v)
    return v


def items(values: object) -> list[Any]:
    if not isinstance(values, list | tuple):
        raise InvalidTypeError(f"expected a list, not {type(values).__name__}")
    items = list(values)
    cdt.cdt_value(items)
    return items


def range_count(value: object) -> int:
    """Check a range count: a non-negative 64-bit int."""
    return _validate.integer("count", value, 0, _validate.INT_MAX)


def signed_count(value: object) -> int:
    """Check a count the server takes as a signed 64-bit int."""
    return cdt.index("count", value)
