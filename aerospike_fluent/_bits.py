"""Bit operations on a blob bin: ``.bin("flags").bits.not_(0, 4)``.

Offsets count bits from the left of the blob (negative offsets from its end); ``resize``,
``insert`` and ``remove`` count bytes. Only ``resize`` and ``insert`` create a missing bin.
Every operation returns the chain it was started from (a new one, with the op appended) in the
native plan format ``("bit_<name>", bin, *args)``.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag
from typing import Any, Generic

from aerospike_fluent import _validate
from aerospike_fluent._collections import C
from aerospike_fluent._plan import BitOp, bit_op
from aerospike_fluent.errors import InvalidTypeError

__all__ = ["BitOverflow", "BitResize", "BitWrite", "BitsRef"]

MAX_BYTES = 128 * 1024 * 1024
"""Largest blob, byte offset or byte size the server takes."""


class BitWrite(IntFlag):
    """Bit write flags."""

    DEFAULT = 0
    CREATE_ONLY = 1
    """Only create the bin (``resize`` / ``insert``); an existing bin is an error."""
    UPDATE_ONLY = 2
    """Only change an existing bin; a missing bin is an error."""
    NO_FAIL = 4
    """Skip the operation instead of failing."""
    PARTIAL = 8
    """Apply what fits when the range runs past the end of the blob."""


class BitResize(IntFlag):
    """Resize flags."""

    DEFAULT = 0
    FROM_FRONT = 1
    """Add or remove bytes at the start instead of the end."""
    GROW_ONLY = 2
    """Refuse to shrink."""
    SHRINK_ONLY = 4
    """Refuse to grow."""


class BitOverflow(IntEnum):
    """What ``add`` / ``subtract`` do when the result does not fit."""

    FAIL = 0
    SATURATE = 2
    """Clamp to the largest or smallest value."""
    WRAP = 4
    """Wrap around."""


def _offset(what: str, v: object) -> int:
    return _validate.integer(what, v, -MAX_BYTES * 8, MAX_BYTES * 8)


def _bits(what: str, v: object) -> int:
    return _validate.integer(what, v, 1, MAX_BYTES * 8)


def _bytes(value: object) -> bytes:
    if not isinstance(value, bytes | bytearray) or not value:
        raise InvalidTypeError("a bit operand must be non-empty bytes")
    return bytes(value)


def _int_size(v: object) -> int:
    return _validate.integer("bit_size", v, 1, 64)


class BitsRef(Generic[C]):
    """Bit operations on one blob bin."""

    __slots__ = ("_bin", "_chain")

    def __init__(self, chain: C, bin_name: str) -> None:
        self._chain = chain
        self._bin = bin_name

    def _op(self, fn: BitOp, *args: Any) -> C:
        return self._chain._with_op(bit_op(fn, self._bin, *args))

    # byte-level writes
    def resize(
        self,
        byte_size: int,
        resize: BitResize = BitResize.DEFAULT,
        *,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> C:
        """Make the blob ``byte_size`` bytes long (zero-padded; created when missing)."""
        size = _validate.integer("byte_size", byte_size, 0, MAX_BYTES)
        return self._op("resize", size, int(BitResize(resize)), int(BitWrite(flags)))

    def insert(self, byte_offset: int, value: bytes, *, flags: BitWrite = BitWrite.DEFAULT) -> C:
        """Insert ``value`` at ``byte_offset`` (zero-padded past the end; created when missing)."""
        at = _validate.integer("byte_offset", byte_offset, -MAX_BYTES, MAX_BYTES)
        return self._op("insert", at, _bytes(value), int(BitWrite(flags)))

    def remove(self, byte_offset: int, byte_size: int, *, flags: BitWrite = BitWrite.DEFAULT) -> C:
        """Remove ``byte_size`` bytes from ``byte_offset``."""
        at = _validate.integer("byte_offset", byte_offset, -MAX_BYTES, MAX_BYTES)
        size = _validate.integer("byte_size", byte_size, 1, MAX_BYTES)
        return self._op("remove", at, size, int(BitWrite(flags)))

    # bit-level writes
    def _edit(self, fn: BitOp, offset: int, size: int, *rest: Any, flags: BitWrite) -> C:
        at, n = _offset("bit_offset", offset), _bits("bit_size", size)
        return self._op(fn, at, n, *rest, int(BitWrite(flags)))

    def set(
        self, bit_offset: int, bit_size: int, value: bytes, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> C:
        """Overwrite ``bit_size`` bits at ``bit_offset`` with the first bits of ``value``."""
        return self._edit("set", bit_offset, bit_size, _bytes(value), flags=flags)

    def or_(
        self, bit_offset: int, bit_size: int, value: bytes, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> C:
        """OR ``value`` into ``bit_size`` bits at ``bit_offset``."""
        return self._edit("or", bit_offset, bit_size, _bytes(value), flags=flags)

    def xor(
        self, bit_offset: int, bit_size: int, value: bytes, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> C:
        """XOR ``value`` into ``bit_size`` bits at ``bit_offset``."""
        return self._edit("xor", bit_offset, bit_size, _bytes(value), flags=flags)

    def and_(
        self, bit_offset: int, bit_size: int, value: bytes, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> C:
        """AND ``value`` into ``bit_size`` bits at ``bit_offset``."""
        return self._edit("and", bit_offset, bit_size, _bytes(value), flags=flags)

    def not_(self, bit_offset: int, bit_size: int, *, flags: BitWrite = BitWrite.DEFAULT) -> C:
        """Invert ``bit_size`` bits at ``bit_offset``."""
        return self._edit("not", bit_offset, bit_size, flags=flags)

    def lshift(
        self, bit_offset: int, bit_size: int, shift: int, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> C:
        """Shift ``bit_size`` bits at ``bit_offset`` left by ``shift`` (zeros come in)."""
        n = _validate.integer("shift", shift, 0, MAX_BYTES * 8)
        return self._edit("lshift", bit_offset, bit_size, n, flags=flags)

    def rshift(
        self, bit_offset: int, bit_size: int, shift: int, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> C:
        """Shift ``bit_size`` bits at ``bit_offset`` right by ``shift`` (zeros come in)."""
        n = _validate.integer("shift", shift, 0, MAX_BYTES * 8)
        return self._edit("rshift", bit_offset, bit_size, n, flags=flags)

    # integer writes (bit_size <= 64, big-endian)
    def _arith(
        self,
        fn: BitOp,
        offset: int,
        size: int,
        value: int,
        signed: bool,
        overflow: BitOverflow,
        flags: BitWrite,
    ) -> C:
        at, n = _offset("bit_offset", offset), _int_size(size)
        v = _validate.integer("value", value, _validate.INT_MIN, _validate.INT_MAX)
        action = int(BitOverflow(overflow))
        return self._op(fn, at, n, v, bool(signed), action, int(BitWrite(flags)))

    def add(
        self,
        bit_offset: int,
        bit_size: int,
        value: int,
        *,
        signed: bool = False,
        overflow: BitOverflow = BitOverflow.FAIL,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> C:
        """Add ``value`` to the ``bit_size``-bit integer at ``bit_offset``."""
        return self._arith("add", bit_offset, bit_size, value, signed, overflow, flags)

    def subtract(
        self,
        bit_offset: int,
        bit_size: int,
        value: int,
        *,
        signed: bool = False,
        overflow: BitOverflow = BitOverflow.FAIL,
        flags: BitWrite = BitWrite.DEFAULT,
    ) -> C:
        """Subtract ``value`` from the ``bit_size``-bit integer at ``bit_offset``."""
        return self._arith("subtract", bit_offset, bit_size, value, signed, overflow, flags)

    def set_int(
        self, bit_offset: int, bit_size: int, value: int, *, flags: BitWrite = BitWrite.DEFAULT
    ) -> C:
        """Write the low ``bit_size`` bits of ``value`` at ``bit_offset``."""
        v = _validate.integer("value", value, _validate.INT_MIN, _validate.INT_MAX)
        at, n = _offset("bit_offset", bit_offset), _int_size(bit_size)
        return self._op("set_int", at, n, v, int(BitWrite(flags)))

    # reads
    def get(self, bit_offset: int, bit_size: int) -> C:
        """Read ``bit_size`` bits at ``bit_offset`` as bytes (left-aligned)."""
        return self._op("get", _offset("bit_offset", bit_offset), _bits("bit_size", bit_size))

    def count(self, bit_offset: int, bit_size: int) -> C:
        """Count the set bits among ``bit_size`` bits at ``bit_offset``."""
        return self._op("count", _offset("bit_offset", bit_offset), _bits("bit_size", bit_size))

    def lscan(self, bit_offset: int, bit_size: int, value: bool) -> C:
        """Position of the first bit equal to ``value`` in the range (-1 if none)."""
        at, n = _offset("bit_offset", bit_offset), _bits("bit_size", bit_size)
        return self._op("lscan", at, n, _bool(value))

    def rscan(self, bit_offset: int, bit_size: int, value: bool) -> C:
        """Position of the last bit equal to ``value`` in the range (-1 if none)."""
        at, n = _offset("bit_offset", bit_offset), _bits("bit_size", bit_size)
        return self._op("rscan", at, n, _bool(value))

    def get_int(self, bit_offset: int, bit_size: int, *, signed: bool = False) -> C:
        """Read the ``bit_size``-bit integer at ``bit_offset``."""
        at, n = _offset("bit_offset", bit_offset), _int_size(bit_size)
        return self._op("get_int", at, n, bool(signed))


def _bool(v: object) -> bool:
    if not isinstance(v, bool):
        raise InvalidTypeError(f"a scanned bit value must be a bool, not {type(v).__name__}")
    return v
