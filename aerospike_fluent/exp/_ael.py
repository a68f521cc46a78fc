"""AEL (Aerospike Expression Language) text compiled client-side into :class:`Exp` trees.

Supported (a documented subset; anything else raises :class:`AelSyntaxError` with a position):

* bins: ``$.age`` (type inferred), ``$.age.get(type: INT)`` (INT, FLOAT, STRING, BOOL, BLOB,
  LIST, MAP, GEO), ``$.age.exists()``, ``$.age.type()``, quoted names ``$.'odd name'``;
* metadata: ``$.ttl()``, ``$.voidTime()``, ``$.lastUpdate()``, ``$.sinceUpdate()``,
  ``$.setName()``, ``$.recordSize()``, ``$.keyExists()``, ``$.isTombstone()``,
  ``$.digestModulo(n)``; the same without ``$.`` and in snake_case (``ttl()``, ``last_update()``);
* ``$.key()`` (optionally ``.get(type: T)``); sizes ``$.l.[].count()`` / ``$.m.{}.count()``;
  casts ``.asInt()`` / ``.asFloat()`` after a bin or a parenthesised value;
* literals: integers, floats, ``'single'`` / ``"double"`` quoted strings, ``true`` / ``false``;
* operators, loosest first: ``or``; ``and``; ``not``; ``== != < <= > >=``; ``+ -``; ``* / %``;
  ``**`` (right-associative); unary ``-``; parentheses; functions ``abs(x)``, ``floor(x)``,
  ``ceil(x)``, ``min(a, b, ...)``, ``max(a, b, ...)``, ``regex(value, 'pattern'[, flags])``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from aerospike_fluent._plan import CoreNode
from aerospike_fluent.errors import AelSyntaxError, InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp import _core
from aerospike_fluent.exp._core import Exp, bin_, fn, val

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*|==|!=|<=|>=|&&|\|\||[<>+\-*/%(),:.$!\[\]{}])
""",
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}
_TYPES = {
    "INT": "int",
    "FLOAT": "float",
    "STRING": "str",
    "BOOL": "bool",
    "BLOB": "blob",
    "LIST": "list",
    "MAP": "map",
    "GEO": "geo",
}
_AEL_TYPE = {v: k for k, v in _TYPES.items()}
_META: dict[str, CoreNode] = {
    "ttl": "ttl",
    "voidtime": "void_time",
    "void_time": "void_time",
    "lastupdate": "last_update",
    "last_update": "last_update",
    "sinceupdate": "since_update",
    "since_update": "since_update",
    "setname": "set_name",
    "set_name": "set_name",
    "recordsize": "record_size",
    "record_size": "record_size",
    "keyexists": "key_exists",
    "key_exists": "key_exists",
    "istombstone": "is_tombstone",
    "is_tombstone": "is_tombstone",
}
_META_RENDER = {
    "ttl": "ttl",
    "void_time": "voidTime",
    "last_update": "lastUpdate",
    "since_update": "sinceUpdate",
    "set_name": "setName",
    "record_size": "recordSize",
    "key_exists": "keyExists",
    "is_tombstone": "isTombstone",
}
_CMP: dict[str, Callable[[Exp, Exp], Exp]] = {
    "==": Exp.__eq__,
    "!=": Exp.__ne__,
    "<": Exp.__lt__,
    "<=": Exp.__le__,
    ">": Exp.__gt__,
    ">=": Exp.__ge__,
}
_CMP_NAME = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_ARITH = {"+": Exp.__add__, "-": Exp.__sub__, "*": Exp.__mul__, "/": Exp.__truediv__}
_ARITH_NAME = {"num_add": "+", "num_sub": "-", "num_mul": "*", "num_div": "/", "num_mod": "%"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset({"and", "or", "not", "true", "false"})

Token = tuple[str, str, int]  # kind, text, position


def _tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise AelSyntaxError(f"unexpected character {text[pos]!r}", text, pos)
        kind = m.lastgroup or ""
        if kind != "ws":
            tokens.append((kind, m.group(), pos))
        pos = m.end()
    tokens.append(("end", "", len(text)))
    return tokens


MAX_NESTING = 64
"""Deepest nesting of parentheses, calls and prefix operators the parser accepts."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.depth = 0

    def nest(self) -> None:
        """Enter one level of nesting (``unnest`` leaves it); too deep is a syntax error."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"expression nested too deeply (at most {MAX_NESTING} levels)")

    def unnest(self) -> None:
        self.depth -= 1

    # -- token helpers
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

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

    # -- grammar
    def parse(self) -> Exp:
        if self.tok[0] == "end":
            raise self.error("empty expression")
        e = self.or_()
        if self.tok[0] != "end":
            raise self.error(f"unexpected {self.tok[1]!r}")
        return e

    def or_(self) -> Exp:
        self.nest()
        e = self.and_()
        while self.tok[1] in ("||",) or self.at("or"):
            tok = self.tok
            self.i += 1
            right = self.and_()
            e = self.guard(tok, Exp.__or__, e, right)
        self.unnest()
        return e

    def and_(self) -> Exp:
        e = self.not_()
        while self.tok[1] in ("&&",) or self.at("and"):
            tok = self.tok
            self.i += 1
            right = self.not_()
            e = self.guard(tok, Exp.__and__, e, right)
        return e

    def not_(self) -> Exp:
        if self.at("not") or self.at("!"):
            tok = self.tok
            self.i += 1
            self.nest()
            inner = self.not_()
            self.unnest()
            return self.guard(tok, Exp.__invert__, inner)
        return self.cmp()

    def cmp(self) -> Exp:
        e = self.add()
        op = self.accept(*_CMP)
        if op is None:
            return e
        tok = self.tokens[self.i - 1]
        right = self.add()
        if self.tok[1] in _CMP:
            raise self.error("chained comparisons need 'and'")
        return self.guard(tok, _CMP[op], e, right)

    def add(self) -> Exp:
        e = self.mul()
        while (op := self.accept("+", "-")) is not None:
            tok = self.tokens[self.i - 1]
            right = self.mul()
            e = self.guard(tok, _ARITH[op], e, right)
        return e

    def mul(self) -> Exp:
        e = self.power()
        while (op := self.accept("*", "/", "%")) is not None:
            tok = self.tokens[self.i - 1]
            right = self.power()
            if op == "%":
                e = self.guard(tok, Exp.__mod__, e, right)
            else:
                e = self.guard(tok, _ARITH[op], e, right)
        return e

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
        if self.at("-"):
            tok = self.tok
            self.i += 1
            self.nest()
            inner = self.unary()
            self.unnest()
            return self.guard(tok, Exp.__neg__, inner)
        return self.casts(self.primary())

    def casts(self, e: Exp) -> Exp:
        """``.asInt()`` / ``.asFloat()`` after a value (AEL writes them after paths)."""
        while self.tok[1] == "." and self.tokens[self.i + 1][1].lower() in _CASTS:
            self.i += 1
            tok = self.tok
            self.i += 1
            self.args_none()
            e = self.guard(tok, _CASTS[tok[1].lower()], e)
        return e

    def primary(self) -> Exp:
        kind, text, _ = tok = self.tok
        if kind == "num":
            self.i += 1
            is_float = any(c in text for c in ".eE")
            return self.guard(tok, lambda: val(float(text) if is_float else int(text)))
        if kind == "str":
            self.i += 1
            return val(_unquote(text))
        if self.accept("("):
            e = self.or_()
            self.expect(")")
            return e
        if self.accept("$"):
            self.expect(".")
            return self.path(tok)
        if kind == "name":
            low = text.lower()
            if low in ("true", "false"):
                self.i += 1
                return val(low == "true")
            if low in _KEYWORDS:
                raise self.error(f"unexpected keyword {text!r}")
            self.i += 1
            return self.function(text, tok)
        raise self.error("expected a value" if kind != "end" else "unexpected end of input")

    def args(self) -> list[Exp]:
        self.expect("(")
        out: list[Exp] = []
        if not self.accept(")"):
            out.append(self.or_())
            while self.accept(","):
                out.append(self.or_())
            self.expect(")")
        return out

    def function(self, name: str, tok: Token) -> Exp:
        low = name.lower()
        if not self.at("("):
            raise self.error(f"unknown name {name!r} (bins are written $.{name})", tok)
        if low in _META:
            self.args_none()
            return fn(_META[low], (), _meta_type(_META[low]))
        if low == "key":
            self.args_none()
            type_ = self.get_type() if self.accept(".") else None
            return self.guard(tok, lambda: _core.key(type_))
        if low in ("digestmodulo", "digest_modulo"):
            args = self.args()
            return self.guard(tok, lambda: _digest_modulo(args))
        if low == "abs":
            args = self.args()
            if len(args) != 1:
                raise self.error("abs() takes one argument", tok)
            return self.guard(tok, lambda: abs(args[0]))
        if low in ("floor", "ceil"):
            args = self.args()
            if len(args) != 1:
                raise self.error(f"{low}() takes one argument", tok)
            from aerospike_fluent import exp

            f1 = exp.floor if low == "floor" else exp.ceil
            return self.guard(tok, lambda: f1(args[0]))
        if low == "regex":
            args = self.args()
            return self.guard(tok, lambda: _regex(args))
        if low in ("min", "max"):
            args = self.args()
            from aerospike_fluent import exp

            f = exp.min_ if low == "min" else exp.max_
            return self.guard(tok, lambda: f(*args))
        raise self.error(f"unknown function {name!r}", tok)

    def get_type(self) -> str:
        """``get(type: <TYPE>)`` (after its dot)."""
        if not (self.tok[0] == "name" and self.tok[1].lower() == "get"):
            raise self.error("expected 'get(type: <TYPE>)'")
        self.i += 1
        self.expect("(")
        if not (self.tok[0] == "name" and self.tok[1].lower() == "type"):
            raise self.error("expected 'type: <TYPE>'")
        self.i += 1
        self.expect(":")
        ttok = self.tok
        tname = ttok[1].upper()
        if ttok[0] != "name" or tname not in _TYPES:
            raise self.error(f"unknown type {ttok[1]!r}; one of {', '.join(_TYPES)}")
        self.i += 1
        self.expect(")")
        return _TYPES[tname]

    def count(self, tok: Token, name: str, kind: str) -> Exp:
        """``count()`` of a list (``[]``) or map (``{}``) bin: its size."""
        if not (self.tok[0] == "name" and self.tok[1].lower() == "count"):
            raise self.error("expected 'count()'")
        self.i += 1
        self.args_none()
        base = self.guard(tok, lambda: bin_(name, None))
        return base.list.size() if kind == "list" else base.map.size()

    def args_none(self) -> None:
        self.expect("(")
        self.expect(")")

    def path(self, start: Token) -> Exp:
        kind, text, _ = tok = self.tok
        if kind == "str":
            name = _unquote(text)
        elif kind == "name":
            name = text
        else:
            raise self.error("expected a bin name after '$.'")
        self.i += 1
        if kind == "name" and self.at("("):
            return self.function(name, tok)
        base: Exp | None = None
        if self.accept("."):
            mtok = self.tok
            method = mtok[1].lower() if mtok[0] == "name" else ""
            self.i += 1
            if method == "get":
                self.i -= 1
                type_ = self.get_type()
                base = self.guard(tok, lambda: bin_(name, type_))
            elif mtok[1] in ("[", "{"):
                self.expect("]" if mtok[1] == "[" else "}")
                self.expect(".")
                return self.count(tok, name, "list" if mtok[1] == "[" else "map")
            elif method == "count":
                self.i -= 1
                return self.count(tok, name, "list")
            elif method in _CASTS:
                self.args_none()
                bin_exp = self.guard(tok, lambda: bin_(name, None))
                return self.guard(mtok, _CASTS[method], bin_exp)
            elif method == "exists":
                self.args_none()
                return self.guard(tok, lambda: _bin_fn("bin_exists", name, "bool"))
            elif method == "type":
                self.args_none()
                return self.guard(tok, lambda: _bin_fn("bin_type", name, "int"))
            else:
                raise self.error(f"unknown bin method {mtok[1]!r}", mtok)
        return base if base is not None else self.guard(tok, lambda: bin_(name, None))


def _to_int(e: Exp) -> Exp:
    from aerospike_fluent import exp

    return exp.to_int(e)


def _to_float(e: Exp) -> Exp:
    from aerospike_fluent import exp

    return exp.to_float(e)


_CASTS: dict[str, Callable[[Exp], Exp]] = {"asint": _to_int, "asfloat": _to_float}


def _regex(args: list[Exp]) -> Exp:
    from aerospike_fluent import exp

    def literal(e: Exp, type_: str) -> Any:
        if e._kind != _core._LIT or e.value_type != type_:
            raise InvalidArgumentError("regex() takes a literal pattern and literal flags")
        return e._args[0][1]

    if len(args) not in (2, 3):
        raise InvalidArgumentError("regex() takes a value, a pattern and optional flags")
    flags = literal(args[2], "int") if len(args) == 3 else 0
    return exp.regex(args[0], literal(args[1], "str"), flags)


def _bin_fn(name: CoreNode, bin_name: str, type_: str) -> Exp:
    from aerospike_fluent import _validate

    return fn(name, (_validate.bin_name(bin_name),), type_)


def _digest_modulo(args: list[Exp]) -> Exp:
    from aerospike_fluent import exp

    if len(args) != 1 or args[0]._kind != _core._LIT or args[0].value_type != "int":
        raise InvalidArgumentError("digestModulo() takes one integer literal")
    return exp.digest_modulo(args[0]._args[0][1])


def _meta_type(name: str) -> str:
    return {"set_name": "str", "key_exists": "bool", "is_tombstone": "bool"}.get(name, "int")


def _unquote(text: str) -> str:
    body = text[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def parse(text: str) -> Exp:
    """Compile AEL ``text`` into an expression.

    Raises:
        AelSyntaxError: with ``position`` set, when the text is not valid (supported) AEL.

    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"AEL must be a str, not {type(text).__name__}")
    return _Parser(text).parse()


# ---------------------------------------------------------------------- rendering


def to_ael(e: Exp) -> str:
    """Render an expression as AEL text (for the subset :func:`parse` reads).

    Raises:
        InvalidArgumentError: for nodes AEL text cannot express here.

    """
    kind, name, args = e._kind, e._name, e._args
    if kind == _core._LIT:
        return _literal(args[0])
    if kind == _core._BIN:
        return _bin_text(args[0], e._type)
    if kind == _core._KEY:
        return "$.key()" if e._type is None else f"$.key().get(type: {_AEL_TYPE[e._type]})"
    if kind == _core._CMP:
        return f"({to_ael(args[0])} {_CMP_NAME[name]} {to_ael(args[1])})"
    if kind == _core._NUM:
        if name in _ARITH_NAME and len(args) > 1:
            return "(" + f" {_ARITH_NAME[name]} ".join(to_ael(a) for a in args) + ")"
        if name == "num_sub":
            return f"(-{to_ael(args[0])})"
        if name == "num_abs":
            return f"abs({to_ael(args[0])})"
        if name == "num_pow":
            return f"({to_ael(args[0])} ** {to_ael(args[1])})"
        if name in ("min", "max"):
            return f"{name}(" + ", ".join(to_ael(a) for a in args) + ")"
    if kind == _core._FN:
        if name in ("and", "or"):
            return "(" + f" {name} ".join(to_ael(a) for a in args) + ")"
        if name == "not":
            return f"(not {to_ael(args[0])})"
        if name in _META_RENDER:
            return f"$.{_META_RENDER[name]}()"
        if name == "digest_modulo":
            return f"$.digestModulo({args[0]})"
        if name in ("num_floor", "num_ceil"):
            return f"{name[4:]}({to_ael(args[0])})"
        if name in ("to_int", "to_float"):
            return _cast_text(args[0], "asInt" if name == "to_int" else "asFloat")
        if name == "regex_compare":
            pattern, flags, value = args
            extra = f", {flags}" if flags else ""
            return f"regex({to_ael(value)}, {_quote(pattern)}{extra})"
        if name in ("lists.size", "maps.size"):
            return _size_text(name, *args)
        if name in ("bin_exists", "bin_type"):
            method = "exists" if name == "bin_exists" else "type"
            return f"{_bin_text(args[0], None)}.{method}()"
    raise InvalidArgumentError(f"{name} has no AEL text form here")


def _cast_text(arg: Exp, cast: str) -> str:
    text = to_ael(arg)
    if arg._kind == _core._BIN and arg._type is None:
        return f"{text}.{cast}()"
    return f"({text}).{cast}()"


def _size_text(name: str, base: object, ctx: tuple[Any, ...]) -> str:
    if not isinstance(base, Exp) or base._kind != _core._BIN or ctx:
        raise InvalidArgumentError(
            f"{name} has an AEL text form only on a bin itself (no context, no other value)"
        )
    designator = "[]" if name == "lists.size" else "{}"
    return f"{_bin_text(base._args[0], None)}.{designator}.count()"


def _bin_text(name: str, type_: str | None) -> str:
    ref = (
        f"$.{name}"
        if _IDENT.match(name) and name.lower() not in _KEYWORDS
        else (f"$.{_quote(name)}")
    )
    if type_ is None:
        return ref
    if type_ not in _AEL_TYPE:
        raise InvalidArgumentError(f"a {type_} bin has no AEL text form")
    return f"{ref}.get(type: {_AEL_TYPE[type_]})"


def _literal(node: tuple[Any, ...]) -> str:
    tag = node[0]
    if tag == "int_val":
        return str(node[1])
    if tag == "float_val":
        v = float(node[1])
        text = repr(v)
        if text in ("inf", "-inf", "nan"):
            raise InvalidArgumentError(f"{text} has no AEL text form")
        return text
    if tag == "string_val":
        return _quote(node[1])
    if tag == "bool_val":
        return "true" if node[1] else "false"
    raise InvalidArgumentError(f"{tag} literals have no AEL text form")


def _quote(s: str) -> str:
    escaped = s.replace("\\", "\\\\").replace("'", "\\'")
    escaped = escaped.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return f"'{escaped}'"
