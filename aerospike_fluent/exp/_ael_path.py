"""AEL paths into lists and maps: ``$.m.key``, ``$.l[0]``, ``$.m.{#0}``, ``$.l.[=1:5]``...

A path is a bin, then parts. Every part but the last is a context step (a key, an index, a
rank or a value); the last part selects: one element (typed by use, or by
``.get(type: T)``) or a range (a list of values unless ``.get(return: R)`` says otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aerospike_fluent import cdt
from aerospike_fluent.cdt import Return
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.exp import _core
from aerospike_fluent.exp._ael_lex import AEL_RETURN, AEL_TYPE, name_text, quote
from aerospike_fluent.exp._cdt import ListExp, MapExp
from aerospike_fluent.exp._core import Exp, val


@dataclass(frozen=True)
class Part:
    """One path part.

    ``family`` is ``"list"`` or ``"map"``; ``kind`` one of ``key``, ``index``, ``rank``,
    ``value``, ``index_range``, ``rank_range``, ``value_range``, ``value_list``, ``key_list``,
    ``key_range``, ``rel_rank``, ``rel_index``, ``designator``.
    """

    family: str
    kind: str
    args: tuple[Any, ...] = ()
    inverted: bool = False


_SINGLE = {"key", "index", "rank"}
_CTX = {
    ("map", "key"): cdt.ctx_map_key,
    ("map", "index"): cdt.ctx_map_index,
    ("map", "rank"): cdt.ctx_map_rank,
    ("map", "value"): cdt.ctx_map_value,
    ("list", "index"): cdt.ctx_list_index,
    ("list", "rank"): cdt.ctx_list_rank,
    ("list", "value"): cdt.ctx_list_value,
}


def to_ctx(parts: list[Part]) -> tuple[Any, ...]:
    """Return the context steps of the parts before the selector."""
    steps = []
    for p in parts:
        if p.kind == "designator":
            continue
        step = _CTX.get((p.family, p.kind))
        if step is None or p.inverted:
            raise InvalidArgumentError(f"a {p.kind.replace('_', ' ')} cannot lead into a path")
        steps.append(step(p.args[0]))
    return tuple(steps)


def select(
    bin_name: str, parts: list[Part], value_type: str | None, return_type: int | None
) -> Exp:
    """Return the expression a path reads; an untyped single element is typed by use."""
    last, ctx = parts[-1], to_ctx(parts[:-1])
    base = _core.bin_(bin_name, parts[0].family)  # the bin is what its first step enters
    scope: ListExp | MapExp = (MapExp if last.family == "map" else ListExp)(base, ctx)
    if last.kind in _SINGLE and value_type is None and return_type in (None, Return.VALUE):
        sample = _read(scope, last, "int", None)
        text = read_text(sample._name, sample._args, _bin_text(bin_name), typed=False)
        return _core.lazy(lambda t: _read(scope, last, t, None), text)
    return _read(scope, last, value_type or "int", return_type)


def _bin_text(name: str) -> str:
    return f"$.{name_text(name)}"


def _read(scope: Any, p: Part, vt: str, rt: int | None) -> Exp:
    single = p.kind in _SINGLE
    r = Return(rt if rt is not None else Return.VALUE)
    inv = p.inverted
    a = p.args
    if p.kind == "key":
        return scope.get_by_key(a[0], vt, r, inverted=inv)  # type: ignore[no-any-return]
    if single:
        fn = scope.get_by_index if p.kind == "index" else scope.get_by_rank
        return fn(a[0], vt, r, inverted=inv)  # type: ignore[no-any-return]
    if p.kind == "value":
        return scope.get_by_value(a[0], r, inverted=inv)  # type: ignore[no-any-return]
    if p.kind in ("index_range", "rank_range"):
        fn = scope.get_by_index_range if p.kind == "index_range" else scope.get_by_rank_range
        return fn(a[0], a[1], r, inverted=inv)  # type: ignore[no-any-return]
    if p.kind == "value_range":
        return scope.get_by_value_range(a[0], a[1], r, inverted=inv)  # type: ignore[no-any-return]
    if p.kind == "value_list":
        return scope.get_by_value_list(val(list(a)), r, inverted=inv)  # type: ignore[no-any-return]
    if p.kind == "key_list":
        return scope.get_by_key_list(list(a), r, inverted=inv)  # type: ignore[no-any-return]
    if p.kind == "key_range":
        return scope.get_by_key_range(a[0], a[1], r, inverted=inv)  # type: ignore[no-any-return]
    if p.kind == "rel_rank" and isinstance(scope, ListExp) and a[2] is None:
        return scope.get_by_value_relative_rank_range(a[1], a[0], r, inverted=inv)
    raise InvalidArgumentError(f"a {p.kind.replace('_', ' ')} has no read expression here")


# ---------------------------------------------------------------------- rendering


def value_text(v: object) -> str:
    """Write a value inside a path part (an int or a string)."""
    if isinstance(v, Exp) and v._kind == _core._LIT and v.value_type in ("int", "str"):
        v = v._args[0][1]
    if isinstance(v, bool) or not isinstance(v, int | str):
        raise InvalidArgumentError(f"a {type(v).__name__} has no AEL text inside a path")
    return str(v) if isinstance(v, int) else quote(v)


_STEP_TEXT = {
    "map_key": lambda v: f".{_key_text(v)}",
    "map_index": lambda v: f".{{{value_text(v)}}}",
    "map_rank": lambda v: f".{{#{value_text(v)}}}",
    "map_value": lambda v: f".{{={value_text(v)}}}",
    "list_index": lambda v: f".[{value_text(v)}]",
    "list_rank": lambda v: f".[#{value_text(v)}]",
    "list_value": lambda v: f".[={value_text(v)}]",
}


def _key_text(k: object) -> str:
    if isinstance(k, Exp):
        k = k._args[0][1] if k._kind == _core._LIT else k
    if isinstance(k, str):
        return name_text(k)
    return value_text(k)


def ctx_text(ctx: tuple[Any, ...]) -> str:
    """Write context steps as path parts."""
    out = []
    for step in ctx:
        render = _STEP_TEXT.get(step[0])
        if render is None:
            raise InvalidArgumentError(f"a {step[0]} context has no AEL text form")
        out.append(render(step[1]))
    return "".join(out)


def _literal(e: object) -> Any:
    if e is None:
        return None
    if isinstance(e, Exp) and e._kind == _core._LIT:
        return e._args[0][1] if len(e._args[0]) > 1 else None
    raise InvalidArgumentError("only literal indexes, ranks, keys and values have AEL text")


def _range(bracket: str, sigil: str, start: object, end: object, inv: bool) -> str:
    close = "]" if bracket == "[" else "}"
    bang = "!" if inv else ""
    tail = "" if end is None else value_text(end)
    return f".{bracket}{bang}{sigil}{start}:{tail}{close}"


def read_text(name: str, args: tuple[Any, ...], bin_text: str, *, typed: bool = True) -> str:
    """Write a ``lists.*`` / ``maps.*`` read as a path with its ``.get(...)``.

    The element type is left out when not ``typed`` (it is then inferred from use).
    """
    family, op = name.split(".", 1)
    is_map = family == "maps"
    *own, _bin, ctx = args
    rt_raw = own[0]
    inv = bool(rt_raw & cdt.INVERTED)
    rt = rt_raw & ~cdt.INVERTED
    o, c = ("{", "}") if is_map else ("[", "]")
    head = f"{bin_text}{ctx_text(ctx)}"
    vt: str | None = None
    if op in ("get_by_key", "get_by_index", "get_by_rank"):
        if inv:
            raise InvalidArgumentError("an inverted single-element read has no AEL text form")
        vt = {v: k for k, v in _core.EXP_TYPE.items()}[own[1]]
        at = value_text(_literal(own[2]))
        part = {
            "get_by_key": f".{_key_text(_literal(own[2]))}",
            "get_by_index": f".{o}{at}{c}",
            "get_by_rank": f".{o}#{at}{c}",
        }[op]
    elif op == "get_by_value":
        part = f".{o}{'!' if inv else ''}={value_text(_literal(own[1]))}{c}"
    elif op in ("get_by_index_range", "get_by_index_range_count"):
        count = _literal(own[2]) if len(own) > 2 else None
        start = _literal(own[1])
        part = _range(o, "", value_text(start), None if count is None else start + count, inv)
    elif op in ("get_by_rank_range", "get_by_rank_range_count"):
        count = _literal(own[2]) if len(own) > 2 else None
        start = _literal(own[1])
        end = None if count is None else start + count
        part = _range(o, "#", value_text(start), end, inv)
    elif op == "get_by_value_range":
        b, e = _literal(own[1]), _literal(own[2])
        part = _range(o, "=", value_text(b), e, inv)
    elif op in ("get_by_value_list", "get_by_key_list"):
        items = _literal(own[1])
        if not isinstance(items, list) or len(items) < 2:
            raise InvalidArgumentError("a value or key list needs two values or more in AEL")
        eq = "=" if op == "get_by_value_list" else ""
        part = f".{o}{'!' if inv else ''}{eq}{','.join(value_text(v) for v in items)}{c}"
    elif op == "get_by_key_range":
        b, e = _literal(own[1]), _literal(own[2])
        tail = "" if e is None else _key_text(e)
        part = f".{{{'!' if inv else ''}{_key_text(b)}-{tail}}}"
    elif op == "get_by_value_relative_rank_range" and not is_map:
        rank, anchor = value_text(_literal(own[2])), value_text(_literal(own[1]))
        part = f".[{'!' if inv else ''}#{rank}:~{anchor}]"
    else:
        raise InvalidArgumentError(f"{name} has no AEL text form here")
    return head + part + _get_text(vt if typed else None, rt)


def _get_text(vt: str | None, rt: int) -> str:
    params = []
    if vt is not None:
        if vt not in AEL_TYPE:
            raise InvalidArgumentError(f"a {vt} element has no AEL type name")
        params.append(f"type: {AEL_TYPE[vt]}")
    if rt != Return.VALUE:
        params.append(f"return: {AEL_RETURN[rt]}")
    return f".get({', '.join(params)})" if params else ""
