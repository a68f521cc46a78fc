"""Bitwise operations on 64-bit integers (two's complement, as the server computes them)."""

from __future__ import annotations

from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.exp._core import Exp, Operand, fn, to_exp

_INT = "int"


def as_int(name: str, value: Operand) -> Exp:
    """``value`` as an expression, checked to be an int operand of ``name``."""
    e = to_exp(value)
    if e.value_type not in (None, _INT):
        raise InvalidArgumentError(f"{name}: operand is {e.value_type}, not an int")
    return e


def _ints(name: str, values: tuple[Operand, ...]) -> tuple[Exp, ...]:
    return tuple(as_int(name, v) for v in values)


def _fold(name: str, values: tuple[Operand, ...]) -> Exp:
    if len(values) < 2:
        raise InvalidArgumentError(f"{name} needs at least two values")
    return fn(name, _ints(name, values), _INT, _INT)  # type: ignore[arg-type]


def int_and(*values: Operand) -> Exp:
    """Bitwise and of the integers."""
    return _fold("int_and", values)


def int_or(*values: Operand) -> Exp:
    """Bitwise or of the integers."""
    return _fold("int_or", values)


def int_xor(*values: Operand) -> Exp:
    """Bitwise exclusive or of the integers."""
    return _fold("int_xor", values)


def int_not(value: Operand) -> Exp:
    """Bitwise complement."""
    return fn("int_not", _ints("int_not", (value,)), _INT, _INT)


def lshift(value: Operand, shift: Operand) -> Exp:
    """``value << shift`` (the shift taken modulo 64)."""
    return fn("int_lshift", _ints("lshift", (value, shift)), _INT, _INT)


def rshift(value: Operand, shift: Operand) -> Exp:
    """Logical right shift: zeros come in from the left."""
    return fn("int_rshift", _ints("rshift", (value, shift)), _INT, _INT)


def arshift(value: Operand, shift: Operand) -> Exp:
    """Arithmetic right shift: the sign bit is copied in (Python's ``>>``)."""
    return fn("int_arshift", _ints("arshift", (value, shift)), _INT, _INT)


def int_count(value: Operand) -> Exp:
    """Return the number of one bits."""
    return fn("int_count", _ints("int_count", (value,)), _INT, _INT)


def int_lscan(value: Operand, search: bool) -> Exp:
    """Index (0 = most significant) of the first bit equal to ``search``, or -1."""
    return _scan("int_lscan", value, search)


def int_rscan(value: Operand, search: bool) -> Exp:
    """Index (0 = most significant) of the last bit equal to ``search``, or -1."""
    return _scan("int_rscan", value, search)


def _scan(name: str, value: Operand, search: Operand) -> Exp:
    (v,) = _ints(name, (value,))
    s = to_exp(search)
    if s.value_type not in (None, "bool"):
        raise InvalidArgumentError(f"{name}: search is a bool, not {s.value_type}")
    return fn(name, (v, s), _INT)  # type: ignore[arg-type]
