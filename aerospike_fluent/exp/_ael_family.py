"""AEL text of the bit and HLL expressions: ``bits.<method>(bin, ...)``, ``hll.<method>(bin, ...)``.

The method names are the builder's in camelCase (``bits.setInt``, ``hll.getUnionCount``; ``or``,
``and``, ``not`` without the underscore), the first argument is the blob or HLL, then the
builder's positional arguments, then its options as ``name: value``: ``signed: true``,
``overflow: WRAP``, ``resize: 1``, ``flags: 8``. Blobs are written ``x'0fa0'``.

    bits.count($.flags, 0, 8) > 2
    bits.setInt($.flags.get(type: BLOB), 0, 8, 7)
    bits.add($.b, 0, 8, 250, overflow: WRAP, flags: 4)
    hll.getCount(hll.add($.visitors, ['u1', 'u2'], 12)) > 1000
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aerospike_fluent._bits import BitOverflow, BitResize, BitWrite
from aerospike_fluent._hll import HllWrite
from aerospike_fluent.errors import InvalidArgumentError

if TYPE_CHECKING:
    from aerospike_fluent.exp._ael import _Parser
    from aerospike_fluent.exp._core import Exp

_E = "e"
"""A slot holding an expression, written positionally."""

_BITS: dict[str, tuple[str, ...]] = {
    "get": (_E, _E),
    "count": (_E, _E),
    "lscan": (_E, _E, _E),
    "rscan": (_E, _E, _E),
    "get_int": (_E, _E, "signed"),
    "resize": (_E, "resize", "flags"),
    "insert": (_E, _E, "flags"),
    "remove": (_E, _E, "flags"),
    "not": (_E, _E, "flags"),
    **{n: (_E, _E, _E, "flags") for n in ("set", "or", "xor", "and", "lshift", "rshift")},
    "set_int": (_E, _E, _E, "flags"),
    "add": (_E, _E, _E, "signed", "overflow", "flags"),
    "subtract": (_E, _E, _E, "signed", "overflow", "flags"),
}
_HLLS: dict[str, tuple[str, ...]] = {
    "get_count": (),
    "describe": (),
    **{
        n: (_E,)
        for n in (
            "get_union",
            "get_union_count",
            "get_intersect_count",
            "get_similarity",
            "may_contain",
        )
    },
    "init": (_E, _E, "flags"),
    "add": (_E, _E, _E, "flags"),
}
_FAMILIES = {"bits": _BITS, "hll": _HLLS}
_DEFAULTS: dict[str, Any] = {"signed": False, "overflow": 0, "resize": 0, "flags": 0}


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(w.capitalize() for w in rest)


def _snake(camel: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)


def render(name: str, args: tuple[Any, ...], text: Callable[[Any], str]) -> str | None:
    """AEL text of a ``bits.*`` / ``hlls.*`` node, or None for other nodes."""
    family, _, fn = name.partition(".")
    table = _BITS if family == "bits" else _HLLS if family == "hlls" else None
    if table is None or fn not in table:
        return None
    *values, target = args
    parts = [text(target)]
    for slot, v in zip(table[fn], values, strict=True):
        if slot == _E:
            parts.append(text(v))
        elif v != _DEFAULTS[slot]:
            shown = BitOverflow(v).name if slot == "overflow" else str(v).lower()
            parts.append(f"{slot}: {shown}")
    return f"{'bits' if family == 'bits' else 'hll'}.{_camel(fn)}({', '.join(parts)})"


def _option(slot: str, family: str, value: object) -> Any:
    enums: dict[str, Any] = {
        "overflow": BitOverflow,
        "resize": BitResize,
        "flags": BitWrite if family == "bits" else HllWrite,
    }
    if slot == "signed":
        if not isinstance(value, bool):
            raise InvalidArgumentError("signed takes true or false")
        return value
    enum = enums[slot]
    if isinstance(value, str):
        try:
            return enum[value.upper()]
        except KeyError:
            raise InvalidArgumentError(f"unknown {slot} {value!r}") from None
    return enum(value)


def blob(p: _Parser) -> Exp:
    """Read a blob literal ``x'0fa0'`` (hex digits in quotes)."""
    from aerospike_fluent.exp._ael_lex import unquote
    from aerospike_fluent.exp._core import val

    tok = p.peek()
    p.i += 2
    try:
        return val(bytes.fromhex(unquote(tok[1])))
    except ValueError:
        raise p.error("a blob is x'<hex digits>'", tok) from None


def arguments(
    p: _Parser, label: str, options: set[str], *, nil: bool = False
) -> tuple[list[Any], dict[str, Any]]:
    """Read ``, args..., name: value...)`` after a call's target (``nil``: ``nil`` is None)."""
    positional: list[Any] = []
    named: dict[str, Any] = {}
    while p.accept(","):
        if p.tok[0] == "name" and p.peek()[1] == ":":
            key = p.tok[1]
            if key not in options:
                raise p.error(f"{label} takes no option {key!r}")
            p.i += 2
            vtok = p.tok
            if vtok[0] == "name" and vtok[1].lower() not in ("true", "false"):
                p.i += 1
                named[key] = vtok[1]
            else:
                named[key] = p.literal_value()
        elif named:
            raise p.error("positional arguments come before the options")
        elif nil and p.at("nil") and p.peek()[1] in (",", ")"):
            p.i += 1
            positional.append(None)
        else:
            positional.append(p.or_())
    p.expect(")")
    return positional, named


def call(p: _Parser, family: str) -> Exp:
    """Read ``.<method>(target, args..., name: value...)`` after ``bits`` / ``hll``."""
    table = _FAMILIES[family]
    p.expect(".")
    tok = p.tok
    fn = _snake(tok[1]) if tok[0] == "name" else ""
    if fn not in table:
        raise p.error(f"unknown {family} method {tok[1]!r}; one of {sorted(map(_camel, table))}")
    p.i += 1
    p.expect("(")
    target = p.or_()
    options = set(table[fn]) - {_E}
    positional, named = arguments(p, f"{family}.{tok[1]}", options)
    if len(positional) != table[fn].count(_E):
        raise p.error(f"{family}.{tok[1]} takes {table[fn].count(_E)} argument(s) after the target")

    def build() -> Exp:
        scope = target.bits if family == "bits" else target.hll
        method = getattr(scope, fn + "_" if fn in ("or", "and", "not") else fn)
        options = {k: _option(k, family, v) for k, v in named.items()}
        return method(*positional, **options)  # type: ignore[no-any-return]

    return p.guard(tok, build)
