"""HLL expressions: reads and the modifies ``init`` and ``add``.

Reads: ``F.hll_bin("visitors").hll.get_count() > 1000``. The modifies return the changed HLL
(the bin itself is not changed) to read with ``read_exp`` or write back with ``write_exp``.
"""

from __future__ import annotations

from typing import Any

from aerospike_fluent._hll import HllWrite
from aerospike_fluent._plan import HllModifyNode, HllNode, hll_node
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.exp._core import Exp, Operand, bin_, fn, to_exp


def _hll(e: Exp) -> Exp:
    """Read an untyped bin as an HLL; refuse expressions of other types."""
    if e.value_type is None and e._name == "bin":
        return bin_(e._args[0], "hll")
    if e.value_type not in (None, "hll"):
        raise InvalidArgumentError(f"HLL expressions read an HLL, not a {e.value_type}")
    return e


def _list(v: Operand) -> Exp:
    e = to_exp(v)
    if e.value_type not in (None, "list"):
        raise InvalidArgumentError(f"expected a list expression, not a {e.value_type}")
    return e


class HllExp:
    """Expressions over an HLL bin; sketches and values are passed as lists."""

    __slots__ = ("_bin",)

    def __init__(self, bin_exp: Exp) -> None:
        self._bin = _hll(bin_exp)

    def _node(self, name: HllNode | HllModifyNode, type_: str, *args: Any) -> Exp:
        return fn(hll_node(name), (*args, self._bin), type_)

    def get_count(self) -> Exp:
        """Return the estimated number of distinct values."""
        return self._node("get_count", "int")

    def describe(self) -> Exp:
        """Return ``[index_bits, minhash_bits]``."""
        return self._node("describe", "list")

    def get_union(self, sketches: Operand) -> Exp:
        """Return the union of the bin and a list of sketches."""
        return self._node("get_union", "hll", _list(sketches))

    def get_union_count(self, sketches: Operand) -> Exp:
        """Return the estimated count of the union with a list of sketches."""
        return self._node("get_union_count", "int", _list(sketches))

    def get_intersect_count(self, sketches: Operand) -> Exp:
        """Return the estimated count of the intersection with a list of sketches."""
        return self._node("get_intersect_count", "int", _list(sketches))

    def get_similarity(self, sketches: Operand) -> Exp:
        """Return the estimated Jaccard similarity with a list of sketches."""
        return self._node("get_similarity", "float", _list(sketches))

    def may_contain(self, values: Operand) -> Exp:
        """Return 1 when every value may have been added, else 0."""
        return self._node("may_contain", "int", _list(values))

    def init(
        self,
        index_bits: Operand,
        minhash_bits: Operand = -1,
        *,
        flags: HllWrite = HllWrite.DEFAULT,
    ) -> Exp:
        """Return an empty HLL with these bit counts (-1: the bin's own)."""
        p, m = _int("index_bits", index_bits), _int("minhash_bits", minhash_bits)
        return self._node("init", "hll", p, m, int(HllWrite(flags)))

    def add(
        self,
        values: Operand,
        index_bits: Operand = -1,
        minhash_bits: Operand = -1,
        *,
        flags: HllWrite = HllWrite.DEFAULT,
    ) -> Exp:
        """Return the HLL with ``values`` added (created with these bit counts when missing)."""
        p, m = _int("index_bits", index_bits), _int("minhash_bits", minhash_bits)
        return self._node("add", "hll", _list(values), p, m, int(HllWrite(flags)))


def _int(what: str, v: Operand) -> Exp:
    e = to_exp(v)
    if e.value_type not in (None, "int"):
        raise InvalidArgumentError(f"{what} must be an int expression, not a {e.value_type}")
    return e
