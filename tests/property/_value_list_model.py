"""How a real node answers get/remove by value list and by key list (observed on CE 8.1.2).

Each value asked is found as the run of ranks its equals occupy, on one of two roads. *Per
value* (an ordered list, a key-ordered map's keys, a map of at most one element): run by run
in the order asked, repeats included, so ``[0, 1, 1, 2]`` (ordered) asked ``[1, 0, 1]`` for
values gives ``[1, 1, 0, 1, 1]`` and for indexes ``[1, 2, 0, 1, 2]``. *Per distinct value*
(otherwise): each distinct value's run goes to the last value asked equal to it and its ranks
are listed one by one (reversed: each counted from the end); inverted, the ranks left come run
by run (each run ascending, reversed runs counted from the end). Indexes of a list's or map's
values come in index order either way (a map's keys: their indexes are their ranks), and
counts, existence, map elements and removals take each element once; so do an unordered list's
values. A map refuses ranks of keys asked for. No value asked, inverted, is everything as one
run: every index and rank list is ``0..n`` ascending (on a map it crashes a CE 8.1.2 node).
"""

from __future__ import annotations

from typing import Any

from ._model import (
    COUNT,
    EXISTS,
    INDEX,
    INVERTED,
    KEY,
    KEY_VALUE,
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

NUMBERS = (INDEX, REVERSE_INDEX, RANK, REVERSE_RANK)


def _run(start: int, count: int, n: int, rev: bool) -> list[int]:
    first = n - start - count if rev else start
    return list(range(first, first + count))


def _gaps(ranks: list[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive ranks."""
    out: list[tuple[int, int]] = []
    for r in ranks:
        if out and out[-1][0] + out[-1][1] == r:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((r, 1))
    return out


class Found:
    """What ``asked`` finds in ``of`` (values in index order)."""

    def __init__(self, of: list[Any], per_value: bool, asked: list[Any], inverted: bool) -> None:
        self.n, self.per_value, self.inverted = len(of), per_value, inverted
        by_rank = rank_order(of)
        keys = [order_key(of[p]) for p in by_rank]
        self.runs: list[tuple[int, int]] = []
        for i, v in enumerate(asked):
            k = order_key(v)
            later = any(order_key(w) == k for w in asked[i + 1 :])
            run = (sum(x < k for x in keys), sum(x == k for x in keys))
            self.runs.append((0, 0) if later and not per_value else run)
        ranks = {r for s, c in self.runs for r in range(s, s + c)}
        if inverted:
            ranks = set(range(self.n)) - ranks
        self.ranks = sorted(ranks)
        self.pos = sorted(by_rank[r] for r in ranks)

    def numbers(self, by_rank: bool, rev: bool) -> list[int]:
        n = self.n
        if self.per_value and not self.inverted:
            return [i for s, c in self.runs for i in _run(s, c, n, rev)]
        if by_rank and self.per_value:
            by_rank = False  # inverted per value: numbers by position
        if by_rank and not self.inverted:
            return [n - 1 - r if rev else r for s, c in self.runs for r in range(s, s + c)]
        if by_rank:
            return [i for s, c in _gaps(self.ranks) for i in _run(s, c, n, rev)]
        return [n - 1 - p if rev else p for p in self.pos]


def answer(items: list[Any], ordered: bool, asked: list[Any], rt: int) -> tuple[Any, list[int]]:
    """A list's result and the positions it selects (each once, ascending)."""
    inverted = bool(rt & INVERTED)
    rt &= ~INVERTED
    if rt not in (NONE, COUNT, EXISTS, VALUE, *NUMBERS):
        raise ModelError(OP_NOT_APPLICABLE)
    if inverted and not asked:
        return _everything(rt, items, None)
    found = Found(items, ordered, asked, inverted)
    pos = found.pos
    if rt in NUMBERS:
        return found.numbers(rt in (RANK, REVERSE_RANK), rt in (REVERSE_INDEX, REVERSE_RANK)), pos
    if rt == VALUE and ordered and not inverted:
        return [items[r] for s, c in found.runs for r in range(s, s + c)], pos
    return _taken_once(rt, pos, items, None), pos


def map_answer(
    keys: list[Any], vals: list[Any], key_ordered: bool, by_key: bool, asked: list[Any], rt: int
) -> tuple[Any, list[int]]:
    """A map's result (``keys`` in key order) and the positions it selects."""
    inverted = bool(rt & INVERTED)
    rt &= ~INVERTED
    by_rank = rt in (RANK, REVERSE_RANK)
    if by_key and by_rank:
        raise ModelError(OP_NOT_APPLICABLE)
    if inverted and not asked:
        return _everything(rt, vals, keys)
    per_value = key_ordered if by_key else len(keys) <= 1
    found = Found(keys if by_key else vals, per_value, asked, inverted)
    if rt in NUMBERS:
        return found.numbers(by_rank or by_key, rt in (REVERSE_INDEX, REVERSE_RANK)), found.pos
    return _taken_once(rt, found.pos, vals, keys), found.pos


def _everything(rt: int, vals: list[Any], keys: list[Any] | None) -> tuple[Any, list[int]]:
    pos = list(range(len(vals)))
    return (pos if rt in NUMBERS else _taken_once(rt, pos, vals, keys)), pos


def _taken_once(rt: int, pos: list[int], vals: list[Any], keys: list[Any] | None) -> Any:
    if rt == NONE:
        return None
    if rt == COUNT:
        return len(pos)
    if rt == EXISTS:
        return bool(pos)
    if rt == VALUE:
        return [vals[p] for p in pos]
    if keys is None:
        raise ModelError(OP_NOT_APPLICABLE)
    if rt == KEY:
        return [keys[p] for p in pos]
    if rt == KEY_VALUE:
        return [(keys[p], vals[p]) for p in pos]
    raise ModelError(OP_NOT_APPLICABLE)
