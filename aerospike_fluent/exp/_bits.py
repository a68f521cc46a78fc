"""Bit read expressions on a blob: ``F.blob_bin("flags").bits.count(0, 8) > 2``."""

from __future__ import annotations

from typing import Any

from aerospike_fluent._plan import BitNode, bit_node
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.exp._core import Exp, Operand, bin_, fn, to_exp


def _blob(e: Exp) -> Exp:
    """Read an untyped bin as a blob; refuse expressions of other types."""
    if e.value_type is None and e._name == "bin":
        return bin_(e._args[0], "blob")
    if e.value_type not in (None, "blob"):
        raise InvalidArgumentError(f"bit expressions read a blob, not a {e.value_type}")
    return e


def _int(what: str, v: Operand) -> Exp:
    e = to_exp(v)
    if e.value_type not in (None, "int"):
        raise InvalidArgumentError(f"{what} must be an int expression, not a {e.value_type}")
    return e


class BitsExp:
    """Read expressions over a blob bin's bits (offsets from the left, negative from the end)."""

    __slots__ = ("_bin",)

    def __init__(self, bin_exp: Exp) -> None:
        self._bin = _blob(bin_exp)

    def _node(self, name: BitNode, args: tuple[Any, ...], type_: str) -> Exp:
        return fn(bit_node(name), (*args, self._bin), type_, "int")

    def _range(self, offset: Operand, size: Operand) -> tuple[Exp, Exp]:
        return _int("bit_offset", offset), _int("bit_size", size)

    def get(self, bit_offset: Operand, bit_size: Operand) -> Exp:
        """Return the bits as bytes (left-aligned)."""
        return self._node("get", self._range(bit_offset, bit_size), "blob")

    def count(self, bit_offset: Operand, bit_size: Operand) -> Exp:
        """Return how many of the bits are set."""
        return self._node("count", self._range(bit_offset, bit_size), "int")

    def lscan(self, bit_offset: Operand, bit_size: Operand, value: Operand) -> Exp:
        """Return the position of the first bit equal to ``value`` (-1 if none)."""
        return self._node("lscan", (*self._range(bit_offset, bit_size), _bool(value)), "int")

    def rscan(self, bit_offset: Operand, bit_size: Operand, value: Operand) -> Exp:
        """Return the position of the last bit equal to ``value`` (-1 if none)."""
        return self._node("rscan", (*self._range(bit_offset, bit_size), _bool(value)), "int")

    def get_int(self, bit_offset: Operand, bit_size: Operand, *, signed: bool = False) -> Exp:
        """Return the bits as a big-endian integer (at most 64 bits)."""
        return self._node("get_int", (*self._range(bit_offset, bit_size), bool(signed)), "int")


def _bool(v: Operand) -> Exp:
    e = to_exp(v)
    if e.value_type not in (None, "bool"):
        raise InvalidArgumentError(f"a scanned bit value is a bool, not a {e.value_type}")
    return e
