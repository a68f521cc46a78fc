"""A pure-Python model of Aerospike list/map operations (documented semantics).

Ordering across types: nil < bool < int < str < list < map < bytes < float (< geojson); ints and
floats by value, strings and bytes bytewise, lists element by element then by length. Indexes may
be negative (from the end); a single-element index or rank out of range fails with
OP_NOT_APPLICABLE (26); ranges are clamped; a value range ending at nil is unbounded above.
Map indexes follow key order, ranks follow value order (ties in key order); list ranks tie in
index order. Insert/set beyond the end of an unordered list pads with nil.
"""

from __future__ import annotations

from typing import Any

OP_NOT_APPLICABLE = 26

NONE, INDEX, REVERSE_INDEX, RANK, REVERSE_RANK, COUNT, KEY, VALUE, KEY_VALUE = range(9)
EXISTS = 13
INVERTED = 0x10000


class ModelError(Exception):
    """An operation the server must refuse, with its result code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


_TYPE_RANK = {type(None): 0, bool: 1, int: 2, str: 3, list: 4, dict: 5, bytes: 6, float: 7}


def order_key(v: Any) -> tuple[Any, ...]:
    """Sort key implementing the server's cross-type ordering."""
    kind = _TYPE_RANK[type(v)]
    if isinstance(v, str):
        return (kind, v.encode())
    if isinstance(v, list):
        return (kind, tuple(order_key(x) for x in v))
    if v is None:
        return (kind, 0)
    return (kind, v)


def one_index(i: int, n: int) -> int:
    """Resolve a single (possibly negative) index; out of range fails."""
    r = n + i if i < 0 else i
    if not 0 <= r < n:
        raise ModelError(OP_NOT_APPLICABLE)
    return r


def index_range(i: int, count: int | None, n: int) -> range:
    """``count`` positions from ``i`` (negative = from the end), clamped to ``0..n``."""
    start = n + i if i < 0 else i
    end = n if count is None else start + count
    s, e = min(max(start, 0), n), min(max(end, 0), n)
    return range(s, max(s, e))


def rank_order(vals: list[Any]) -> list[int]:
    """Positions sorted by value (stable)."""
    return sorted(range(len(vals)), key=lambda p: order_key(vals[p]))


def in_interval(v: Any, begin: Any, end: Any) -> bool:
    """``begin <= v < end`` in server order; an end of nil means no upper bound."""
    return order_key(begin) <= order_key(v) and (end is None or order_key(v) < order_key(end))


class Selection:
    """Selected positions (in result order) over ``vals`` (and ``keys`` for maps)."""

    def __init__(
        self, vals: list[Any], pos: list[int], single: bool, keys: list[Any] | None = None
    ) -> None:
        self.vals, self.pos, self.single, self.keys = vals, pos, single, keys

    def result(self, rt: int) -> tuple[Any, list[int]]:
        """The op's result for return type ``rt`` and the final positions."""
        n = len(self.vals)
        pos, single = self.pos, self.single
        if rt & INVERTED:
            chosen = set(pos)
            pos, single = [p for p in range(n) if p not in chosen], False
        rt &= ~INVERTED
        ranks = {p: r for r, p in enumerate(rank_order(self.vals))}

        def many(items: list[Any]) -> Any:
            return (items[0] if items else None) if single else items

        if rt == NONE:
            out: Any = None
        elif rt == INDEX:
            out = many(pos)
        elif rt == REVERSE_INDEX:
            out = many([n - 1 - p for p in pos])
        elif rt == RANK:
            out = many([ranks[p] for p in pos])
        elif rt == REVERSE_RANK:
            out = many([n - 1 - ranks[p] for p in pos])
        elif rt == COUNT:
            out = len(pos)
        elif rt == EXISTS:
            out = bool(pos)
        elif rt == VALUE:
            out = many([self.vals[p] for p in pos])
        elif rt == KEY:
            assert self.keys is not None
            out = many([self.keys[p] for p in pos])
        else:
            assert self.keys is not None
            out = {self.keys[p]: self.vals[p] for p in pos}
        return out, pos


class ListModel:
    """An Aerospike list bin."""

    def __init__(self, items: list[Any], ordered: bool = False) -> None:
        self.ordered = ordered
        self.items = sorted(items, key=order_key) if ordered else list(items)

    def _add(self, v: Any) -> None:
        if self.ordered:
            keys = [order_key(x) for x in self.items]
            at = next((i for i, k in enumerate(keys) if k > order_key(v)), len(keys))
            self.items.insert(at, v)
        else:
            self.items.append(v)

    def append(self, v: Any) -> int:
        """Append (sorted insert when ordered); returns the size."""
        self._add(v)
        return len(self.items)

    def insert(self, i: int, v: Any) -> int:
        """Insert at ``i``; beyond the end pads with nil; ordered lists refuse."""
        n = len(self.items)
        at = n + i if i < 0 else i
        if self.ordered or at < 0:
            raise ModelError(OP_NOT_APPLICABLE)
        self.items.extend([None] * (at - n))
        self.items.insert(at, v)
        return len(self.items)

    def set(self, i: int, v: Any) -> None:
        """Replace at ``i``; beyond the end pads with nil; ordered lists refuse."""
        n = len(self.items)
        at = n + i if i < 0 else i
        if self.ordered or at < 0:
            raise ModelError(OP_NOT_APPLICABLE)
        self.items.extend([None] * (at + 1 - n))
        self.items[at] = v

    def increment(self, i: int, delta: int) -> Any:
        """Add ``delta`` to the number at ``i`` (missing counts as 0); returns the new value."""
        n = len(self.items)
        at = n + i if i < 0 else i
        if at < 0 or (self.ordered and at >= n):
            raise ModelError(OP_NOT_APPLICABLE)
        cur = self.items[at] if at < n else None
        new = delta if cur is None else cur + delta
        if self.ordered:
            del self.items[at]
            self._add(new)
        else:
            self.items.extend([None] * (at + 1 - n))
            self.items[at] = new
        return new

    def sort(self, flags: int) -> None:
        """Sort; flag 1 descending (unordered lists only), flag 2 drops duplicates."""
        out: list[Any] = []
        for v in sorted(self.items, key=order_key):
            if not (flags & 2 and out and order_key(out[-1]) == order_key(v)):
                out.append(v)
        if flags & 1 and not self.ordered:
            out.reverse()
        self.items = out

    # selections
    def by_index(self, i: int) -> Selection:
        return Selection(self.items, [one_index(i, len(self.items))], True)

    def by_rank(self, r: int) -> Selection:
        return Selection(self.items, [rank_order(self.items)[one_index(r, len(self.items))]], True)

    def by_value(self, v: Any) -> Selection:
        k = order_key(v)
        pos = [p for p, x in enumerate(self.items) if order_key(x) == k]
        return Selection(self.items, pos, False)

    def by_index_range(self, i: int, count: int | None) -> Selection:
        return Selection(self.items, list(index_range(i, count, len(self.items))), False)

    def by_rank_range(self, r: int, count: int | None) -> Selection:
        order = rank_order(self.items)
        return Selection(self.items, [order[k] for k in index_range(r, count, len(order))], False)

    def by_value_range(self, begin: Any, end: Any) -> Selection:
        pos = [p for p in rank_order(self.items) if in_interval(self.items[p], begin, end)]
        return Selection(self.items, pos, False)

    def select(self, sel: Selection, rt: int, remove: bool) -> Any:
        """Apply a get/remove selection."""
        out, pos = sel.result(rt)
        if remove:
            gone = set(pos)
            self.items = [x for p, x in enumerate(self.items) if p not in gone]
        return out


class MapModel:
    """An Aerospike map bin (unordered or key-ordered)."""

    def __init__(self, entries: dict[Any, Any], key_ordered: bool = False) -> None:
        self.key_ordered = key_ordered
        self.entries = dict(entries)

    def keys(self) -> list[Any]:
        """Keys in key order (index order for every map)."""
        return sorted(self.entries, key=order_key)

    def put(self, k: Any, v: Any) -> int:
        """Set ``k``; returns the size."""
        self.entries[k] = v
        return len(self.entries)

    def put_items(self, items: dict[Any, Any]) -> int:
        """Set every entry; returns the size."""
        self.entries.update(items)
        return len(self.entries)

    def increment(self, k: Any, delta: int) -> Any:
        """Add ``delta`` to the number at ``k`` (missing counts as 0)."""
        cur = self.entries.get(k)
        new = delta if cur is None else cur + delta
        self.entries[k] = new
        return new

    def _sel(self, pos: list[int], single: bool) -> Selection:
        keys = self.keys()
        return Selection([self.entries[k] for k in keys], pos, single, keys)

    def by_key(self, k: Any) -> Selection:
        keys = self.keys()
        return self._sel([p for p, x in enumerate(keys) if order_key(x) == order_key(k)], True)

    def by_index(self, i: int) -> Selection:
        return self._sel([one_index(i, len(self.entries))], True)

    def by_rank(self, r: int) -> Selection:
        vals = [self.entries[k] for k in self.keys()]
        return self._sel([rank_order(vals)[one_index(r, len(vals))]], True)

    def by_value(self, v: Any) -> Selection:
        vals = [self.entries[k] for k in self.keys()]
        return self._sel([p for p, x in enumerate(vals) if order_key(x) == order_key(v)], False)

    def by_index_range(self, i: int, count: int | None) -> Selection:
        return self._sel(list(index_range(i, count, len(self.entries))), False)

    def by_rank_range(self, r: int, count: int | None) -> Selection:
        order = rank_order([self.entries[k] for k in self.keys()])
        return self._sel([order[k] for k in index_range(r, count, len(order))], False)

    def by_value_range(self, begin: Any, end: Any) -> Selection:
        vals = [self.entries[k] for k in self.keys()]
        pos = [p for p in rank_order(vals) if in_interval(vals[p], begin, end)]
        return self._sel(pos, False)

    def select(self, sel: Selection, rt: int, remove: bool) -> Any:
        """Apply a get/remove selection."""
        out, pos = sel.result(rt)
        if remove:
            assert sel.keys is not None
            for p in pos:
                del self.entries[sel.keys[p]]
        return out
