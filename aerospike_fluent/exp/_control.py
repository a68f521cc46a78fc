"""Control flow in expressions: ``cond``, ``let`` / ``var``, ``unknown``, ``exclusive``."""

from __future__ import annotations

import re
from typing import Any

from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp._core import _FN, Exp, Operand, ValueType, fn, to_exp
from aerospike_fluent.exp._core import value_type as check_type

_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def cond(*branches: Operand) -> Exp:
    """``cond(c1, v1, c2, v2, ..., default)``: the value of the first true condition.

    Every value has the same type (:func:`unknown` fits any); the server refuses the request
    otherwise.
    """
    if len(branches) < 3 or len(branches) % 2 == 0:
        raise InvalidArgumentError(
            "cond() takes condition/value pairs and a default: cond(c1, v1, ..., default)"
        )
    exps = [to_exp(b) for b in branches]
    values = [e for i, e in enumerate(exps) if i % 2 == 1 or i == len(exps) - 1]
    for i in range(0, len(exps) - 1, 2):
        if exps[i].value_type not in (None, "bool"):
            raise InvalidArgumentError(f"cond(): condition {i // 2 + 1} is not boolean")
    types = {v.value_type for v in values if v.value_type is not None and not _is_unknown(v)}
    if len(types) > 1:
        raise InvalidArgumentError(f"cond(): values of different types {sorted(types)}")
    result = types.pop() if types else None
    return fn("cond", tuple(exps), result, result)


def _is_unknown(e: Exp) -> bool:
    return e._kind == _FN and e._name == "unknown"


def unknown() -> Exp:
    """Return *unknown*: a filter treats it as false, ``exp_read`` fails with it."""
    return fn("unknown", (), None)


def exclusive(*exps: Exp) -> Exp:
    """Return True when exactly one of the boolean expressions is true."""
    if len(exps) < 2:
        raise InvalidArgumentError("exclusive() needs at least two expressions")
    for e in exps:
        if not isinstance(e, Exp) or e.value_type not in (None, "bool"):
            raise InvalidArgumentError("exclusive() takes boolean expressions")
    return fn("exclusive", exps, "bool", "bool")


def var(name: str, type: ValueType | None = None) -> Exp:
    """Return a variable of an enclosing :func:`let` (a given type guides inference)."""
    return fn("var", (_var_name(name),), None if type is None else check_type(type))


class Let:
    """Variables being defined: finish with :meth:`then`."""

    __slots__ = ("_defs",)

    def __init__(self, defs: tuple[tuple[str, Exp], ...]) -> None:
        self._defs = defs

    def then(self, body: Operand) -> Exp:
        """Return ``body`` evaluated with the variables in scope."""
        result = to_exp(body)
        defs = tuple(fn("def", (n, e), e.value_type) for n, e in self._defs)
        return fn("let", (*defs, result), result.value_type, result.value_type)

    def __repr__(self) -> str:
        return f"Let({', '.join(n for n, _ in self._defs)})"


def let(**defs: Operand) -> Let:
    """Define variables, in order (later ones may use earlier ones): ``let(x=...).then(...)``.

    Example:
        >>> from aerospike_fluent import exp as F
        >>> doubled = F.let(b=F.int_bin("balance")).then(F.var("b", "int") * 2)

    """
    if not defs:
        raise InvalidArgumentError("let() needs at least one variable")
    return Let(tuple((_var_name(n), to_exp(v)) for n, v in defs.items()))


def _var_name(name: object) -> str:
    if not isinstance(name, str):
        raise InvalidTypeError(f"a variable name is a str, not {type(name).__name__}")
    if not _VAR_NAME.match(name):
        raise InvalidArgumentError(
            f"bad variable name {name!r}: a letter or underscore, then letters, digits, _"
        )
    return name


def let_pairs(args: tuple[Any, ...]) -> tuple[tuple[str, Exp], ...]:
    """Return the ``(name, value)`` definitions of a ``let`` node's arguments."""
    return tuple((d._args[0], d._args[1]) for d in args[:-1])
