"""What ends a bin reference in AEL, read off the parser's tokens after the path parts.

``.get(type: T, return: R)``, ``.count()``, ``.exists()``, ``.type()`` and the casts
``.asInt()`` / ``.asFloat()`` (the parts themselves: ``_ael_parts``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from aerospike_fluent import _validate
from aerospike_fluent._plan import CoreNode
from aerospike_fluent.exp import _ael_path as path
from aerospike_fluent.exp._ael_lex import RETURNS, TYPES, Token
from aerospike_fluent.exp._ael_path import Part
from aerospike_fluent.exp._core import Exp, bin_, fn

if TYPE_CHECKING:
    from aerospike_fluent.exp._ael import _Parser


def exp_module() -> Any:
    """Return the ``exp`` package, whose builders the parser calls (late: it imports AEL)."""
    from aerospike_fluent import exp

    return exp


def get_params(p: _Parser) -> tuple[str | None, int | None]:
    """``get(type: T, return: R)`` (after its dot): the type and return type given."""
    p.i += 1  # get
    p.expect("(")
    type_: str | None = None
    rt: int | None = None
    while not p.accept(")"):
        if type_ is not None or rt is not None:
            p.expect(",")
        ptok = p.tok
        pname = ptok[1].lower()
        if ptok[0] != "name" or pname not in ("type", "return"):
            raise p.error("expected 'type: <TYPE>' or 'return: <RETURN>'")
        p.i += 1
        p.expect(":")
        vtok = p.tok
        value = vtok[1].upper()
        table: Mapping[str, Any] = TYPES if pname == "type" else RETURNS
        if vtok[0] != "name" or value not in table:
            raise p.error(f"unknown {pname} {vtok[1]!r}; one of {', '.join(table)}")
        p.i += 1
        if pname == "type":
            type_ = table[value]
        else:
            rt = table[value]
    return type_, rt


def get_type(p: _Parser) -> str:
    """``get(type: <TYPE>)`` (after its dot)."""
    if not (p.tok[0] == "name" and p.tok[1].lower() == "get"):
        raise p.error("expected 'get(type: <TYPE>)'")
    tok = p.tok
    type_, rt = get_params(p)
    if type_ is None or rt is not None:
        raise p.error("expected 'get(type: <TYPE>)'", tok)
    return type_


def path_end(p: _Parser, name: str, parts: list[Part], tok: Token) -> Exp:
    """Read the path function after the parts: ``get``, ``count``, ``exists``, casts..."""
    method = ""
    if p.tok[1] == "." and p.peek()[0] == "name":
        method = p.peek()[1].lower()
    designator = bool(parts) and parts[-1].kind == "designator"
    if method == "get":
        p.i += 1
        type_, rt = get_params(p)
        if not parts:
            if rt is not None or type_ is None:
                raise p.error("a bin takes 'get(type: <TYPE>)'")
            return bin_(name, type_)
        return path.select(name, parts, type_, rt)
    if method in ("count", "exists", "type") or method in CASTS:
        p.i += 2
        p.args_none()
        if method in CASTS:
            inner = path.select(name, parts, None, None) if parts else bin_(name, None)
            return CASTS[method](inner)
        if not parts:
            if method == "count":
                return exp_module().list_bin(name).list.size()  # type: ignore[no-any-return]
            return _bin_fn("bin_exists" if method == "exists" else "bin_type", name)
        if method == "type":
            raise p.error("type() applies to a bin", tok)
        if method == "count" and designator:
            return _size(name, parts)
        rt = RETURNS["COUNT" if method == "count" else "EXISTS"]
        return path.select(name, parts, None, rt)
    if p.tok[1] == "." and p.peek()[0] == "name":
        raise p.error(f"unknown bin method {p.peek()[1]!r}", p.peek())
    if not parts:
        return bin_(name, None)
    if designator:
        raise p.error("a type designator ends in '.count()'", tok)
    return path.select(name, parts, None, None)


def _size(name: str, parts: list[Part]) -> Exp:
    ctx = path.to_ctx(parts[:-1])
    F = exp_module()
    base = bin_(name, parts[0].family)
    scope = F.ListExp(base, ctx) if parts[-1].family == "list" else F.MapExp(base, ctx)
    return scope.size()  # type: ignore[no-any-return]


def _to_int(e: Exp) -> Exp:
    return exp_module().to_int(e)  # type: ignore[no-any-return]


def _to_float(e: Exp) -> Exp:
    return exp_module().to_float(e)  # type: ignore[no-any-return]


CASTS: dict[str, Callable[[Exp], Exp]] = {"asint": _to_int, "asfloat": _to_float}


def _bin_fn(name: CoreNode, bin_name: str) -> Exp:
    return fn(name, (_validate.bin_name(bin_name),), "bool" if name == "bin_exists" else "int")
