"""Secondary indexes: definitions, query conditions and the server's index list.

An index is on a bin, on a value inside it (a CDT context) or on an expression. Mirrors
``crates/native/src/crate_calls/indexes.rs``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal

from aerospike_fluent import _validate
from aerospike_fluent._exec import Call, M, Program
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError, error_for_code
from aerospike_fluent.exp import Exp

if TYPE_CHECKING:
    from aerospike_fluent.query import Query

IndexType = Literal["numeric", "string", "blob", "geo2dsphere"]
IndexCollection = Literal["list", "mapkeys", "mapvalues"]
INDEX_NAME_MAX = 255
INDEX_TYPES = ("numeric", "string", "blob", "geo2dsphere")
COLLECTIONS = (None, "list", "mapkeys", "mapvalues")

CtxStep = tuple[Any, ...]
"""A context step: ``cdt.ctx_map_key("prefs")``, ``cdt.ctx_list_index(0)``..."""


def _context(context: Sequence[CtxStep] | None) -> tuple[CtxStep, ...] | None:
    if context is None:
        return None
    steps = tuple(context)
    if not steps or not all(isinstance(s, tuple) and s for s in steps):
        raise InvalidTypeError(
            "context is a non-empty sequence of steps such as cdt.ctx_map_key('k')"
        )
    return steps


def _collection(collection: object) -> IndexCollection | None:
    if collection not in COLLECTIONS:
        raise InvalidArgumentError(f"unknown index collection {collection!r}")
    return collection  # type: ignore[return-value]


def definition(
    set_name: str,
    source: str | Exp,
    kind: str,
    name: str | None,
    collection: object,
    context: Sequence[CtxStep] | None,
) -> tuple[tuple[Any, ...], str]:
    """Native ``create_index`` arguments after the namespace and set, and the index name."""
    if kind not in INDEX_TYPES:
        raise InvalidArgumentError(f"unknown index type {kind!r}")
    coll = _collection(collection)
    steps = _context(context)
    if isinstance(source, Exp):
        if steps is not None:
            raise InvalidArgumentError(
                "an expression index takes no context: put the path in the expression"
            )
        if name is None:
            raise InvalidArgumentError("an expression index needs a name=")
        bin_name, exp = "", source.compile()
    elif isinstance(source, str):
        _validate.bin_name(source)
        bin_name, exp = source, None
    else:
        raise InvalidTypeError(f"index on a bin name or an expression, not {type(source)!r}")
    index = name or "_".join(p for p in (set_name, bin_name, coll, kind) if p)
    _validate.name("index", index, INDEX_NAME_MAX)
    return (bin_name, index, kind, coll, steps, exp), index


INDEX_ALREADY_EXISTS = 200


def create_index(ns: str, set_name: str, spec: tuple[Any, ...], index: str) -> Program[str]:
    """Create the index ``spec`` names ``index``, refusing one that would rename another.

    A server given a new name for a bin's existing index of the same type renames it
    (breaking whoever queries the old name): refused here, naming the index that exists.
    """
    bin_name, _, kind, coll, steps, exp = spec
    if exp is None and steps is None:
        command = f"sindex-list:namespace={ns}"
        listed = yield Call("info", (command, None))
        for info in parse_index_list(listed.get(command, "")):
            same = (info.set or "", info.bin, info.type, info.collection) == (
                set_name or "",
                bin_name,
                kind,
                coll or "default",
            )
            if same and info.context is None and info.name != index:
                raise error_for_code(
                    INDEX_ALREADY_EXISTS,
                    f"index {index!r} not created: bin {bin_name!r} of set {set_name!r} "
                    f"already has the {kind} index {info.name!r}",
                )
    yield Call("create_index", (ns, set_name, *spec))
    return index


class IndexFilter(Generic[M]):
    """Secondary-index condition; each method returns the query.

    The target is a bin (with an optional context inside it), an expression, or an index by
    name, as given to :meth:`Query.where_index`.
    """

    __slots__ = ("_collection", "_context", "_query", "_target")
    _query: Query[M]
    _target: Any
    _collection: IndexCollection | None
    _context: tuple[CtxStep, ...] | None

    def __init__(
        self,
        query: Query[M],
        source: str | Exp | None,
        *,
        index: str | None,
        collection: object,
        context: Sequence[CtxStep] | None,
    ) -> None:
        if (source is None) == (index is None):
            raise InvalidArgumentError("where_index() takes a bin name, an expression or index=")
        if isinstance(source, Exp):
            target: Any = ("exp", source.compile())
        elif isinstance(source, str):
            _validate.bin_name(source)
            target = source
        elif source is not None:
            raise InvalidTypeError(
                f"where_index() takes a bin name or an expression, not {source!r}"
            )
        else:
            _validate.name("index", index, INDEX_NAME_MAX)
            target = ("index", index)
        self._query = query
        self._target = target
        self._collection = _collection(collection)
        self._context = _context(context)

    def _done(self, kind: str, *args: Any) -> Query[M]:
        node = (kind, self._target, *args, self._collection, self._context)
        query: Query[M] = self._query._evolve(_index=node)
        return query

    def equals(self, value: int | str | bytes) -> Query[M]:
        """Return records whose indexed value equals ``value`` (an int, str or bytes index)."""
        if isinstance(value, bool) or not isinstance(value, int | str | bytes):
            raise InvalidTypeError("index equality needs an int, str or bytes value")
        _validate.value("index value", value)
        return self._done("equal", value)

    def between(self, low: int, high: int) -> Query[M]:
        """Return records whose integer indexed value is in ``[low, high]`` (inclusive)."""
        for v in (low, high):
            _validate.integer("index range bound", v, _validate.INT_MIN, _validate.INT_MAX)
        if low > high:
            raise InvalidArgumentError(f"empty index range [{low}, {high}]")
        return self._done("range", low, high)

    def contains(self, value: int | str | bytes) -> Query[M]:
        """Return records whose list/map holds ``value`` (needs ``collection=``)."""
        if self._collection is None:
            raise InvalidArgumentError("contains() needs where_index(..., collection=...)")
        return self.equals(value)

    def within(self, region: str) -> Query[M]:
        """Return records whose GeoJSON point lies in ``region`` (a GeoJSON polygon text)."""
        return self._done("geo_within", _geojson("region", region))

    def within_radius(self, longitude: float, latitude: float, meters: float) -> Query[M]:
        """Return records whose GeoJSON point is within ``meters`` of a point."""
        for label, v, lo, hi in (
            ("longitude", longitude, -180.0, 180.0),
            ("latitude", latitude, -90.0, 90.0),
            ("radius", meters, 0.0, math.inf),
        ):
            if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
                raise InvalidArgumentError(f"{label} must be a number in [{lo}, {hi}], not {v!r}")
        return self._done("geo_radius", float(longitude), float(latitude), float(meters))

    def contains_point(self, point: str) -> Query[M]:
        """Return records whose GeoJSON region contains ``point`` (a GeoJSON point text)."""
        return self._done("geo_contains", _geojson("point", point))


def _geojson(what: str, text: str) -> str:
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        raise InvalidTypeError(f"a geo {what} is GeoJSON text such as '{{\"type\": ...}}'")
    return text


@dataclass(frozen=True)
class IndexInfo:
    """One secondary index as the server lists it (``sindex-list``)."""

    namespace: str
    set: str | None
    name: str
    bin: str | None
    type: str
    collection: str
    context: str | None
    """The CDT context, base64 as the server reports it (None: the bin itself)."""
    expression: str | None
    """The indexed expression, base64 (None: a bin index)."""
    state: str
    """``RW`` once built (``WO`` while it is being built)."""


def parse_index_list(text: str) -> list[IndexInfo]:
    """Parse a ``sindex-list`` answer: ``ns=..:indexname=..:...;`` entries."""
    out = []
    for entry in text.split(";"):
        if not entry.strip():
            continue
        fields = dict(part.split("=", 1) for part in entry.split(":") if "=" in part)
        get = _getter(fields)
        out.append(
            IndexInfo(
                namespace=get("ns", "namespace") or "",
                set=get("set"),
                name=get("indexname") or "",
                bin=get("bin", "bins"),
                type=(get("type") or "").lower(),
                collection=(get("indextype") or "default").lower(),
                context=get("context"),
                expression=get("exp"),
                state=get("state") or "",
            )
        )
    return out


def _getter(fields: dict[str, str]) -> Callable[..., str | None]:
    """Field lookup by any of several names; ``null`` (any case) reads as None."""

    def get(*names: str) -> str | None:
        for key in names:
            value = fields.get(key)
            if value is not None:
                return None if value.lower() == "null" else value
        return None

    return get
