"""A pure-Python model of Aerospike list/map operations (documented semantics).

Ordering across types: nil < bool < int < str < list < map < bytes < float (< geojson); ints and
floats by value, strings and bytes bytewise, lists element by element then by length. Indexes may
be negative (from the end); a single-element index or rank out of range fails with
OP_NOT_APPLICABLE (26); ranges are clamped; a value range ending at nil is unbounded above.
Every map, unordered ones included, is stored in key order (as a real node stores it), so map
indexes and storage both follow key order; ranks follow value order (ties in key order); an
ordered list's ranks tie in index order, an unordered list's ranks are picked by a heap
(``_rank_heap``). Insert/set beyond the end of an unordered list pads with nil.
"""

from __future__ import annotations

from typing import Any

from ._rank_heap import rank_run

OP_NOT_APPLICABLE = 26
PARAMETER_ERROR = 4

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
    """``count`` positions from ``i`` (negative = from the end), clamped to ``0..n``; a count
    is unsigned on the wire (None = to the end)."""
    start = n + i if i < 0 else i
    if start >= n:
        return range(n, n)
    left = 2**64 - 1 if count is None else count
    if start < 0:
        left, start = max(left + start, 0), 0
    return range(start, min(start + left, n))


def relative(base: int, offset: int, count: int | None) -> tuple[int, int | None]:
    """A range counted from ``base``: a start before 0 eats into the count."""
    start = base + offset
    if start >= 0:
        return start, count
    return 0, None if count is None else max(count + start, 0)


def _run(start: int, count: int, n: int, rev: bool) -> range:
    """Numbers of a run, ascending; reversed numbers counted from the end."""
    first = n - start - count if rev else start
    return range(first, first + count)


def rank_order(vals: list[Any]) -> list[int]:
    """Positions sorted by value (stable)."""
    return sorted(range(len(vals)), key=lambda p: order_key(vals[p]))


def in_interval(v: Any, begin: Any, end: Any) -> bool:
    """``begin <= v < end`` in server order; an end of nil means no upper bound."""
    return order_key(begin) <= order_key(v) and (end is None or order_key(v) < order_key(end))


class Selection:
    """Selected positions over ``vals`` (and ``keys`` for maps) and how a server answers them.

    ``pos`` is the order values come in; ``span`` says how index and rank lists are written:
    ``("index", start, count)`` / ``("rank", start, count)`` runs (ascending, reversed numbers
    counted from the end) or ``"mask"`` (storage order). An inverted run that leaves a head or
    a tail is answered as that run (``reducible``); other inverted selections come in storage
    order. Inverted, a map writes index and rank lists of everything (ascending) when nothing
    was selected. Value and key lists are answered by ``_value_list_model``.
    """

    def __init__(
        self,
        vals: list[Any],
        pos: list[int],
        single: bool,
        keys: list[Any] | None = None,
        span: Any = "mask",
        storage: list[int] | None = None,
        redo: Any = None,
    ) -> None:
        self.vals, self.pos, self.single, self.keys = vals, pos, single, keys
        self.span, self.storage, self.redo = span, storage, redo
        # True / False for an ordered / unordered list (set by ``ListModel.select``), None a map
        self.list_order: bool | None = None
        # picked as a rank range: a map lists its indexes in rank order (inverted: index order)
        self.rank_range = False
        self.unordered_map = False

    def _map_exists(self) -> bool | None:
        """EXISTS of this map selection inverted, where a real node does not answer whether
        anything is left: a value interval (and an unordered map's key interval) answers whether
        nothing was selected, a run with unselected elements on both sides false."""
        n, span = len(self.vals), self.span
        if not isinstance(span, tuple):
            return None
        kind, s, c = span
        if self.redo is None and kind == "rank":
            return n > 0 and not self.pos
        if self.redo is None and kind == "index" and self.unordered_map:
            return not self.pos
        if self.redo is not None and s > 0 and c > 0 and s + c < n:
            return None if kind == "index" and not self.unordered_map else False
        return None

    def _reduced(self) -> Selection | None:
        if self.redo is None or not isinstance(self.span, tuple):
            return None
        n, (_, s, c) = len(self.vals), self.span
        if c == 0:
            s, c = 0, n
        elif s == 0:
            s, c = c, n - c
        elif s + c >= n:
            s, c = 0, s
        else:
            return None
        reduced: Selection = self.redo(s, c)
        reduced.list_order = self.list_order
        return reduced

    def _rank_run_kind(self, kind: str) -> str:
        """``"index"`` when an index run is also the run of ranks: on an ordered list, and on
        an unordered list selected whole."""
        whole = isinstance(self.span, tuple) and self.span[1:] == (0, len(self.vals))
        if kind == "rank" and (self.list_order or (self.list_order is False and whole)):
            return "index"
        return kind

    def result(self, rt: int) -> tuple[Any, list[int]]:
        """The op's result for return type ``rt`` and the final positions."""
        n = len(self.vals)
        inverted = bool(rt & INVERTED)
        rt &= ~INVERTED
        if inverted and self.single:
            raise ModelError(OP_NOT_APPLICABLE)
        # an unordered map's key interval picks elements one by one
        span_kind = self.span[0] if isinstance(self.span, tuple) else self.span
        masked_keys = self.unordered_map and self.redo is None and span_kind == "index"
        everything = inverted and self.keys is not None and not self.pos and not masked_keys
        whole_ranks = (
            not inverted
            and self.keys is not None
            and len(self.pos) == n
            and span_kind == "index"
            and not masked_keys
        )
        map_exists = self._map_exists() if inverted and self.keys is not None else None
        sel = self
        if inverted and (reduced := self._reduced()) is not None:
            sel, inverted = reduced, False
        slot = sel.storage or list(range(n))
        pos = sel.pos
        if inverted:
            chosen = set(pos)
            pos = [p for p in range(n) if p not in chosen]
        mask = sorted(pos, key=lambda p: slot[p])
        if inverted or sel.span == "mask":
            pos = mask
        ranks = {p: r for r, p in enumerate(rank_order(sel.vals))}
        if sel.list_order is False:  # equal values share their lowest rank
            keys = [order_key(v) for v in sel.vals]
            ranks = {p: sum(x < k for x in keys) for p, k in enumerate(keys)}

        def many(items: list[Any], missing: Any = None) -> Any:
            return (items[0] if items else missing) if sel.single else items

        def numbers(kind: str, of: dict[int, int] | None, rev: bool) -> list[int]:
            if kind == "index" and sel.rank_range and sel.keys is not None and not inverted:
                chosen = set(pos)
                return [n - 1 - p if rev else p for p in rank_order(sel.vals) if p in chosen]
            if everything or (whole_ranks and kind == "rank"):
                return list(range(n))
            if isinstance(sel.span, tuple) and sel.span[0] in (kind, sel._rank_run_kind(kind)):
                _, s, c = sel.span
                runs = [(0, s), (s + c, n - s - c)] if inverted else [(s, c)]
                return [i for a, b in runs for i in _run(a, b, n, rev)]
            return [n - 1 - (of[p] if of else p) if rev else (of[p] if of else p) for p in mask]

        if rt == NONE:
            out: Any = None
        elif rt in (INDEX, REVERSE_INDEX):
            out = many(numbers("index", None, rt == REVERSE_INDEX), -1)
        elif rt in (RANK, REVERSE_RANK):
            out = many(numbers("rank", ranks, rt == REVERSE_RANK), -1)
        elif rt == COUNT:
            out = len(pos)
        elif rt == EXISTS:
            # inverted, an unordered list's value or rank run answers whether nothing was
            # selected (a rank range leaving nothing answers false)
            run = isinstance(sel.span, tuple) and sel.span[0] == "rank"
            quirk = inverted and sel.list_order is False and run
            out = (not sel.pos and not (sel.rank_range and not pos)) if quirk else bool(pos)
            if map_exists is not None:
                out = map_exists
        elif rt == VALUE:
            out = many([sel.vals[p] for p in pos])
        elif rt == KEY:
            assert sel.keys is not None
            out = many([sel.keys[p] for p in pos])
        else:
            assert sel.keys is not None
            out = [(sel.keys[p], sel.vals[p]) for p in pos]
        return out, pos


class ValueListSelection(Selection):
    """A get/remove by value list (or a map's key list), answered by ``_value_list_model``."""

    def __init__(
        self,
        vals: list[Any],
        asked: list[Any],
        ordered: bool,
        keys: list[Any] | None = None,
        by_key: bool = False,
    ) -> None:
        super().__init__(vals, [], False, keys)
        self.asked, self.ordered, self.by_key = asked, ordered, by_key

    def result(self, rt: int) -> tuple[Any, list[int]]:
        from . import _value_list_model as vl  # it builds on this module

        if self.keys is None:
            return vl.answer(self.vals, self.ordered, self.asked, rt)
        return vl.map_answer(self.keys, self.vals, self.ordered, self.by_key, self.asked, rt)


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
        """Add ``delta`` to the number at ``i``; returns the new value. Past the end the delta
        is stored (an ordered list adds it only just past the end); any element but a number,
        nil included, is refused."""
        n = len(self.items)
        at = n + i if i < 0 else i
        if at < 0 or (self.ordered and at > n):
            raise ModelError(OP_NOT_APPLICABLE)
        if at < n:
            cur = self.items[at]
            if isinstance(cur, bool) or not isinstance(cur, int | float):
                raise ModelError(PARAMETER_ERROR)
            new = cur + delta
        else:
            new = delta
        if self.ordered:
            del self.items[at : at + 1]
            self._add(new)
        else:
            self.items.extend([None] * (at + 1 - n))
            self.items[at] = new
        return new

    def sort(self, flags: int) -> None:
        """Sort; flag 1 descending (unordered lists only), flag 2 drops duplicates.

        A server refuses both flags together on an unordered list of two distinct values.
        """
        distinct = len({repr(order_key(v)) for v in self.items})
        if flags & 3 == 3 and not self.ordered and distinct > 1:
            raise ModelError(PARAMETER_ERROR)
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
        rank = one_index(r, len(self.items))
        if self.ordered:
            return Selection(self.items, [rank], True, span=("rank", rank, 1))
        pos = rank_run(self.items, rank, 1, order_key)
        return Selection(self.items, pos, True, span=("rank", rank, 1))

    def by_value(self, v: Any) -> Selection:
        k = order_key(v)
        pos = [p for p, x in enumerate(self.items) if order_key(x) == k]
        below = sum(order_key(x) < k for x in self.items)
        if self.ordered:  # the run of equal elements
            return self.by_index_range(below, len(pos))
        return Selection(self.items, pos, False, span=("rank", below, len(pos)))

    def by_values(self, vs: list[Any]) -> Selection:
        """Elements equal to any of ``vs`` (see ``_value_list_model``)."""
        return ValueListSelection(self.items, vs, self.ordered)

    def by_index_range(self, i: int, count: int | None) -> Selection:
        r = index_range(i, count, len(self.items))
        run = ("index", r.start, len(r))
        return Selection(
            self.items,
            list(r),
            False,
            span=run,
            redo=self._index_run,
        )

    def _index_run(self, s: int, c: int) -> Selection:
        return self.by_index_range(s, c)

    def by_rank_range(self, r: int, count: int | None) -> Selection:
        if self.ordered:
            return self.by_index_range(r, count)
        span = index_range(r, count, len(self.items))
        pos = rank_run(self.items, span.start, len(span), order_key)
        sel = Selection(self.items, pos, False, span=("rank", span.start, len(span)))
        sel.rank_range = True
        return sel

    def by_value_range(self, begin: Any, end: Any) -> Selection:
        if self.ordered:
            inside = [p for p, x in enumerate(self.items) if in_interval(x, begin, end)]
            start = (
                inside[0] if inside else sum(order_key(x) < order_key(begin) for x in self.items)
            )
            return self.by_index_range(start, len(inside))
        pos = [p for p, x in enumerate(self.items) if in_interval(x, begin, end)]
        first = sum(order_key(x) < order_key(begin) for x in self.items)
        return Selection(self.items, pos, False, span=("rank", first, len(pos)))

    def by_value_relative_rank_range(self, v: Any, r: int, count: int | None) -> Selection:
        base = sum(order_key(x) < order_key(v) for x in self.items)
        start, count = relative(base, r, count)
        return self.by_rank_range(start, count)

    def select(self, sel: Selection, rt: int, remove: bool) -> Any:
        """Apply a get/remove selection."""
        sel.list_order = self.ordered
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

    def stored(self) -> list[tuple[Any, Any]]:
        """The entries as a server stores them: in key order, whatever the map's order."""
        return [(k, self.entries[k]) for k in self.keys()]

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

    def _sel(self, pos: list[int], single: bool, span: Any = "mask", redo: Any = None) -> Selection:
        keys = self.keys()
        vals = [self.entries[k] for k in keys]
        # storage is key order, so each index is its own storage slot
        sel = Selection(vals, pos, single, keys, span, list(range(len(keys))), redo)
        sel.unordered_map = not self.key_ordered
        return sel

    def _vals(self) -> list[Any]:
        return [self.entries[k] for k in self.keys()]

    def by_key(self, k: Any) -> Selection:
        keys = self.keys()
        return self._sel([p for p, x in enumerate(keys) if order_key(x) == order_key(k)], True)

    def by_keys(self, ks: list[Any]) -> Selection:
        return ValueListSelection(self._vals(), ks, self.key_ordered, self.keys(), by_key=True)

    def by_values(self, vs: list[Any]) -> Selection:
        return ValueListSelection(self._vals(), vs, self.key_ordered, self.keys())

    def by_key_range(self, begin: Any, end: Any) -> Selection:
        keys = self.keys()
        pos = [p for p, x in enumerate(keys) if in_interval(x, begin, end)]
        first = sum(order_key(x) < order_key(begin) for x in keys)
        return self._sel(pos, False, ("index", first, len(pos)))

    def by_index(self, i: int) -> Selection:
        return self._sel([one_index(i, len(self.entries))], True)

    def by_rank(self, r: int) -> Selection:
        vals = self._vals()
        return self._sel([rank_order(vals)[one_index(r, len(vals))]], True)

    def by_value(self, v: Any) -> Selection:
        vals = self._vals()
        pos = [p for p, x in enumerate(vals) if order_key(x) == order_key(v)]
        below = sum(order_key(x) < order_key(v) for x in vals)
        return self._sel(pos, False, ("rank", below, len(pos)))

    def by_index_range(self, i: int, count: int | None) -> Selection:
        r = index_range(i, count, len(self.entries))
        redo = lambda s, c: self.by_index_range(s, c)  # noqa: E731
        return self._sel(list(r), False, ("index", r.start, len(r)), redo)

    def by_rank_range(self, r: int, count: int | None) -> Selection:
        order = rank_order(self._vals())
        span = index_range(r, count, len(order))
        redo = lambda s, c: self.by_rank_range(s, c)  # noqa: E731
        sel = self._sel([order[k] for k in span], False, ("rank", span.start, len(span)), redo)
        sel.rank_range = True
        return sel

    def by_value_range(self, begin: Any, end: Any) -> Selection:
        vals = self._vals()
        pos = [p for p in range(len(vals)) if in_interval(vals[p], begin, end)]
        first = sum(order_key(x) < order_key(begin) for x in vals)
        return self._sel(pos, False, ("rank", first, len(pos)))

    def by_value_relative_rank_range(self, v: Any, r: int, count: int | None) -> Selection:
        base = sum(order_key(x) < order_key(v) for x in self._vals())
        return self.by_rank_range(*relative(base, r, count))

    def by_key_relative_index_range(self, k: Any, i: int, count: int | None) -> Selection:
        base = sum(order_key(x) < order_key(k) for x in self.keys())
        return self.by_index_range(*relative(base, i, count))

    def select(self, sel: Selection, rt: int, remove: bool) -> Any:
        """Apply a get/remove selection."""
        out, pos = sel.result(rt)
        if remove:
            assert sel.keys is not None
            for p in pos:
                del self.entries[sel.keys[p]]
        return out
