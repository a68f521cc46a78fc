"""Expression nodes written with Python operators, compiled to the native tuple trees.

Bins may be untyped (``bin("age")``): their type is inferred from what they are compared with or
combined with (``bin("age") > 25`` reads an int bin, ``bin("name") == "Ann"`` a string bin); with
nothing to infer from, an untyped bin is an int bin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Union

from aerospike_fluent import _native, _validate
from aerospike_fluent._plan import CoreNode, Node
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

if TYPE_CHECKING:
    from aerospike_fluent.exp._bits import BitsExp
    from aerospike_fluent.exp._cdt import ListExp, MapExp
    from aerospike_fluent.exp._hll import HllExp

ValueType = Literal["int", "float", "str", "bool", "blob", "list", "map", "geo", "hll", "nil"]
_TYPES: frozenset[str] = frozenset(ValueType.__args__)  # type: ignore[attr-defined]

# crate ExpType ints
EXP_TYPE: dict[str, int] = {
    "nil": 0,
    "bool": 1,
    "int": 2,
    "str": 3,
    "list": 4,
    "map": 5,
    "blob": 6,
    "float": 7,
    "geo": 8,
    "hll": 9,
}
_BIN_FN: dict[str, str] = {
    "int": "int_bin",
    "float": "float_bin",
    "str": "string_bin",
    "bool": "bool_bin",
    "blob": "blob_bin",
    "list": "list_bin",
    "map": "map_bin",
    "geo": "geo_bin",
    "hll": "hll_bin",
}

Operand = Union["Exp", bool, int, float, str, bytes, list[Any], dict[Any, Any], None]

# node kinds; a _LAZY node is built once its type is known: args (factory(type) -> Exp, text)
_LIT, _BIN, _NUM, _CMP, _FN, _KEY, _LAZY = range(7)


MAX_DEPTH = 200
"""Deepest expression accepted (the native conversion allows 256 levels of tuples)."""


class Exp:
    """An expression node. Combine with ``== != < <= > >= + - * / % ** << >> & | ~``.

    ``<<`` / ``>>`` are integer shifts (``>>`` keeps the sign, as in Python); ``&`` / ``|`` /
    ``~`` are logical, see :func:`int_and` and friends for bitwise ones.

    Use ``&`` / ``|`` / ``~`` for and / or / not (Python's ``and`` / ``or`` cannot be overloaded:
    using them on an expression raises ``TypeError``).
    """

    __slots__ = ("_args", "_child_type", "_depth", "_kind", "_name", "_type")
    _depth: int

    def __init__(
        self,
        kind: int,
        name: str,
        args: tuple[Any, ...],
        type_: str | None,
        child_type: str | None = None,
    ) -> None:
        depth = 1 + max((a._depth for a in args if isinstance(a, Exp)), default=0)
        if depth > MAX_DEPTH:
            raise InvalidArgumentError(
                f"expression nested too deeply ({name} at level {depth}; at most {MAX_DEPTH})"
            )
        self._depth = depth
        self._kind = kind
        self._name = name
        self._args = args
        self._type = type_
        self._child_type = child_type

    # ------------------------------------------------------------------ compile
    def compile(self) -> tuple[Any, ...]:
        """Return the native tuple tree of this expression."""
        return self._compile(None)

    @property
    def value_type(self) -> str | None:
        """The type this expression evaluates to (``None`` when not yet inferred)."""
        if self._type is not None:
            return self._type
        if self._kind == _NUM:
            return _common_type(self._args)
        return None

    def _compile(self, want: str | None) -> tuple[Any, ...]:
        kind = self._kind
        if kind == _LIT:
            return self._args[0]  # type: ignore[no-any-return]
        if kind == _BIN:
            bin_type = self._type or want or "int"
            if bin_type == "nil":
                raise InvalidArgumentError(f"bin {self._args[0]!r} cannot be typed nil")
            return (_BIN_FN[bin_type], self._args[0])
        if kind == _LAZY:
            t = self._type or want or "int"
            return self._args[0](t)._compile(t)  # type: ignore[no-any-return]
        if kind == _KEY:
            key_type = self._type or want or "int"
            if key_type not in ("int", "str", "blob"):
                raise InvalidTypeError(f"a user key is an int, str or bytes, not {key_type}")
            return ("key", EXP_TYPE[key_type])
        if kind in (_NUM, _CMP):
            shared = self.value_type or want if kind == _NUM else _common_type(self._args)
            return (self._name, *(a._compile(shared) for a in self._args))
        return (
            self._name,
            *(a._compile(self._child_type) if isinstance(a, Exp) else a for a in self._args),
        )

    def __repr__(self) -> str:
        return f"Exp({self.compile()!r})"

    def __bool__(self) -> bool:
        raise TypeError("an expression has no truth value: use & | ~ instead of and / or / not")

    __hash__ = object.__hash__

    # ------------------------------------------------------------------ comparisons
    def __eq__(self, other: Operand) -> Exp:  # type: ignore[override]
        return _cmp("eq", self, other)

    def __ne__(self, other: Operand) -> Exp:  # type: ignore[override]
        return _cmp("ne", self, other)

    def __lt__(self, other: Operand) -> Exp:
        return _cmp("lt", self, other)

    def __le__(self, other: Operand) -> Exp:
        return _cmp("le", self, other)

    def __gt__(self, other: Operand) -> Exp:
        return _cmp("gt", self, other)

    def __ge__(self, other: Operand) -> Exp:
        return _cmp("ge", self, other)

    # ------------------------------------------------------------------ logic
    def __and__(self, other: Exp) -> Exp:
        return _logic("and", self, other)

    def __rand__(self, other: Exp) -> Exp:
        return _logic("and", other, self)

    def __or__(self, other: Exp) -> Exp:
        return _logic("or", self, other)

    def __ror__(self, other: Exp) -> Exp:
        return _logic("or", other, self)

    def __invert__(self) -> Exp:
        return Exp(_FN, "not", (as_bool(self),), "bool", "bool")

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other: Operand) -> Exp:
        return _num("num_add", self, other)

    def __radd__(self, other: Operand) -> Exp:
        return _num("num_add", other, self)

    def __sub__(self, other: Operand) -> Exp:
        return _num("num_sub", self, other)

    def __rsub__(self, other: Operand) -> Exp:
        return _num("num_sub", other, self)

    def __mul__(self, other: Operand) -> Exp:
        return _num("num_mul", self, other)

    def __rmul__(self, other: Operand) -> Exp:
        return _num("num_mul", other, self)

    def __truediv__(self, other: Operand) -> Exp:
        return _num("num_div", self, other)

    def __rtruediv__(self, other: Operand) -> Exp:
        return _num("num_div", other, self)

    def __mod__(self, other: Operand) -> Exp:
        return _num("num_mod", self, other, flatten=False)

    def __rmod__(self, other: Operand) -> Exp:
        return _num("num_mod", other, self, flatten=False)

    def __pow__(self, other: Operand) -> Exp:
        return _num("num_pow", self, other, flatten=False)

    def __rpow__(self, other: Operand) -> Exp:
        return _num("num_pow", other, self, flatten=False)

    def __lshift__(self, other: Operand) -> Exp:
        from aerospike_fluent.exp._intbits import lshift

        return lshift(self, other)

    def __rlshift__(self, other: Operand) -> Exp:
        from aerospike_fluent.exp._intbits import lshift

        return lshift(other, self)

    def __rshift__(self, other: Operand) -> Exp:
        from aerospike_fluent.exp._intbits import arshift

        return arshift(self, other)

    def __rrshift__(self, other: Operand) -> Exp:
        from aerospike_fluent.exp._intbits import arshift

        return arshift(other, self)

    def __neg__(self) -> Exp:
        if self._kind == _LIT and self._type in ("int", "float"):
            return val(-self._args[0][1])
        return Exp(_NUM, "num_sub", (self,), None)

    def __abs__(self) -> Exp:
        return Exp(_NUM, "num_abs", (self,), None)

    # ------------------------------------------------------------------ collections
    @property
    def list(self) -> ListExp:
        """List read and modify expressions on this (list) bin."""
        from aerospike_fluent.exp._cdt import ListExp

        return ListExp(self, ())

    @property
    def map(self) -> MapExp:
        """Map read and modify expressions on this (map) bin."""
        from aerospike_fluent.exp._cdt import MapExp

        return MapExp(self, ())

    @property
    def bits(self) -> BitsExp:
        """Bit read expressions on this (blob) bin."""
        from aerospike_fluent.exp._bits import BitsExp

        return BitsExp(self)

    @property
    def hll(self) -> HllExp:
        """HLL read expressions on this (HLL) bin."""
        from aerospike_fluent.exp._hll import HllExp

        return HllExp(self)


def _common_type(args: tuple[Any, ...]) -> str | None:
    for a in args:
        t = a.value_type
        if t is not None:
            return t  # type: ignore[no-any-return]
    return None


def _cmp(name: CoreNode, left: Operand, right: Operand) -> Exp:
    return Exp(_CMP, name, (to_exp(left), to_exp(right)), "bool")


def as_bool(e: object) -> Exp:
    """Check that ``e`` is an expression that may be boolean; returns it."""
    if not isinstance(e, Exp):
        raise InvalidTypeError(f"expected an expression, got {type(e).__name__}")
    if e.value_type not in (None, "bool"):
        raise InvalidArgumentError(f"expected a boolean expression, got a {e.value_type} one")
    return e


def _logic(name: CoreNode, left: object, right: object) -> Exp:
    return logic_chain(name, as_bool(left), [as_bool(right)])


def logic_chain(name: str, first: Exp, rest: list[Exp]) -> Exp:
    """``first and rest[0] and ...`` (or ``or``) as one node, in time linear in the operands.

    The operands are checked boolean expressions; ``first`` already of the same kind is
    extended, as ``a & b & c`` builds one node.
    """
    head = first._args if first._kind == _FN and first._name == name else (first,)
    return Exp(_FN, name, (*head, *rest), "bool", "bool")


def as_number(name: str, e: Exp) -> Exp:
    """Check that ``e`` may be an operand of the arithmetic ``name``; returns it."""
    if e.value_type not in (None, "int", "float"):
        raise InvalidArgumentError(f"{name}: operand is {e.value_type}, not a number")
    return e


def _num(name: CoreNode, left: Operand, right: Operand, *, flatten: bool = True) -> Exp:
    a, b = as_number(name, to_exp(left)), as_number(name, to_exp(right))
    if flatten:
        return num_chain(name, a, [b])
    return Exp(_NUM, name, (a, b), None)


def num_chain(name: str, first: Exp, rest: list[Exp]) -> Exp:
    """``first + rest[0] + ...`` (or ``-``, ``*``, ``/``) as one node, in linear time.

    The operands are checked numbers; ``first`` already of the same kind is extended.
    """
    same = first._kind == _NUM and first._name == name and len(first._args) > 1
    head = first._args if same else (first,)
    return Exp(_NUM, name, (*head, *rest), None)


def to_exp(v: Operand) -> Exp:
    """``v`` itself if it is an expression, else the literal ``val(v)``."""
    return v if isinstance(v, Exp) else val(v)


def val(v: object) -> Exp:
    """Return a literal value expression."""
    if isinstance(v, Exp):
        return v
    if v is None:
        return Exp(_LIT, "nil", (("nil",),), "nil")
    if isinstance(v, bool):
        return Exp(_LIT, "bool_val", (("bool_val", v),), "bool")
    if isinstance(v, int):
        _validate.integer("integer literal", v, _validate.INT_MIN, _validate.INT_MAX)
        return Exp(_LIT, "int_val", (("int_val", v),), "int")
    if isinstance(v, float):
        return Exp(_LIT, "float_val", (("float_val", v),), "float")
    if isinstance(v, str):
        _validate.text("string literal", v)
        return Exp(_LIT, "string_val", (("string_val", v),), "str")
    if isinstance(v, bytes | bytearray):
        return Exp(_LIT, "blob_val", (("blob_val", bytes(v)),), "blob")
    if isinstance(v, _native.GeoJSON):
        return Exp(_LIT, "geo_val", (("geo_val", v.value),), "geo")
    if isinstance(v, list):
        _validate.value("<expression>", v)
        return Exp(_LIT, "list_val", (("list_val", v),), "list")
    if isinstance(v, dict):
        _validate.value("<expression>", v)
        return Exp(_LIT, "map_val", (("map_val", v),), "map")
    raise InvalidTypeError(f"cannot use a {_validate.type_name(v)} in an expression")


def value_type(t: str) -> str:
    """Check a value type name."""
    if t not in _TYPES:
        raise InvalidArgumentError(f"unknown value type {t!r}; one of {sorted(_TYPES)}")
    return t


def fn(name: Node, args: tuple[Any, ...], type_: str | None, child_type: str | None = None) -> Exp:
    """Return a node calling crate function ``name`` with ``args`` (expressions or values)."""
    return Exp(_FN, name, args, type_, child_type)


def lazy(build: Any, text: str) -> Exp:
    """Return a value typed by use: ``build(type)`` makes it; ``text`` is its AEL."""
    return Exp(_LAZY, "lazy", (build, text), None)


def key(type_: str | None) -> Exp:
    """Return the user key read; ``type_`` None means inferred from use."""
    return Exp(_KEY, "key", (), type_)


def bin_(name: str, type_: str | None) -> Exp:
    """Return a bin read; ``type_`` None means inferred from use."""
    _validate.bin_name(name)
    return Exp(_BIN, "bin", (name,), None if type_ is None else value_type(type_))
