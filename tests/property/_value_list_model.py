"""How a real node answers get/remove by value list on a list (observed on CE 8.1.2).

Each value asked is found as the run of ranks its equals occupy. An ordered list answers run by
run in the order asked, repeats included: ``[0, 1, 1, 2]`` asked ``[1, 0, 1]`` for values gives
``[1, 1, 0, 1, 1]``. An unordered list hands each distinct value's run to the last value asked
equal to it and lists those ranks one by one (reversed: each counted from the end); its indexes
and values come in index order. Counts, existence and removals take each element once.
Inverted, the elements left come in index order, but an unordered list's ranks come run by run
(each run ascending, reversed runs counted from the end). No value asked, inverted, is the
whole list as one run: every index and rank list is ``0..n`` ascending.
"""

from __future__ import annotations

from typing import Any

from ._model import (
    COUNT,
    EXISTS,
    INDEX,
    INVERTED,
    NONE,
    OP_NOT_APPLICABLE,
    RANK,
    REVERSE_INDEX,
    REVERSE_RANK,
    VALUE,
    ModelError,
    order_key,
    rank_order,
)


def _run(start: int, count: int, n: int, rev: bool) -> list[int]:
    first = n - start - count if rev else start
    return list(range(first, first + count))


def _ranks_of(sorted_keys: list[Any], v: Any) -> tuple[int, int]:
    k = order_key(v)
    return sum(x < k for x in sorted_keys), sum(x == k for x in sorted_keys)


def answer(items: list[Any], ordered: bool, asked: list[Any], rt: int) -> tuple[Any, list[int]]:
    """The op's result and the positions it selects (each once, ascending)."""
    inverted = bool(rt & INVERTED)
    rt &= ~INVERTED
    if rt not in (NONE, INDEX, REVERSE_INDEX, RANK, REVERSE_RANK, COUNT, EXISTS, VALUE):
        raise ModelError(OP_NOT_APPLICABLE)
    n = len(items)
    if inverted and not asked:
        everything = {NONE: None, COUNT: n, EXISTS: n > 0, VALUE: list(items)}
        return everything.get(rt, list(range(n))), list(range(n))
    by_rank = list(range(n)) if ordered else rank_order(items)
    sorted_keys = [order_key(items[p]) for p in by_rank]
    runs = []
    for i, v in enumerate(asked):
        later = any(order_key(w) == order_key(v) for w in asked[i + 1 :])
        runs.append((0, 0) if later and not ordered else _ranks_of(sorted_keys, v))
    ranks = {r for s, c in runs for r in range(s, s + c)}
    if inverted:
        ranks = set(range(n)) - ranks
    pos = sorted(by_rank[r] for r in ranks)
    rev = rt in (REVERSE_INDEX, REVERSE_RANK)
    if rt == NONE:
        return None, pos
    if rt == COUNT:
        return len(pos), pos
    if rt == EXISTS:
        return bool(pos), pos
    if rt == VALUE:
        if ordered and not inverted:
            return [items[r] for s, c in runs for r in range(s, s + c)], pos
        return [items[p] for p in pos], pos
    if ordered and not inverted:
        return [i for s, c in runs for i in _run(s, c, n, rev)], pos
    if rt in (RANK, REVERSE_RANK) and not ordered:
        if not inverted:
            return [n - 1 - r if rev else r for s, c in runs for r in range(s, s + c)], pos
        return [i for s, c in _gaps(sorted(ranks)) for i in _run(s, c, n, rev)], pos
    return [n - 1 - p if rev else p for p in pos], pos


def _gaps(ranks: list[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive ranks."""
    out: list[tuple[int, int]] = []
    for r in ranks:
        if out and out[-1][0] + out[-1][1] == r:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((r, 1))
    return out
