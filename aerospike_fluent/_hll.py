"""HyperLogLog operations on an HLL bin: ``.bin("visitors").hll.add(["u1", "u2"], index_bits=12)``.

An HLL bin estimates how many distinct values were added to it (within about
``1.04 / sqrt(2 ** index_bits)``); with MinHash bits it also estimates intersections and
similarity between sets. Sketches read from the server (``get_union``, a read of the bin) are
``bytes`` and can be passed back to the union and intersection operations. Every operation
returns the chain it was started from, in the plan format ``("hll_<name>", bin, *args)``.
"""

from __future__ import annotations

from enum import IntFlag
from typing import Any, Generic

from aerospike_fluent import _validate, cdt
from aerospike_fluent._collections import C
from aerospike_fluent._plan import HllOp, hll_op
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["HllRef", "HllWrite"]


class HllWrite(IntFlag):
    """HLL write flags."""

    DEFAULT = 0
    CREATE_ONLY = 1
    """The bin must not exist yet."""
    UPDATE_ONLY = 2
    """The bin must exist."""
    NO_FAIL = 4
    """Skip the operation instead of failing."""
    ALLOW_FOLD = 8
    """(``set_union``) let the bin lose index or MinHash bits to take the union."""


def _bits(what: str, v: int | None) -> int:
    """Check a bit count; None becomes -1, "unset" (the server takes the bin's, or refuses)."""
    if v is None:
        return -1
    return _validate.integer(what, v, 0, 64)


def _sketches(values: object) -> list[bytes]:
    if not isinstance(values, list | tuple):
        raise InvalidTypeError(f"expected a list of HLL sketches, not {type(values).__name__}")
    out = []
    for v in values:
        if not isinstance(v, bytes | bytearray):
            raise InvalidTypeError(f"an HLL sketch is bytes, not {type(v).__name__}")
        out.append(bytes(v))
    if not out:
        raise InvalidArgumentError("needs at least one HLL sketch")
    return out


class HllRef(Generic[C]):
    """HyperLogLog operations on one bin."""

    __slots__ = ("_bin", "_chain")

    def __init__(self, chain: C, bin_name: str) -> None:
        self._chain = chain
        self._bin = bin_name

    def _op(self, fn: HllOp, *args: Any) -> C:
        return self._chain._with_op(hll_op(fn, self._bin, *args))

    # writes
    def init(
        self,
        index_bits: int | None,
        minhash_bits: int | None = None,
        *,
        flags: HllWrite = HllWrite.DEFAULT,
    ) -> C:
        """Create (or reset) an empty sketch; ``None`` keeps the bin's bit counts."""
        p, m = _bits("index_bits", index_bits), _bits("minhash_bits", minhash_bits)
        return self._op("init", p, m, int(HllWrite(flags)))

    def add(
        self,
        values: list[Any],
        *,
        index_bits: int | None = None,
        minhash_bits: int | None = None,
        flags: HllWrite = HllWrite.DEFAULT,
    ) -> C:
        """Add values (creating the bin needs ``index_bits``); answers how many registers grew."""
        if not isinstance(values, list | tuple) or not values:
            raise InvalidArgumentError("add() needs a non-empty list of values")
        items = list(values)
        cdt.cdt_value(items)
        p, m = _bits("index_bits", index_bits), _bits("minhash_bits", minhash_bits)
        return self._op("add", items, p, m, int(HllWrite(flags)))

    def set_union(self, sketches: list[bytes], *, flags: HllWrite = HllWrite.DEFAULT) -> C:
        """Store the union of the bin and ``sketches``."""
        return self._op("set_union", _sketches(sketches), int(HllWrite(flags)))

    def refresh_count(self) -> C:
        """Recompute and cache the estimated count; answers it."""
        return self._op("refresh_count")

    def fold(self, index_bits: int) -> C:
        """Shrink the sketch to ``index_bits`` (only without MinHash bits)."""
        return self._op("fold", _validate.integer("index_bits", index_bits, 0, 64))

    # reads
    def get_count(self) -> C:
        """Read the estimated number of distinct values."""
        return self._op("get_count")

    def describe(self) -> C:
        """Read ``[index_bits, minhash_bits]``."""
        return self._op("describe")

    def get_union(self, sketches: list[bytes]) -> C:
        """Read the union of the bin and ``sketches`` as a sketch (bytes)."""
        return self._op("get_union", _sketches(sketches))

    def get_union_count(self, sketches: list[bytes]) -> C:
        """Read the estimated count of the union of the bin and ``sketches``."""
        return self._op("get_union_count", _sketches(sketches))

    def get_intersect_count(self, sketches: list[bytes]) -> C:
        """Read the estimated count of the intersection of the bin and ``sketches``."""
        return self._op("get_intersect_count", _sketches(sketches))

    def get_similarity(self, sketches: list[bytes]) -> C:
        """Read the estimated Jaccard similarity of the bin and ``sketches`` (a float)."""
        return self._op("get_similarity", _sketches(sketches))
