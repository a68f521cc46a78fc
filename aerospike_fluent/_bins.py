"""Bin-scoped operation builders: ``chain.bin("x").add(1)``, ``.bin("m").map.put(k, v)``.

Every operation returns the chain it was started from (a new one, with the op appended), so a
chain can continue with another ``.bin(...)``. List and map builders live in ``_collections``.
"""

from __future__ import annotations

from enum import IntFlag
from typing import TYPE_CHECKING, Any

from aerospike_fluent import _validate
from aerospike_fluent._bits import BitsRef
from aerospike_fluent._collections import C, ElementRef, number
from aerospike_fluent._hll import HllRef
from aerospike_fluent._lists import ListRef
from aerospike_fluent._maps import MapRef
from aerospike_fluent._plan import scalar_op
from aerospike_fluent.errors import InvalidTypeError

if TYPE_CHECKING:
    from aerospike_fluent.exp import Exp

__all__ = ["BinRef", "BitsRef", "ElementRef", "ExpRead", "ExpWrite", "HllRef", "ListRef", "MapRef"]


class ExpWrite(IntFlag):
    """Flags of ``write_exp``."""

    DEFAULT = 0
    CREATE_ONLY = 1
    """Only create the bin; an existing bin is BinExistsError (code 6)."""
    UPDATE_ONLY = 2
    """Only change an existing bin; a missing bin is BinNotFoundError (code 17)."""
    ALLOW_DELETE = 4
    """A nil result removes the bin (otherwise it is an error)."""
    POLICY_NO_FAIL = 8
    """Skip the write instead of failing on CREATE_ONLY / UPDATE_ONLY."""
    EVAL_NO_FAIL = 16
    """An *unknown* result leaves the bin as it is instead of failing."""


class ExpRead(IntFlag):
    """Flags of ``read_exp``."""

    DEFAULT = 0
    EVAL_NO_FAIL = 16
    """An *unknown* result answers None instead of failing."""


class BinRef(ElementRef[C]):
    """One bin of the record: scalar operations; ``.list``, ``.map``, ``.bits``, ``.hll``."""

    __slots__ = ()

    @property
    def bits(self) -> BitsRef[C]:
        """Bit operations on this (blob) bin."""
        return BitsRef(self._chain, self._bin)

    @property
    def hll(self) -> HllRef[C]:
        """HyperLogLog operations on this bin."""
        return HllRef(self._chain, self._bin)

    def set(self, value: Any) -> C:
        """Write ``value`` (``None`` removes the bin)."""
        _validate.value(self._bin, value)
        return self._chain._with_op(scalar_op("write", self._bin, value))

    def remove(self) -> C:
        """Remove the bin."""
        return self._chain._with_op(scalar_op("write", self._bin, None))

    def add(self, amount: int | float) -> C:
        """Add ``amount`` (int or float) to a numeric bin (created when missing)."""
        return self._chain._with_op(scalar_op("add", self._bin, number(self._bin, amount)))

    increment = add

    def append(self, suffix: str | bytes) -> C:
        """Append to a string/bytes bin."""
        return self._chain._with_op(scalar_op("append", self._bin, _text(self._bin, suffix)))

    def prepend(self, prefix: str | bytes) -> C:
        """Prepend to a string/bytes bin."""
        return self._chain._with_op(scalar_op("prepend", self._bin, _text(self._bin, prefix)))

    def read(self) -> C:
        """Read the bin (after the operations before it in the chain)."""
        return self._chain._with_op(scalar_op("read", self._bin))

    def write_exp(self, exp: Exp | str, *, flags: ExpWrite = ExpWrite.DEFAULT) -> C:
        """Write the value of ``exp`` (an expression or AEL text) into the bin."""
        op = scalar_op("exp_write", self._bin, _exp(exp), int(ExpWrite(flags)))
        return self._chain._with_op(op)

    def read_exp(self, exp: Exp | str, *, flags: ExpRead = ExpRead.DEFAULT) -> C:
        """Compute ``exp`` (an expression or AEL text); answer it under this name, write nothing."""
        op = scalar_op("exp_read", self._bin, _exp(exp), int(ExpRead(flags)))
        return self._chain._with_op(op)


def _exp(e: object) -> tuple[Any, ...]:
    from aerospike_fluent.exp import Exp, parse

    if isinstance(e, str):
        e = parse(e)
    if not isinstance(e, Exp):
        raise InvalidTypeError(f"expected an expression or AEL text, got {type(e).__name__}")
    return e.compile()


def _text(bin_name: str, v: object) -> str | bytes:
    if not isinstance(v, str | bytes):
        raise InvalidTypeError(f"bin {bin_name!r}: append/prepend need str or bytes")
    return v
