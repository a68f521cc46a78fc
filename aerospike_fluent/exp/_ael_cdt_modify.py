"""AEL text of the list and map modify expressions: ``list.<method>(target, ...)``.

``map.<method>(target, ...)`` likewise. The method names are the builder's in camelCase
(``list.appendItems``, ``map.removeByKeyRelativeIndexRange``). The target is a bin or a path
into it (its parts are the context: ``$.m.a`` is the list at key ``a`` of map bin ``m``) or any
list or map expression; then the builder's positional arguments (``nil`` leaves a range side
open, a count left out runs to the end), then its options as ``name: value``:
``order: ORDERED``, ``flags: 5``, ``inverted: true``. ``list.size(...)`` and ``map.size(...)``
count the elements of any list or map expression.

    list.size(list.append($.l, 5)) > 3
    list.removeByValueRange($.l, nil, 10, inverted: true)
    map.put($.m.profile, 'age', 30, order: KEY_ORDERED, flags: 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aerospike_fluent import cdt
from aerospike_fluent.cdt import ListOrder, ListSort, ListWrite, MapOrder, MapWrite
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.exp import _core
from aerospike_fluent.exp._ael_family import _camel, _snake, arguments
from aerospike_fluent.exp._ael_path import ctx_text

if TYPE_CHECKING:
    from aerospike_fluent.exp._ael import _Parser
    from aerospike_fluent.exp._core import Exp

_E = "e"
"""A slot holding an expression, written positionally."""
_OPEN = "open"
"""A positional slot that may be ``nil`` (an open range side)."""

# native node -> (builder method, native argument slots before the bin and context)
_RT = "inverted"
_LIST: dict[str, tuple[str, tuple[str, ...]]] = {
    "append": ("append", ("policy", _E)),
    "append_items": ("append_items", ("policy", _E)),
    "insert": ("insert", ("flags_only", _E, _E)),
    "insert_items": ("insert_items", ("flags_only", _E, _E)),
    "increment": ("increment", ("policy", _E, _E)),
    "set": ("set", ("flags_only", _E, _E)),
    "clear": ("clear", ()),
    "size": ("size", ()),
    "sort": ("sort", ("sort",)),
    "remove_by_value": ("remove_by_value", (_RT, _E)),
    "remove_by_value_list": ("remove_by_value_list", (_RT, _E)),
    "remove_by_value_range": ("remove_by_value_range", (_RT, _OPEN, _OPEN)),
    "remove_by_value_relative_rank_range": ("remove_by_value_relative_rank_range", (_RT, _E, _E)),
    "remove_by_value_relative_rank_range_count": (
        "remove_by_value_relative_rank_range",
        (_RT, _E, _E, _E),
    ),
    "remove_by_index": ("remove_by_index", (_RT, _E)),
    "remove_by_index_range": ("remove_by_index_range", (_RT, _E)),
    "remove_by_index_range_count": ("remove_by_index_range", (_RT, _E, _E)),
    "remove_by_rank": ("remove_by_rank", (_RT, _E)),
    "remove_by_rank_range": ("remove_by_rank_range", (_RT, _E)),
    "remove_by_rank_range_count": ("remove_by_rank_range", (_RT, _E, _E)),
}
_MAP: dict[str, tuple[str, tuple[str, ...]]] = {
    "put": ("put", ("policy", _E, _E)),
    "put_items": ("put_items", ("policy", _E)),
    "increment": ("increment", ("order_only", _E, _E)),
    "clear": ("clear", ()),
    "size": ("size", ()),
    "remove_by_key": ("remove_by_key", (_RT, _E)),
    "remove_by_key_list": ("remove_by_key_list", (_RT, _E)),
    "remove_by_key_range": ("remove_by_key_range", (_RT, _OPEN, _OPEN)),
    "remove_by_key_relative_index_range": ("remove_by_key_relative_index_range", (_RT, _E, _E)),
    "remove_by_key_relative_index_range_count": (
        "remove_by_key_relative_index_range",
        (_RT, _E, _E, _E),
    ),
    **{k: v for k, v in _LIST.items() if k.startswith("remove_by_")},
}
_TABLES = {"lists": _LIST, "maps": _MAP}

_SINGLE_RT = {"remove_by_index", "remove_by_rank", "remove_by_key"}


def _method_table(table: dict[str, tuple[str, tuple[str, ...]]]) -> dict[str, Any]:
    """Builder method -> (fewest and most positional arguments, the options it takes)."""
    out: dict[str, Any] = {}
    for method, slots in table.values():
        n = sum(1 for s in slots if s in (_E, _OPEN))
        options: set[str] = set()
        if slots and slots[0] == "policy":
            options = {"order", "flags"}
        elif slots and slots[0] in ("flags_only", "sort"):
            options = {"flags"}
        elif slots and slots[0] == "order_only":
            options = {"order"}
        elif slots and slots[0] == _RT and method not in _SINGLE_RT:
            options = {"inverted"}
        low, high = out.get(method, (n, n, options))[:2]
        out[method] = (min(low, n), max(high, n), options)
    return out


_METHODS = {"list": _method_table(_LIST), "map": _method_table(_MAP)}


def render(name: str, args: tuple[Any, ...], text: Callable[[Any], str]) -> str | None:
    """AEL text of a ``lists.*`` / ``maps.*`` modify node, or None for other nodes."""
    family, _, fn = name.partition(".")
    entry = _TABLES.get(family, {}).get(fn)
    if entry is None:
        return None
    method, slots = entry
    *values, target, ctx = args
    if method == "size" and target._kind == _core._BIN:
        return None  # a bin's size is a path: ``$.l.[].count()``
    parts = [_target_text(target, ctx, text)]
    options: list[str] = []
    for slot, v in zip(slots, values, strict=True):
        if slot == _E:
            parts.append(text(v))
        elif slot == _OPEN:
            parts.append("nil" if v is None else text(v))
        elif slot == _RT:
            if v & cdt.INVERTED:
                options.append("inverted: true")
        elif slot == "sort":
            if v:
                options.append(f"flags: {v}")
        else:
            order, flags = v
            if order and slot != "flags_only":
                enum = MapOrder if family == "maps" else ListOrder
                options.append(f"order: {enum(order).name}")
            if flags and slot != "order_only":
                options.append(f"flags: {flags}")
    short = "list" if family == "lists" else "map"
    return f"{short}.{_camel(method)}({', '.join(parts + options)})"


def _target_text(target: Exp, ctx: tuple[Any, ...], text: Callable[[Any], str]) -> str:
    if target._kind == _core._BIN:
        return f"$.{_name_text(target._args[0])}{ctx_text(ctx)}"
    if ctx:
        raise InvalidArgumentError("a context has AEL text only on a bin")
    return text(target)


def _name_text(name: str) -> str:
    from aerospike_fluent.exp._ael_lex import name_text

    return name_text(name)


def _option(family: str, key: str, method: str, value: object) -> Any:
    if key == "inverted":
        if not isinstance(value, bool):
            raise InvalidArgumentError("inverted takes true or false")
        return value
    enum: Any
    if key == "order":
        enum = MapOrder if family == "map" else ListOrder
    elif method == "sort":
        enum = ListSort
    else:
        enum = MapWrite if family == "map" else ListWrite
    if isinstance(value, str):
        try:
            return enum[value.upper()]
        except KeyError:
            raise InvalidArgumentError(f"unknown {key} {value!r}") from None
    return enum(value)


def _target(p: _Parser) -> tuple[Exp, tuple[Any, ...]]:
    """Read the target: a path ``$.bin<parts>`` (bin and context) or any expression."""
    from aerospike_fluent.exp._ael_lex import unquote
    from aerospike_fluent.exp._ael_parts import parse_parts
    from aerospike_fluent.exp._ael_path import to_ctx

    start = p.i
    if p.at("$") and p.peek()[1] == "." and p.peek(2)[0] in ("name", "str"):
        kind, name, _ = p.peek(2)
        p.i += 3
        if not (kind == "name" and p.at("(")):
            parts = parse_parts(p)
            if p.at(",") or p.at(")"):
                bin_name = unquote(name) if kind == "str" else name
                return _core.bin_(bin_name, None), to_ctx(parts)
        p.i = start
    return p.or_(), ()


def call(p: _Parser, family: str) -> Exp:
    """Read ``.<method>(target, args..., name: value...)`` after ``list`` / ``map``."""
    from aerospike_fluent.exp._cdt import ListExp, MapExp

    methods = _METHODS[family]
    p.expect(".")
    tok = p.tok
    fn = _snake(tok[1]) if tok[0] == "name" else ""
    if fn not in methods:
        known = sorted(map(_camel, methods))
        raise p.error(f"unknown {family} modify method {tok[1]!r}; one of {known}")
    p.i += 1
    p.expect("(")
    target, ctx = _target(p)
    low, high, allowed = methods[fn]
    positional, named = arguments(p, f"{family}.{tok[1]}", allowed, nil=True)
    if not low <= len(positional) <= high:
        count = str(low) if low == high else f"{low} or {high}"
        raise p.error(f"{family}.{tok[1]} takes {count} argument(s) after the target")

    def build() -> Exp:
        scope = (MapExp if family == "map" else ListExp)(target, ctx)
        options = {k: _option(family, k, fn, v) for k, v in named.items()}
        return getattr(scope, fn)(*positional, **options)  # type: ignore[no-any-return]

    return p.guard(tok, build)
