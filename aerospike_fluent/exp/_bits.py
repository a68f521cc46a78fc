"""Bit expressions on a blob: reads and modifies.

Reads: ``F.blob_bin("flags").bits.count(0, 8) > 2``. Modifies return the changed blob
(``F.blob_bin("flags").bits.set_int(0, 8, 7)``) to compare, read with ``read_exp`` or write
back with ``write_exp``; the bin itself is not changed.
"""

from __future__ import annotations

from typing import Any

from aerospike_fluent._bits import BitOverflow, BitResize, BitWrite
from aerospike_fluent._plan import BitModifyNode, BitNode, bit_node
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
    """Expressions over a blob bin's bits (offsets from the left, negative from the end)."""

    __slots__ = ("_bin",)

    def __init__(self, bin_exp: Exp) -> None:
        self._bin = _blob(bin_exp)

    def _node(self, name: BitNode | BitModifyNode, args: tuple[Any, ...], type_: str) -> Exp:
        return fn(bit_node(name), (*args, self._bin), type_, "int")

    def _modify(self, name: BitModifyNode, *args: Any) -> Exp:
        return self._node(name, args, "blob")

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

    # modifies: the changed blob
    def resize(
        self,
        byte_size: Operand,
        resize: BitResize = BitResize.DEFAULT,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob resized to ``byte_size`` bytes (zero-padded)."""
        size = _int("byte_size", byte_size)
        return self._modify("resize", size, int(BitResize(resize)), int(BitWrite(flags)))

    def insert(
        self, byte_offset: Operand, value: Operand, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> Exp:
        """Return the blob with ``value`` inserted at ``byte_offset``."""
        at = _int("byte_offset", byte_offset)
        return self._modify("insert", at, _blob_operand(value), int(BitWrite(flags)))

    def remove(
        self, byte_offset: Operand, byte_size: Operand, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> Exp:
        """Return the blob without ``byte_size`` bytes from ``byte_offset``."""
        at, size = _int("byte_offset", byte_offset), _int("byte_size", byte_size)
        return self._modify("remove", at, size, int(BitWrite(flags)))

    def _bitwise(
        self, name: BitModifyNode, offset: Operand, size: Operand, value: Exp, flags: BitWrite
    ) -> Exp:
        return self._modify(name, *self._range(offset, size), value, int(BitWrite(flags)))

    def set(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        value: Operand,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with the bits overwritten by the first bits of ``value``."""
        return self._bitwise("set", bit_offset, bit_size, _blob_operand(value), flags)

    def or_(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        value: Operand,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with ``value`` ORed into the bits."""
        return self._bitwise("or", bit_offset, bit_size, _blob_operand(value), flags)

    def xor(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        value: Operand,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with ``value`` XORed into the bits."""
        return self._bitwise("xor", bit_offset, bit_size, _blob_operand(value), flags)

    def and_(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        value: Operand,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with ``value`` ANDed into the bits."""
        return self._bitwise("and", bit_offset, bit_size, _blob_operand(value), flags)

    def not_(
        self, bit_offset: Operand, bit_size: Operand, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> Exp:
        """Return the blob with the bits inverted."""
        return self._modify("not", *self._range(bit_offset, bit_size), int(BitWrite(flags)))

    def lshift(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        shift: Operand,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with the bits shifted left by ``shift``."""
        return self._bitwise("lshift", bit_offset, bit_size, _int("shift", shift), flags)

    def rshift(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        shift: Operand,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with the bits shifted right by ``shift``."""
        return self._bitwise("rshift", bit_offset, bit_size, _int("shift", shift), flags)

    def set_int(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        value: Operand,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with the low ``bit_size`` bits of ``value`` written at the offset."""
        return self._bitwise("set_int", bit_offset, bit_size, _int("value", value), flags)

    def _arith(
        self,
        name: BitModifyNode,
        offset: Operand,
        size: Operand,
        value: Operand,
        signed: bool,
        overflow: BitOverflow,
        flags: BitWrite,
    ) -> Exp:
        at, n = self._range(offset, size)
        action, write = int(BitOverflow(overflow)), int(BitWrite(flags))
        return self._modify(name, at, n, _int("value", value), bool(signed), action, write)

    def add(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        value: Operand,
        *,
        signed: bool = False,
        overflow: BitOverflow = BitOverflow.FAIL,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with ``value`` added to the integer at the offset."""
        return self._arith("add", bit_offset, bit_size, value, signed, overflow, flags)

    def subtract(
        self,
        bit_offset: Operand,
        bit_size: Operand,
        value: Operand,
        *,
        signed: bool = False,
        overflow: BitOverflow = BitOverflow.FAIL,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> Exp:
        """Return the blob with ``value`` subtracted from the integer at the offset."""
        return self._arith("subtract", bit_offset, bit_size, value, signed, overflow, flags)


def _blob_operand(v: Operand) -> Exp:
    e = to_exp(v)
    if e.value_type not in (None, "blob"):
        raise InvalidArgumentError(f"a bit operand is a blob, not a {e.value_type}")
    return e


def _bool(v: Operand) -> Exp:
    e = to_exp(v)
    if e.value_type not in (None, "bool"):
        raise InvalidArgumentError(f"a scanned bit value is a bool, not a {e.value_type}")
    return e
