"""A pure-Python model of HyperLogLog bin semantics, for ``test_hll_model``.

It keeps the exact set of values added and the bin's bit counts, not registers: what it can say
exactly (errors, ``describe``, "adding known values changes no register", unions equal to the
sketch of the union, ``may_contain`` of added values) it asserts exactly; estimates it bounds
by the HLL error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

PARAMETER = 4
OP_NOT_APPLICABLE = 26

INDEX_BITS = range(4, 17)
"""Index bit counts a server accepts."""


class ModelError(Exception):
    """An operation the server refuses, with its result code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def check_bits(index_bits: int, minhash_bits: int) -> None:
    """Refuse bit counts a server refuses (code 4)."""
    if index_bits not in INDEX_BITS:
        raise ModelError(PARAMETER)
    if minhash_bits != 0 and not 4 <= minhash_bits <= 51:
        raise ModelError(PARAMETER)
    if index_bits + minhash_bits > 64:
        raise ModelError(PARAMETER)


def tolerance(index_bits: int, n: int) -> float:
    """How far an estimate of ``n`` distinct values may be: four standard errors, at least 2."""
    return max(2.0, 4 * 1.04 / math.sqrt(2**index_bits) * n)


@dataclass
class HllModel:
    """One HLL bin: ``None`` bit counts while the bin does not exist."""

    index_bits: int | None = None
    minhash_bits: int = 0
    values: set[str] = field(default_factory=set)

    @property
    def exists(self) -> bool:
        return self.index_bits is not None

    def init(self, index_bits: int, minhash_bits: int) -> None:
        check_bits(index_bits, minhash_bits)
        self.index_bits, self.minhash_bits, self.values = index_bits, minhash_bits, set()

    def add(self, values: list[str], index_bits: int | None, minhash_bits: int) -> bool:
        """Add; returns whether the server may answer a non-zero count of changed registers.

        Given bit counts are checked even when the bin exists (whose own counts then apply).
        """
        if index_bits is not None:
            check_bits(index_bits, minhash_bits)
        if not self.exists:
            if index_bits is None:
                raise ModelError(OP_NOT_APPLICABLE)
            self.init(index_bits, minhash_bits)
        new = not set(values) <= self.values
        self.values |= set(values)
        return new

    def describe(self) -> list[int] | None:
        """``[index_bits, minhash_bits]``; a read of a missing bin answers nothing."""
        if self.index_bits is None:
            return None
        return [self.index_bits, self.minhash_bits]
