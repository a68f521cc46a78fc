"""Which of an unordered list's elements hold a run of ranks, as a server picks them.

A server pops the run off a binary heap over the index positions: a min-heap from the low end,
a max-heap from the high end. Equal values have no order of their own: the heap's sifting
decides which of them falls inside the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def rank_run(vals: list[Any], start: int, count: int, key: Callable[[Any], Any]) -> list[int]:
    """Index positions of ranks ``start .. start + count``, in the order a server hands the
    values out: from the low end highest rank first, from the high end lowest rank first."""
    n = len(vals)
    tail = n - start - count
    sign, discard = (1, start) if start <= tail else (-1, tail)
    keys = [key(v) for v in vals]

    def cmp(a: int, b: int) -> int:
        """``sign`` when slot ``a`` beats slot ``b``, ``-sign`` when it loses, 0 when equal."""
        ka, kb = keys[slots[a]], keys[slots[b]]
        return 0 if ka == kb else (sign if ka < kb else -sign)

    def sift_down(i: int) -> None:
        while (left := 2 * i + 1) < filled:
            right = left + 1
            child = left if right >= filled or cmp(left, right) >= 0 else right
            if cmp(child, i) <= 0:
                return
            slots[i], slots[child] = slots[child], slots[i]
            i = child

    slots = list(range(n))
    filled = n
    for i in reversed(range(n // 2)):
        sift_down(i)
    for _ in range(count + discard):  # each top popped goes to the slot the heap gives up
        top = slots[0]
        filled -= 1
        slots[0] = slots[filled]
        sift_down(0)
        slots[filled] = top
    return slots[filled : filled + count]
