"""A polars predicate as a server-side filter expression, for the polars scan's pushdown.

The predicate's JSON tree (``expr.meta.serialize(format="json")``) is walked for the parts that
have a server-side twin: comparisons of a column with a literal, ``is_in`` of a list literal,
``is_between``, ``is_null`` / ``is_not_null``, a boolean column, ``&``, ``|`` and ``~``.
Anything else, and any node of a shape not recognised, is left out: it constrains nothing.

The filter may keep more records than the predicate (polars applies the whole predicate to
what comes back), never fewer. Each node is translated twice: :meth:`_Walker.pos` is true on
the server for every record where polars finds the node true, :meth:`_Walker.neg` for every
record where polars finds it false; ``~`` swaps them. So polars' nulls (missing bins) need no
care: polars never keeps a row where a comparison is null, and the server filter treats
unknown as false just the same. What polars keeps that a typed server comparison would not is
let through explicitly:

- a bin whose particle type is not the column's (a GeoJSON bin in a string column, an int in
  a float column, values converted by a schema): passed whatever the comparison;
- floats: NaN (polars orders it above every number, like the server, but a negative NaN sorts
  first on the server) always passes, and ``-0.0`` equals ``0.0`` in polars but not on the
  server, so comparisons with zero take the side that keeps both.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

import polars as pl

from aerospike_fluent import exp as F
from aerospike_fluent.exp import Exp

Kind = Literal["int", "float", "str", "bool"]

_PARTICLES: dict[Kind, list[int]] = {"int": [1], "float": [1, 2], "str": [3], "bool": [17]}
"""Particle types a bin of each column kind may hold (0, no bin, is added): a bin of any other
type is let through, since polars may see a value the typed comparison would not."""

_FLIP = {"Eq": "Eq", "NotEq": "NotEq", "Lt": "Gt", "LtEq": "GtEq", "Gt": "Lt", "GtEq": "LtEq"}
_NOT = {"Eq": "NotEq", "NotEq": "Eq", "Lt": "GtEq", "LtEq": "Gt", "Gt": "LtEq", "GtEq": "Lt"}
_CMP: dict[str, Callable[[Exp, Any], Exp]] = {
    "Eq": lambda a, b: a == b,
    "NotEq": lambda a, b: a != b,
    "Lt": lambda a, b: a < b,
    "LtEq": lambda a, b: a <= b,
    "Gt": lambda a, b: a > b,
    "GtEq": lambda a, b: a >= b,
}
_BETWEEN = {"both": ("GtEq", "LtEq"), "left": ("GtEq", "Lt"), "right": ("Gt", "LtEq")}
_BETWEEN["none"] = ("Gt", "Lt")
MAX_DEPTH = 40
"""Deeper predicate trees are not walked further (that part is applied by polars only)."""
MAX_VALUES = 64
"""``is_in`` lists longer than this are applied by polars only."""


class Column(NamedTuple):
    """A column a predicate may name: its kind, and whether it is the record's user key."""

    kind: Kind
    key: bool = False


def kind_of(dtype: pl.DataType) -> Kind | None:
    """Return the comparison kind of a polars column type (``None``: not pushed)."""
    if dtype.is_integer():
        return "int"
    if dtype == pl.Float64:
        return "float"
    if dtype == pl.String:
        return "str"
    if dtype == pl.Boolean:
        return "bool"
    return None


def to_filter(predicate: pl.Expr, columns: Mapping[str, Column]) -> Exp | None:
    """Return a server filter keeping at least every record ``predicate`` keeps (or None)."""
    try:
        tree = json.loads(predicate.meta.serialize(format="json"))
        found = _Walker(columns).pos(tree, 0)
        if found is not None:
            found.compile()  # refuses what the server would (too deep, bad names): not pushed
    except Exception:
        return None
    return found


def _and(a: Exp | None, b: Exp | None) -> Exp | None:
    """Both constraints (``None`` constrains nothing)."""
    if a is None:
        return b
    return a if b is None else a & b


def _or(a: Exp | None, b: Exp | None) -> Exp | None:
    """Either constraint: nothing when one of them is nothing."""
    return None if a is None or b is None else a | b


def _any(parts: list[Exp]) -> Exp:
    return parts[0] if len(parts) == 1 else F.any_of(*parts)


def _one(node: object) -> tuple[str, Any] | None:
    """``(tag, body)`` of a node ``{tag: body}``; ``None`` for anything else."""
    if isinstance(node, dict) and len(node) == 1:
        ((tag, body),) = node.items()
        return str(tag), body
    return None


class _Walker:
    __slots__ = ("_columns",)

    def __init__(self, columns: Mapping[str, Column]) -> None:
        self._columns = columns

    # ------------------------------------------------------------------ logic
    def pos(self, node: object, depth: int) -> Exp | None:
        """Return what is true on the server wherever polars finds ``node`` true (or None)."""
        return self._walk(node, depth, True)

    def neg(self, node: object, depth: int) -> Exp | None:
        """Return what is true on the server wherever polars finds ``node`` false (or None)."""
        return self._walk(node, depth, False)

    def _walk(self, node: object, depth: int, want: bool) -> Exp | None:
        tagged = _one(node)
        if tagged is None or depth > MAX_DEPTH:
            return None
        tag, body = tagged
        try:
            if tag == "BinaryExpr":
                return self._binary(body, depth + 1, want)
            if tag == "Function":
                return self._function(body, depth + 1, want)
            if tag == "Column" and isinstance(body, str):
                return self._compare(body, False, "Eq", want)
        except Exception:  # a shape of another polars version, a value the builder refuses
            return None
        return None

    def _binary(self, body: Any, depth: int, want: bool) -> Exp | None:
        op, left, right = body["op"], body["left"], body["right"]
        if op in ("And", "LogicalAnd", "Or", "LogicalOr"):
            a, b = self._walk(left, depth, want), self._walk(right, depth, want)
            # De Morgan: an `and` is false where either side is false.
            return _and(a, b) if op.endswith("And") == want else _or(a, b)
        if op not in _FLIP:
            return None
        column, value = _column(left), _constant(right)
        if column is None:
            column, value, op = _column(right), _constant(left), _FLIP[op]
        if column is None or value is None:
            return None
        return self._compare(column[0], column[1], op if want else _NOT[op], value[0])

    def _function(self, body: Any, depth: int, want: bool) -> Exp | None:
        args, function = body["input"], _one(body["function"])
        if function is None or function[0] != "Boolean":
            return None
        name = function[1]
        if name == "Not" and len(args) == 1:
            return self._walk(args[0], depth, not want)
        if name in ("IsNull", "IsNotNull") and len(args) == 1:
            column = _column(args[0])
            return None if column is None else self._null(column[0], (name == "IsNull") == want)
        flagged = _one(name)
        if flagged is None or len(args) < 2:
            return None
        column = _column(args[0])
        if column is None:
            return None
        if flagged[0] == "IsIn" and flagged[1].get("nulls_equal") is False and len(args) == 2:
            values = _constant(args[1])
            if values is None or not isinstance(values[0], list):
                return None
            return self._is_in(column[0], column[1], values[0], want)
        if flagged[0] == "IsBetween" and len(args) == 3:
            low, high = _constant(args[1]), _constant(args[2])
            ops = _BETWEEN.get(str(flagged[1].get("closed", "")).lower())
            if low is None or high is None or ops is None:
                return None
            name_, cast = column
            if want:
                return _and(
                    self._compare(name_, cast, ops[0], low[0]),
                    self._compare(name_, cast, ops[1], high[0]),
                )
            return _or(
                self._compare(name_, cast, _NOT[ops[0]], low[0]),
                self._compare(name_, cast, _NOT[ops[1]], high[0]),
            )
        return None

    # ------------------------------------------------------------------ atoms
    def _is_in(self, name: str, cast: bool, values: list[Any], want: bool) -> Exp | None:
        values = [v for v in values if v is not None]  # a null matches nothing (nulls_equal off)
        if not values or len(values) > MAX_VALUES:
            return None
        parts = [self._compare(name, cast, "Eq" if want else "NotEq", v) for v in values]
        if any(p is None for p in parts):
            return None
        found = [p for p in parts if p is not None]
        return _any(found) if want else F.all_of(*found)

    def _null(self, name: str, is_null: bool) -> Exp | None:
        """Where the column is null (``is_null``), else where it is not."""
        column = self._columns.get(name)
        if column is None:
            return None
        if column.key:
            return ~F.key_exists() if is_null else F.key_exists()
        if not is_null:
            return F.bin_exists(name)
        return ~F.bin_exists(name) | _other_type(name, column.kind)

    def _compare(self, name: str, cast: bool, op: str, value: object) -> Exp | None:
        """Where polars finds ``column <op> value`` true (``cast``: the column cast to f64)."""
        column = self._columns.get(name)
        if column is None or (isinstance(value, float) and math.isnan(value)):
            return None
        kind, numeric = column.kind, not isinstance(value, bool | str)
        if column.key:
            typed = type(value) is int if kind == "int" else isinstance(value, str)
            return _CMP[op](F.key(kind), value) if typed and not cast else None
        if kind == "bool" and isinstance(value, bool) and not cast:
            return _CMP[op](F.bool_bin(name), value) | _other_type(name, kind)
        if kind == "str" and isinstance(value, str) and not cast:
            return _CMP[op](F.str_bin(name), value) | _other_type(name, kind)
        if kind not in ("int", "float") or not isinstance(value, int | float) or not numeric:
            return None
        if kind == "int" and not cast and isinstance(value, int):
            return _CMP[op](F.int_bin(name), value) | _other_type(name, kind)
        as_float = F.to_float(F.int_bin(name))
        parts = _float_compare(as_float, op, float(value))
        if kind == "float":
            x = F.float_bin(name)
            parts += [*_float_compare(x, op, float(value)), x > math.inf, x < -math.inf]
        return _any([*parts, _other_type(name, kind)])


def _float_compare(x: Exp, op: str, value: float) -> list[Exp]:
    """``x <op> value`` where polars' ``-0.0 == 0.0`` holds (the server orders them)."""
    if value != 0.0:
        return [_CMP[op](x, value)]
    if op == "Eq":
        return [x == 0.0, x == -0.0]
    return [_CMP[op](x, -0.0 if op in ("Gt", "GtEq") else 0.0)]


def _other_type(name: str, kind: Kind) -> Exp:
    """Return whether the bin holds a type a typed comparison of ``kind`` would not read."""
    return ~F.in_list(F.bin_type(name), [0, *_PARTICLES[kind]])


def _column(node: object) -> tuple[str, bool] | None:
    """``(name, cast to f64)`` of a column node, or of a column cast to ``Float64``."""
    tagged = _one(node)
    if tagged is None:
        return None
    tag, body = tagged
    if tag == "Column" and isinstance(body, str):
        return body, False
    if tag == "Cast" and isinstance(body, dict):
        inner = _column(body.get("expr"))
        dtype = body.get("dtype")
        if inner is not None and not inner[1] and dtype in ({"Literal": "Float64"}, "Float64"):
            return inner[0], True
    return None


def _constant(node: object) -> tuple[Any] | None:
    """``(value,)`` of a literal (or a cast literal) node, evaluated by polars itself."""
    if not _literal_only(node):
        return None
    expr = pl.Expr.deserialize(io.StringIO(json.dumps(node)), format="json")
    values = pl.select(expr).to_series()
    if len(values) != 1:
        return None
    value = values[0]
    if isinstance(value, pl.Series):
        value = value.to_list()
    if value is None or isinstance(value, bool | int | float | str | list):
        return (value,)
    return None


def _literal_only(node: object) -> bool:
    tagged = _one(node)
    if tagged is None:
        return False
    tag, body = tagged
    if tag == "Literal":
        return True
    return tag == "Cast" and isinstance(body, dict) and _literal_only(body.get("expr"))
