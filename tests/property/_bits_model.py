"""A pure-Python model of Aerospike bit operations on a blob (documented server semantics).

The blob is a list of bits (bit 0 = top bit of byte 0). Bit offsets may be negative (from the
end; further back than the start is PARAMETER_ERROR). A bit edit, integer op or read whose first
byte is past the blob, or whose range runs past it, is OP_NOT_APPLICABLE (``PARTIAL`` clips an
edit to the blob, ``NO_FAIL`` skips the op); byte removal past the end is PARAMETER_ERROR. Only
``resize`` and ``insert`` create a missing bin. Integer ops cut their operand to the field width;
signed overflow is detected from the signs of the operands and of the wrapped result (so
``-2^(n-1) + -2^(n-1)``, which wraps to 0, passes), ``rscan`` looks back to the start of the
range's first byte (a match there, before the offset, answers a negative position).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

PARAMETER_ERROR, BIN_EXISTS, BIN_NOT_FOUND, OP_NOT_APPLICABLE = 4, 6, 17, 26
CREATE_ONLY, UPDATE_ONLY, NO_FAIL, PARTIAL = 1, 2, 4, 8
FROM_FRONT, GROW_ONLY, SHRINK_ONLY = 1, 2, 4
SATURATE, WRAP = 2, 4
READS = ("get", "count", "lscan", "rscan", "get_int")


class ModelError(Exception):
    """An operation the server must refuse, with its result code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Skip(Exception):
    """A refusal that ``NO_FAIL`` turns into "leave the bin as it was"."""


def to_bits(b: bytes) -> list[int]:
    return [(byte >> (7 - i)) & 1 for byte in b for i in range(8)]


def to_bytes(bits: list[int]) -> bytes:
    padded = bits + [0] * (-len(bits) % 8)
    return bytes(
        sum(bit << (7 - i) for i, bit in enumerate(padded[j : j + 8]))
        for j in range(0, len(padded), 8)
    )


def _signed(v: int, n: int) -> int:
    return v - (1 << n) if v >> (n - 1) else v


class BitsModel:
    """The bin (None = absent) and the operations on it."""

    def __init__(self, blob: bytes | None) -> None:
        self.blob = blob

    def apply(self, name: str, *args: Any) -> Any:
        """Run one op; returns its result (writes: None). Raises ModelError on refusal."""
        flags = 0 if name in READS else args[-1]
        try:
            return self._apply(name, args, flags)
        except Skip as skip:
            if flags & NO_FAIL:
                return None
            raise ModelError(skip.args[0]) from None

    def _apply(self, name: str, a: tuple[Any, ...], flags: int) -> Any:
        if self.blob is None:
            if name in READS:
                return None
            if name not in ("resize", "insert") or flags & UPDATE_ONLY:
                raise Skip(BIN_NOT_FOUND)
        elif name not in READS and flags & CREATE_ONLY:
            raise Skip(BIN_EXISTS)
        old = self.blob or b""
        if name == "resize":
            return self._resize(old, a[0], a[1])
        bits = to_bits(old)
        scale = 8 if name in ("insert", "remove") else 1
        off = a[0] * scale
        if off < 0:
            if self.blob is None or -off > len(bits):
                raise ModelError(PARAMETER_ERROR)
            off += len(bits)
        if name == "insert":
            pad = max(0, off // 8 - len(old))
            self.blob = old[: off // 8] + bytes(pad) + a[1] + old[off // 8 :]
            return None
        size = a[1] * scale if name == "remove" else a[1]
        first, end = off // 8, (off + size + 7) // 8
        if name == "remove":
            if first >= len(old) or (end > len(old) and not flags & PARTIAL):
                raise Skip(PARAMETER_ERROR)
            self.blob = old[:first] + old[min(end, len(old)) :]
            return None
        clip = not flags & PARTIAL or name in _INTS
        if first >= len(old) or (end > len(old) and clip):
            raise Skip(OP_NOT_APPLICABLE)
        size = min(size, len(bits) - off)
        field = bits[off : off + size]
        if name in READS:
            return self._read(name, a, bits, off, field)
        self.blob = to_bytes(bits[:off] + self._edit(name, a, field) + bits[off + size :])
        return None

    def _resize(self, old: bytes, size: int, rflags: int) -> None:
        if size == len(old):
            return
        if (size < len(old) and rflags & GROW_ONLY) or (size > len(old) and rflags & SHRINK_ONLY):
            raise Skip(PARAMETER_ERROR)
        front = rflags & FROM_FRONT
        if size < len(old):
            self.blob = old[len(old) - size :] if front else old[:size]
        else:
            pad = bytes(size - len(old))
            self.blob = pad + old if front else old + pad

    def _edit(self, name: str, a: tuple[Any, ...], field: list[int]) -> list[int]:
        n = len(field)
        if name in ("set", "or", "xor", "and"):
            src = to_bits(a[2])[:n]
            combine: Callable[[int, int], int] = {
                "set": lambda _x, y: y,
                "or": operator.or_,
                "xor": operator.xor,
                "and": operator.and_,
            }[name]
            return [combine(x, y) for x, y in zip(field, src, strict=True)]
        if name == "not":
            return [1 - x for x in field]
        if name in ("lshift", "rshift"):
            k = min(a[2], n)
            return field[k:] + [0] * k if name == "lshift" else [0] * k + field[: n - k]
        value = self._integer(name, a, field)
        return [(value >> (n - 1 - i)) & 1 for i in range(n)]

    @staticmethod
    def _integer(name: str, a: tuple[Any, ...], field: list[int]) -> int:
        n = len(field)
        mask = (1 << n) - 1
        operand: int = a[2] & mask
        if name == "set_int":
            return operand
        load = int("".join(map(str, field)), 2)
        signed, action = bool(a[3]), int(a[4])
        delta = operand if name == "add" else (-operand) & mask
        wrapped = (load + delta) & mask
        if action & WRAP:
            return wrapped
        if signed:
            lo, hi, r = _signed(load, n), _signed(delta, n), _signed(wrapped, n)
            if lo < 0 and hi < 0 and r > 0:
                limit = 1 << (n - 1)
            elif lo > 0 and hi > 0 and r < 0:
                limit = (1 << (n - 1)) - 1
            else:
                return wrapped
        else:
            true = load + operand if name == "add" else load - operand
            if 0 <= true <= mask:
                return wrapped
            limit = mask if true > mask else 0
        if action & SATURATE:
            return limit
        raise Skip(OP_NOT_APPLICABLE)

    @staticmethod
    def _read(name: str, a: tuple[Any, ...], bits: list[int], off: int, field: list[int]) -> Any:
        if name == "get":
            return to_bytes(field)
        if name == "count":
            return sum(field)
        if name == "lscan":
            return field.index(int(a[2])) if int(a[2]) in field else -1
        if name == "rscan":
            start = off // 8 * 8
            for p in range(off + len(field) - 1, start - 1, -1):
                if bits[p] == int(a[2]):
                    return p - off
            return -1
        v = int("".join(map(str, field)), 2)
        return _signed(v, len(field)) if a[2] else v


_INTS = ("add", "subtract", "set_int", "get", "count", "lscan", "rscan", "get_int")
