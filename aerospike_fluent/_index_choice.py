"""Automatic index choice for ``query().where(...)``: the index, and the filter left.

The rule: among the ``where`` conditions joined by AND at the top, those of the form
``bin == value`` (an int or str) or integer comparisons of a bin with a value can be answered
by a built (``RW``) index on that bin itself (no context, no expression, no collection) of the
same type, on the query's set or on no set. Equality beats range; then the index expected to
return the fewest records wins: the server's ``entries_per_bval`` for equality, its
``entries`` for a range; then the index name. The conditions the index answers leave the
filter; the rest stays for the server.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from typing import Any, Final

from aerospike_fluent import _validate
from aerospike_fluent._exec import Call, Program
from aerospike_fluent._indexes import IndexInfo, parse_index_list

REFRESH: Final = 30.0
"""Seconds an index list is used before the next query of its namespace fetches it again."""

_FLIP: Final = {"eq": "eq", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_KINDS: Final = {"int": "numeric", "string": "string"}


@dataclasses.dataclass(frozen=True, slots=True)
class Condition:
    """What an index can answer: ``bin == equal``, or ``low <= bin <= high``."""

    bin: str
    type: str
    equal: int | str | None
    low: int
    high: int
    used: tuple[int, ...]
    """Positions of the top-level conditions it answers."""


@dataclasses.dataclass(frozen=True, slots=True)
class Known:
    """An index of the namespace with the server's statistics of it."""

    info: IndexInfo
    entries: int
    entries_per_bval: int


@dataclasses.dataclass(frozen=True, slots=True)
class Explain:
    """How a query runs: the index chosen (``None``: the query reads every record)."""

    index: str | None
    """The index's name."""
    index_filter: tuple[Any, ...] | None
    """What the index selects (native plan format): ``("equal", ...)`` or ``("range", ...)``."""
    filter: tuple[Any, ...] | None
    """The filter expression left for the server (native plan format)."""
    reason: str

    def __str__(self) -> str:
        if self.index is None:
            return f"scan ({self.reason}); filter {self.filter}"
        selects = self.index_filter[:3] if self.index_filter else ""
        return f"index {self.index} {selects}; filter {self.filter}"


class Catalog:
    """The indexes of each namespace a client's queries use, with their statistics.

    Fetched by a query of a namespace not seen for :data:`REFRESH` seconds, and forgotten on
    ``create_index`` / ``drop_index`` (the next query fetches it again).
    """

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[str, tuple[float, tuple[Known, ...]]] = {}

    def forget(self, namespace: str) -> None:
        """Fetch the namespace's index list again before its next query."""
        self._known.pop(namespace, None)

    def cached(self, namespace: str) -> tuple[Known, ...] | None:
        """Return the namespace's indexes if fetched (``None``: not yet)."""
        entry = self._known.get(namespace)
        return None if entry is None else entry[1]

    def refresh(self, namespace: str, wanted: Iterable[Condition]) -> Program[None]:
        """Fetch the index list and the statistics of the indexes fitting ``wanted``, if stale."""
        entry = self._known.get(namespace)
        if entry is not None and time.monotonic() - entry[0] < REFRESH:
            return
        command = f"sindex-list:namespace={namespace}"
        listed = yield Call("info", (command, None))
        infos = parse_index_list(listed.get(command, ""))
        conditions = list(wanted)
        known = []
        for info in infos:
            if not any(_bin_index_of(info, c.bin, c.type) for c in conditions):
                known.append(Known(info, 0, 0))
                continue
            stat = f"sindex-stat:namespace={namespace};indexname={info.name}"
            answer = yield Call("info", (stat, None))
            fields = _fields(answer.get(stat, ""))
            known.append(Known(info, fields.get("entries", 0), fields.get("entries_per_bval", 0)))
        self._known[namespace] = (time.monotonic(), tuple(known))


def _fields(text: str) -> dict[str, int]:
    out = {}
    for part in text.split(";"):
        name, _, value = part.partition("=")
        if value.isdigit():
            out[name] = int(value)
    return out


def conditions(filter: tuple[Any, ...] | None) -> list[Condition]:
    """Return the conditions of ``filter`` an index could answer."""
    if filter is None:
        return []
    parts = filter[1:] if filter[0] == "and" else (filter,)
    equal: list[Condition] = []
    ranges: dict[str, Condition] = {}
    for at, part in enumerate(parts):
        simple = _simple(part)
        if simple is None:
            continue
        op, bin_name, type_, value = simple
        if op == "eq":
            equal.append(Condition(bin_name, type_, value, 0, 0, (at,)))
        elif type_ == "int":
            low, high = _bounds(op, value)
            old = ranges.get(bin_name)
            if old is not None:
                low, high = max(low, old.low), min(high, old.high)
            used = (*old.used, at) if old else (at,)
            ranges[bin_name] = Condition(bin_name, type_, None, low, high, used)
    return equal + [r for r in ranges.values() if r.low <= r.high]


def _simple(part: Any) -> tuple[str, str, str, Any] | None:
    if not (isinstance(part, tuple) and len(part) == 3 and part[0] in _FLIP):
        return None
    op, left, right = part
    if _is_bin(right) and _is_value(left):
        op, left, right = _FLIP[op], right, left
    if not (_is_bin(left) and _is_value(right)):
        return None
    type_ = left[0].removesuffix("_bin")
    if right[0].removesuffix("_val") != type_ or type_ not in _KINDS:
        return None
    return op, left[1], type_, right[1]


def _is_bin(node: Any) -> bool:
    return isinstance(node, tuple) and len(node) == 2 and node[0] in ("int_bin", "string_bin")


def _is_value(node: Any) -> bool:
    return isinstance(node, tuple) and len(node) == 2 and node[0] in ("int_val", "string_val")


def _bounds(op: str, value: int) -> tuple[int, int]:
    lo, hi = _validate.INT_MIN, _validate.INT_MAX
    return {
        "lt": (lo, value - 1),
        "le": (lo, value),
        "gt": (value + 1, hi),
        "ge": (value, hi),
    }[op]


def _bin_index_of(info: IndexInfo, bin_name: str, type_: str) -> bool:
    return (
        info.bin == bin_name
        and info.type == _KINDS[type_]
        and info.collection == "default"
        and info.context is None
        and info.expression is None
    )


def _fits(known: Known, c: Condition, set_name: str) -> bool:
    info = known.info
    on_set = info.set is None or (bool(set_name) and info.set == set_name)
    return on_set and info.state.upper() == "RW" and _bin_index_of(info, c.bin, c.type)


def choose(
    filter: tuple[Any, ...] | None, set_name: str, indexes: tuple[Known, ...] | None
) -> Explain:
    """Pick the index for ``filter`` by the rule above; say why when there is none."""
    wanted = conditions(filter)
    if not wanted:
        return Explain(
            None, None, filter, "no condition an index answers (bin == value, int ranges)"
        )
    if indexes is None:
        return Explain(None, None, filter, "the namespace's index list is not known yet")
    fitting = [(c, k) for c in wanted for k in indexes if _fits(k, c, set_name)]
    if not fitting:
        bins = ", ".join(sorted({c.bin for c in wanted}))
        return Explain(None, None, filter, f"no built index on {bins} fits")
    cond, best = min(
        fitting,
        key=lambda ck: (
            ck[0].equal is None,
            ck[1].entries_per_bval if ck[0].equal is not None else ck[1].entries,
            ck[1].info.name,
        ),
    )
    target = ("index", best.info.name)
    if cond.equal is not None:
        node: tuple[Any, ...] = ("equal", target, cond.equal, None, None)
    else:
        node = ("range", target, cond.low, cond.high, None, None)
    return Explain(best.info.name, node, _left(filter, cond.used), "chosen by the rule")


def _left(filter: tuple[Any, ...] | None, used: tuple[int, ...]) -> tuple[Any, ...] | None:
    assert filter is not None
    parts = filter[1:] if filter[0] == "and" else (filter,)
    rest = [p for at, p in enumerate(parts) if at not in used]
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else ("and", *rest)
