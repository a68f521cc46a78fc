"""AEL (Aerospike Expression Language) text compiled client-side into :class:`Exp` trees.

Supported (anything else raises :class:`AelSyntaxError` with a position):

* bins: ``$.age`` (type inferred), ``$.age.get(type: INT)``, ``$.age.exists()``,
  ``$.age.type()``, quoted names ``$.'odd name'``; casts ``.asInt()`` / ``.asFloat()``;
* paths into lists and maps (see ``_ael_path``): ``$.m.key``, ``$.m.'a key'``, ``$.l.[0]``
  (or ``$.l[0]``), ``[#rank]``, ``[=value]``, ranges ``[1:3]``, ``[#0:2]``, ``[=1:5]``, value
  lists ``[=1,2]``, relative ranks ``[#0:~5]``, map forms in braces (``{0}``, ``{#-1}``,
  ``{=v}``, ``{a-c}``, ``{a,b}``), ``!`` for inverted; then ``.get(type: T, return: R)``,
  ``.count()``, ``.exists()``; sizes ``$.l.[].count()`` / ``$.m.{}.count()``;
* metadata: ``$.ttl()``, ``$.voidTime()``, ``$.lastUpdate()``, ``$.sinceUpdate()``,
  ``$.setName()``, ``$.recordSize()``, ``$.deviceSize()``, ``$.memorySize()``,
  ``$.keyExists()``, ``$.isTombstone()``, ``$.digestModulo(n)``, ``$.key()``; also without
  ``$.`` and in snake_case;
* literals: integers (also ``0x..``, ``0b..``), floats, quoted strings, ``true`` / ``false``,
  list ``[1, 'a']`` and map ``{1: 'a'}`` constants;
* parameters: ``?0``, ``?1`` (positional) and ``?name`` (named), given to :func:`parse`; their
  values become literals, never text, so they need no quoting;
* operators, loosest first: ``or``; ``and``; ``not``; ``== != < <= > >= in``; ``& | ^``;
  ``<< >> >>>``; ``+ -``; ``* / %``; ``**`` (right-associative); unary ``- + ~``;
* ``let(x = ..., y = ...) then (...)`` with ``${x}``; ``when(c => v, ..., default => v)``;
  functions ``abs``, ``floor``, ``ceil``, ``min``, ``max``, ``regex(value, 'pattern'[, flags])``,
  ``exclusive(a, b, ...)``, ``not(...)``, ``int_count``, ``int_lscan``, ``int_rscan``;
* blobs ``x'0fa0'``; ``bits.count($.b, 0, 8)``, ``hll.getCount($.h)`` (see ``_ael_family``);
  list and map modifies ``list.append($.l, 5)``, ``map.put($.m.a, 'k', 1)`` (``_ael_cdt_modify``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aerospike_fluent._plan import CoreNode
from aerospike_fluent.errors import AelSyntaxError, InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp import _ael_cdt_modify as cdt_modify
from aerospike_fluent.exp import _ael_family as family
from aerospike_fluent.exp import _ael_methods as methods
from aerospike_fluent.exp import _core
from aerospike_fluent.exp._ael_lex import (
    KEYWORDS,
    Token,
    int_text,
    is_float_text,
    tokenize,
    unquote,
)
from aerospike_fluent.exp._ael_limits import MAX_NESTING
from aerospike_fluent.exp._ael_methods import exp_module as _exp
from aerospike_fluent.exp._ael_render import to_ael
from aerospike_fluent.exp._ael_runs import Run
from aerospike_fluent.exp._core import Exp, fn, val
from aerospike_fluent.exp._intbits import as_int

__all__ = ["parse", "to_ael"]

_META: dict[str, CoreNode] = {
    "ttl": "ttl",
    "voidtime": "void_time",
    "lastupdate": "last_update",
    "sinceupdate": "since_update",
    "setname": "set_name",
    "recordsize": "record_size",
    "devicesize": "record_size",
    "memorysize": "record_size",
    "keyexists": "key_exists",
    "istombstone": "is_tombstone",
}
_CMP: dict[str, Callable[[Exp, Exp], Exp]] = {
    "==": Exp.__eq__,
    "!=": Exp.__ne__,
    "<": Exp.__lt__,
    "<=": Exp.__le__,
    ">": Exp.__gt__,
    ">=": Exp.__ge__,
}
_ARITH: dict[str, CoreNode] = {
    "+": "num_add",
    "-": "num_sub",
    "*": "num_mul",
    "/": "num_div",
    "%": "num_mod",
}
_BITWISE = {"&": "int_and", "|": "int_or", "^": "int_xor"}
_SHIFT = {"<<": "lshift", ">>": "arshift", ">>>": "rshift"}


class _Parser:
    def __init__(self, text: str, args: Sequence[Any], params: Mapping[str, Any]) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0
        self.positional = args
        self.params = params

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"expression nested too deeply (at most {MAX_NESTING} levels)")

    def unnest(self) -> None:
        self.depth -= 1

    # -- token helpers
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, n: int = 1) -> Token:
        return self.tokens[min(self.i + n, len(self.tokens) - 1)]

    def error(self, message: str, tok: Token | None = None) -> AelSyntaxError:
        t = tok or self.tok
        return AelSyntaxError(message, self.text, t[2])

    def at(self, text: str) -> bool:
        kind, value, _ = self.tok
        if kind == "name":
            return value.lower() == text
        return kind == "op" and value == text

    def accept(self, *texts: str) -> str | None:
        for t in texts:
            if self.at(t):
                self.i += 1
                return t
        return None

    def expect(self, text: str) -> None:
        if not self.accept(text):
            found = self.tok[1] or "end of input"
            raise self.error(f"expected {text!r}, found {found!r}")

    def guard(self, tok: Token, build: Callable[..., Exp], *args: Any) -> Exp:
        """Run a node constructor; its type errors become syntax errors at ``tok``."""
        try:
            return build(*args)
        except (InvalidArgumentError, InvalidTypeError) as exc:
            if isinstance(exc, AelSyntaxError):
                raise
            raise self.error(str(exc), tok) from None

    # -- grammar, loosest first
    def parse(self) -> Exp:
        if self.tok[0] == "end":
            raise self.error("empty expression")
        e = self.or_()
        if self.tok[0] != "end":
            raise self.error(f"unexpected {self.tok[1]!r}")
        return e

    def logic_op(self, word: str, symbol: str) -> str | None:
        """Take the operator ``word`` (or ``symbol``, its other spelling) if it comes next."""
        if self.tok[1] == symbol or self.at(word):
            self.i += 1
            return word
        return None

    def op_in(self, table: Mapping[str, object]) -> str | None:
        """Take the next token if it is an operator of ``table``."""
        kind, text, _ = self.tok
        if kind == "op" and text in table:
            self.i += 1
            return text
        return None

    @property
    def last(self) -> Token:
        """The token just taken."""
        return self.tokens[self.i - 1]

    def or_(self) -> Exp:
        self.nest()
        run = Run(self, self.and_(), _as_bool, _core.logic_chain)
        while (op := self.logic_op("or", "||")) is not None:
            run.add(op, self.last, self.and_())
        self.unnest()
        return run.result()

    def and_(self) -> Exp:
        run = Run(self, self.not_(), _as_bool, _core.logic_chain)
        while (op := self.logic_op("and", "&&")) is not None:
            run.add(op, self.last, self.not_())
        return run.result()

    def not_(self) -> Exp:
        if self.at("not") or (self.at("!") and self.tok[0] == "op"):
            tok = self.tok
            self.i += 1
            self.nest()
            inner = self.not_()
            self.unnest()
            return self.guard(tok, Exp.__invert__, inner)
        return self.cmp()

    def cmp(self) -> Exp:
        e = self.bitwise()
        tok = self.tok
        if self.accept("in"):
            right = self.bitwise()
            return self.guard(tok, _exp().in_list, e, right)
        op = self.accept(*_CMP)
        if op is None:
            return e
        right = self.bitwise()
        if self.tok[1] in _CMP or self.at("in"):
            raise self.error("chained comparisons need 'and'")
        return self.guard(tok, _CMP[op], e, right)

    def bitwise(self) -> Exp:
        run = Run(self, self.shift(), _as_int, _bitwise)
        while (op := self.op_in(_BITWISE)) is not None:
            run.add(op, self.last, self.shift())
        return run.result()

    def shift(self) -> Exp:
        e = self.add()
        while self.tok[0] == "op" and self.tok[1] in _SHIFT:
            tok = self.tok
            self.i += 1
            right = self.add()
            e = self.guard(tok, getattr(_exp(), _SHIFT[tok[1]]), e, right)
        return e

    def add(self) -> Exp:
        run = Run(self, self.mul(), _as_number, _arithmetic)
        while (op := self.accept("+", "-")) is not None:
            run.add(op, self.last, self.mul())
        return run.result()

    def mul(self) -> Exp:
        run = Run(self, self.power(), _as_number, _arithmetic)
        while (op := self.accept("*", "/", "%")) is not None:
            run.add(op, self.last, self.power())
        return run.result()

    def power(self) -> Exp:
        e = self.unary()
        if not self.accept("**"):
            return e
        tok = self.tokens[self.i - 1]
        self.nest()
        right = self.power()  # right-associative
        self.unnest()
        return self.guard(tok, Exp.__pow__, e, right)

    def unary(self) -> Exp:
        if self.tok[0] == "op" and self.tok[1] in ("-", "+", "~"):
            tok = self.tok
            self.i += 1
            self.nest()
            inner = self.unary()
            self.unnest()
            if tok[1] == "+":
                return inner
            return self.guard(tok, Exp.__neg__ if tok[1] == "-" else _exp().int_not, inner)
        return self.casts(self.primary())

    def casts(self, e: Exp) -> Exp:
        """``.asInt()`` / ``.asFloat()`` after a value (AEL writes them after paths)."""
        while self.tok[1] == "." and self.peek()[1].lower() in methods.CASTS:
            self.i += 1
            tok = self.tok
            self.i += 1
            self.args_none()
            e = self.guard(tok, methods.CASTS[tok[1].lower()], e)
        return e

    def primary(self) -> Exp:
        kind, text, _ = tok = self.tok
        if kind == "num":
            self.i += 1
            value = float(text) if is_float_text(text) else int_text(text)
            return self.guard(tok, val, value)
        if kind == "str":
            self.i += 1
            return val(unquote(text))
        if kind == "param":
            self.i += 1
            return self.guard(tok, self.param, text[1:])
        if kind == "var":
            self.i += 1
            return self.guard(tok, _exp().var, text[2:-1])
        if self.at("["):
            return self.guard(tok, val, self.constant())
        if self.at("{"):
            return self.guard(tok, val, self.constant())
        if self.accept("("):
            e = self.or_()
            self.expect(")")
            return e
        if self.accept("$"):
            self.expect(".")
            return self.path()
        if kind == "name":
            low = text.lower()
            if low in ("bits", "hll", "list", "map") and self.peek()[1] == ".":
                self.i += 1
                call = family.call if low in ("bits", "hll") else cdt_modify.call
                return call(self, low)
            if low == "x" and self.peek()[0] == "str":
                return family.blob(self)
            if low in ("true", "false"):
                self.i += 1
                return val(low == "true")
            if low == "let":
                self.i += 1
                return self.let(tok)
            if low == "when":
                self.i += 1
                return self.when(tok)
            if low in KEYWORDS:
                raise self.error(f"unexpected keyword {text!r}")
            self.i += 1
            return self.function(text, tok)
        raise self.error("expected a value" if kind != "end" else "unexpected end of input")

    def param(self, name: str) -> Exp:
        if name.isdigit():
            n = int(name)
            if n >= len(self.positional):
                n_given = len(self.positional)
                raise InvalidArgumentError(f"?{n}: only {n_given} positional value(s) given")
            value = self.positional[n]
        elif name in self.params:
            value = self.params[name]
        else:
            raise InvalidArgumentError(f"?{name}: no such named value")
        return value if isinstance(value, Exp) else val(value)

    def constant(self) -> Any:
        """Read a list ``[...]`` or map ``{k: v, ...}`` of constants."""
        self.nest()
        closing = "]" if self.accept("[") else "}"
        if closing == "}":
            self.expect("{")
        items: list[Any] = []
        entries: dict[Any, Any] = {}
        while not self.accept(closing):
            if items or entries:
                self.expect(",")
            item = self.literal_value()
            if closing == "}":
                self.expect(":")
                entries[item] = self.literal_value()
            else:
                items.append(item)
        self.unnest()
        if closing == "}":
            return entries
        return items

    def literal_value(self) -> Any:
        """Read a constant inside a list or map constant (a literal, a parameter, a nested one)."""
        tok = self.tok
        if self.at("[") or self.at("{"):
            return self.constant()
        e = self.unary()
        if e._kind != _core._LIT or e.value_type == "nil":
            raise self.error("a list or map constant holds literal values only", tok)
        return e._args[0][1]

    def args(self) -> list[Exp]:
        self.expect("(")
        out: list[Exp] = []
        if not self.accept(")"):
            out.append(self.or_())
            while self.accept(","):
                out.append(self.or_())
            self.expect(")")
        return out

    def args_none(self) -> None:
        self.expect("(")
        self.expect(")")

    def let(self, tok: Token) -> Exp:
        self.expect("(")
        defs: dict[str, Exp] = {}
        while True:
            ntok = self.tok
            if ntok[0] != "name":
                raise self.error("expected a variable name")
            self.i += 1
            self.expect("=")
            if ntok[1] in defs:
                raise self.error(f"variable {ntok[1]!r} defined twice", ntok)
            defs[ntok[1]] = self.or_()
            if not self.accept(","):
                break
        self.expect(")")
        self.expect("then")
        self.expect("(")
        body = self.or_()
        self.expect(")")
        return self.guard(tok, lambda: _exp().let(**defs).then(body))

    def when(self, tok: Token) -> Exp:
        self.expect("(")
        branches: list[Exp] = []
        while True:
            if self.accept("default"):
                self.expect("=>")
                branches.append(self.or_())
                break
            branches.append(self.or_())
            self.expect("=>")
            branches.append(self.or_())
            self.expect(",")
        self.expect(")")
        return self.guard(tok, _exp().cond, *branches)

    def function(self, name: str, tok: Token) -> Exp:
        low = name.lower().replace("_", "")
        if not self.at("("):
            raise self.error(f"unknown name {name!r} (bins are written $.{name})", tok)
        F = _exp()
        if low in _META:
            self.args_none()
            return fn(_META[low], (), _meta_type(_META[low]))
        if low == "key":
            self.args_none()
            type_ = methods.get_type(self) if self.accept(".") else None
            return self.guard(tok, lambda: _core.key(type_))
        args = self.args()
        simple: dict[str, tuple[Callable[..., Exp], int | None]] = {
            "abs": (abs, 1),
            "floor": (F.floor, 1),
            "ceil": (F.ceil, 1),
            "min": (F.min_, None),
            "max": (F.max_, None),
            "not": (Exp.__invert__, 1),
            "exclusive": (F.exclusive, None),
            "intcount": (F.int_count, 1),
            "intlscan": (F.int_lscan, 2),
            "intrscan": (F.int_rscan, 2),
        }
        if low in simple:
            build, n = simple[low]
            if n is not None and len(args) != n:
                raise self.error(f"{name}() takes {n} argument(s)", tok)
            return self.guard(tok, build, *args)
        if low == "digestmodulo":
            return self.guard(tok, lambda: _digest_modulo(args))
        if low == "regex":
            return self.guard(tok, lambda: _regex(args))
        raise self.error(f"unknown function {name!r}", tok)

    def path(self) -> Exp:
        from aerospike_fluent.exp._ael_parts import parse_parts

        kind, text, _ = tok = self.tok
        if kind == "str":
            name = unquote(text)
        elif kind == "name":
            name = text
        else:
            raise self.error("expected a bin name after '$.'")
        self.i += 1
        if kind == "name" and self.at("("):
            return self.function(name, tok)
        parts = parse_parts(self)
        return self.guard(tok, lambda: methods.path_end(self, name, parts, tok))


def _as_bool(op: str, e: Exp) -> Exp:
    return _core.as_bool(e)


def _as_number(op: str, e: Exp) -> Exp:
    return _core.as_number(_ARITH[op], e)


def _arithmetic(op: str, first: Exp, rest: list[Exp]) -> Exp:
    """``first op rest[0] op ...``: one node, but ``%`` (not associative) nests to the left."""
    if op != "%":
        return _core.num_chain(_ARITH[op], first, rest)
    for right in rest:
        first = first % right
    return first


def _as_int(op: str, e: Exp) -> Exp:
    return as_int(_BITWISE[op], e)


def _bitwise(op: str, first: Exp, rest: list[Exp]) -> Exp:
    """Build ``a & b & c`` as one node (as ``int_and(a, b, c)`` does), ``(a & b) & c`` as two."""
    return getattr(_exp(), _BITWISE[op])(first, *rest)  # type: ignore[no-any-return]


def _regex(args: list[Exp]) -> Exp:
    def literal(e: Exp, type_: str) -> Any:
        if e._kind != _core._LIT or e.value_type != type_:
            raise InvalidArgumentError("regex() takes a literal pattern and literal flags")
        return e._args[0][1]

    if len(args) not in (2, 3):
        raise InvalidArgumentError("regex() takes a value, a pattern and optional flags")
    flags = literal(args[2], "int") if len(args) == 3 else 0
    return _exp().regex(args[0], literal(args[1], "str"), flags)  # type: ignore[no-any-return]


def _digest_modulo(args: list[Exp]) -> Exp:
    if len(args) != 1 or args[0]._kind != _core._LIT or args[0].value_type != "int":
        raise InvalidArgumentError("digestModulo() takes one integer literal")
    return _exp().digest_modulo(args[0]._args[0][1])  # type: ignore[no-any-return]


def _meta_type(name: str) -> str:
    return {"set_name": "str", "key_exists": "bool", "is_tombstone": "bool"}.get(name, "int")


def parse(text: str, *args: Any, **params: Any) -> Exp:
    """Compile AEL ``text`` into an expression.

    ``?0``, ``?1``... take ``args`` and ``?name`` takes ``params``: values (or expressions)
    that become literals, so they never need quoting or escaping.

    Raises:
        AelSyntaxError: with ``position`` set, when the text is not valid (supported) AEL.

    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"AEL must be a str, not {type(text).__name__}")
    return _Parser(text, args, params).parse()
