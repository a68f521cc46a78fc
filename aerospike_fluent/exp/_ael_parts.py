"""The parts of an AEL path after its bin, read off the parser's tokens.

``.key`` / ``.'a key'`` / ``.5`` (map keys); ``[...]`` or ``.[...]`` (list parts);
``.{...}`` (map parts). Inside brackets: ``i`` index, ``#r`` rank, ``=v`` value, ``i:j`` /
``#r:s`` / ``=v:w`` ranges (``j`` / ``s`` / ``w`` exclusive, open when left out), ``=v,w``
value lists, ``a,b`` key lists and ``a-c`` key ranges (maps), ``#r:~v`` a rank range relative
to ``v``, ``i:~k`` an index range relative to key ``k`` (maps); ``!`` first inverts; ``[]`` /
``{}`` alone name the container (before ``.count()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aerospike_fluent.exp._ael_lex import int_text, unquote
from aerospike_fluent.exp._ael_path import Part

if TYPE_CHECKING:
    from aerospike_fluent.exp._ael import _Parser


def parse_parts(p: _Parser) -> list[Part]:
    """Read path parts until something that is not one (a method call, an operator...)."""
    parts: list[Part] = []
    while True:
        kind, text, _ = p.tok
        nxt = p.peek()
        if kind == "op" and text == "[":
            p.i += 1
            parts.append(_bracket(p, "list"))
        elif text == "." and nxt[0] == "op" and nxt[1] in ("[", "{"):
            p.i += 2
            parts.append(_bracket(p, "list" if nxt[1] == "[" else "map"))
        elif text == "." and nxt[0] in ("name", "str") and p.peek(2)[1] != "(":
            p.i += 2
            key = unquote(nxt[1]) if nxt[0] == "str" else nxt[1]
            parts.append(Part("map", "key", (key,)))
        elif kind == "num" and text.startswith(".") and text[1:].isdigit():
            p.i += 1
            parts.append(Part("map", "key", (int(text[1:]),)))
        else:
            return parts


def _signed_int(p: _Parser) -> int:
    neg = p.accept("-") is not None
    kind, text, _ = p.tok
    if kind != "num" or text.startswith(".") or "." in text or "e" in text.lower()[2:]:
        raise p.error("expected an integer")
    p.i += 1
    return -int_text(text) if neg else int_text(text)


def _starts_int(p: _Parser) -> bool:
    kind, text, _ = p.tok
    if kind == "op" and text == "-":
        kind = p.peek()[0]
    return kind == "num"


def _value(p: _Parser) -> Any:
    """Read a value inside a part: an int, a quoted string or a bare name (a string)."""
    if _starts_int(p):
        return _signed_int(p)
    kind, text, _ = p.tok
    if kind == "str":
        p.i += 1
        return unquote(text)
    if kind == "name":
        p.i += 1
        return text
    raise p.error("expected a value (an integer, a name or a quoted string)")


def _span(start: int, end: int | None, p: _Parser) -> int | None:
    if end is None:
        return None
    if end < start:
        raise p.error("a range ends before it starts")
    return end - start


def _bracket(p: _Parser, family: str) -> Part:
    close = "]" if family == "list" else "}"
    if p.accept(close):
        return Part(family, "designator")
    inverted = False
    sigil = ""
    if p.accept("!="):
        inverted, sigil = True, "="
    else:
        inverted = p.accept("!") is not None
        sigil = p.accept("#", "=") or ""
    if sigil == "#":
        return _ranked(p, family, close, inverted)
    if sigil == "=":
        first = _value(p)
        if p.accept(close):
            return Part(family, "value", (first,), inverted)
        if p.at(","):
            values = [first]
            while p.accept(","):
                values.append(_value(p))
            p.expect(close)
            return Part(family, "value_list", tuple(values), inverted)
        p.expect(":")
        end = None if p.at(close) else _value(p)
        p.expect(close)
        return Part(family, "value_range", (first, end), inverted)
    if _starts_int(p):
        start = _signed_int(p)
        if p.accept(close):
            return Part(family, "index", (start,), inverted)
        p.expect(":")
        end = None if p.at(close) or p.at("~") else _signed_int(p)
        if family == "map" and p.accept("~"):
            key = _value(p)
            p.expect(close)
            return Part(family, "rel_index", (start, key, _span(start, end, p)), inverted)
        p.expect(close)
        return Part(family, "index_range", (start, _span(start, end, p)), inverted)
    if family == "list":
        raise p.error("expected an index, '#rank' or '=value'")
    first = _value(p)
    if p.accept("-"):
        end = None if p.at(close) else _value(p)
        p.expect(close)
        return Part(family, "key_range", (first, end), inverted)
    keys = [first]
    while p.accept(","):
        keys.append(_value(p))
    p.expect(close)
    if len(keys) < 2:
        raise p.error("a single key is written '.key', not in braces")
    return Part(family, "key_list", tuple(keys), inverted)


def _ranked(p: _Parser, family: str, close: str, inverted: bool) -> Part:
    start = _signed_int(p)
    if p.accept(close):
        return Part(family, "rank", (start,), inverted)
    p.expect(":")
    end = None if p.at(close) or p.at("~") else _signed_int(p)
    if p.accept("~"):
        anchor = _value(p)
        p.expect(close)
        return Part(family, "rel_rank", (start, anchor, _span(start, end, p)), inverted)
    p.expect(close)
    return Part(family, "rank_range", (start, _span(start, end, p)), inverted)
