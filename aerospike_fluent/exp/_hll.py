"""HLL read expressions: ``F.hll_bin("visitors").hll.get_count() > 1000``."""

from __future__ import annotations

from aerospike_fluent._plan import HllNode, hll_node
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
    """Read expressions over an HLL bin; sketches and values are passed as lists."""

    __slots__ = ("_bin",)

    def __init__(self, bin_exp: Exp) -> None:
        self._bin = _hll(bin_exp)

    def _node(self, name: HllNode, type_: str, *args: Exp) -> Exp:
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
