"""A batch read's Arrow table as a numpy structured array: ``keys(...).to_numpy()``.

One row per key asked for, in order; a ``found`` field says whether its record was found.
Values a row lacks (a missing record, an absent bin) are the field's zero (``None`` in an
``object`` field). The columns are built natively; each is copied once into its field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

if TYPE_CHECKING:
    from aerospike_fluent._native import ArrowTable

FOUND: Final = "found"
"""The field that says whether a row's record was found."""

# numpy kinds whose fields an Arrow column type fixes (so the read checks the values' range)
_ARROW_KINDS: Final = frozenset("biufUS")


def _modules() -> tuple[Any, Any]:
    try:
        import numpy
        import pyarrow  # type: ignore[import-untyped, unused-ignore]
    except ImportError as e:
        raise ModuleNotFoundError(
            f"to_numpy() needs numpy and pyarrow: pip install 'aerospike-fluent[numpy]' ({e})"
        ) from None
    return numpy, pyarrow


def dtype_of(dtype: object, bins: tuple[str, ...]) -> tuple[Any, tuple[str, ...]]:
    """Check a requested ``dtype``; return it and the bins it reads.

    A structured dtype whose fields are bins (``found`` may be one, a bool); ``bins``, when
    given, must name its fields.
    """
    np, _ = _modules()
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise InvalidTypeError(f"dtype {dtype!r} is not a numpy dtype: {e}") from None
    if dt.names is None:
        raise InvalidArgumentError(
            f"dtype must be a structured dtype (fields named by bins), not {dt}"
        )
    names = tuple(n for n in dt.names if n != FOUND)
    if FOUND in dt.names and dt.fields[FOUND][0] != np.dtype(bool):
        raise InvalidArgumentError(f"the {FOUND!r} field of dtype must be bool")
    if not names:
        raise InvalidArgumentError("dtype names no bin")
    if bins and bins != names:
        raise InvalidArgumentError(
            f"bins {list(bins)} differ from the fields of dtype {list(names)}: give one of them"
        )
    return dt, names


def schema_of(dt: Any) -> object | None:
    """Return the Arrow schema of a dtype's bin fields, when numpy kinds fix every type."""
    _, pa = _modules()
    fields = [(n, dt.fields[n][0]) for n in dt.names if n != FOUND]
    if any(t.kind not in _ARROW_KINDS or t.subdtype is not None for _, t in fields):
        return None
    types = {"U": pa.string(), "S": pa.binary()}
    schema: object = pa.schema(
        [(n, types.get(t.kind) or pa.from_numpy_dtype(t)) for n, t in fields]
    )
    return schema


def _field_type(arrow_type: Any) -> Any:
    """Return the numpy type of a field inferred for an Arrow column type."""
    np, pa = _modules()
    t = pa.types
    if t.is_boolean(arrow_type):
        return np.dtype(bool)
    if t.is_integer(arrow_type) or t.is_floating(arrow_type):
        return np.dtype(arrow_type.to_pandas_dtype())
    if t.is_fixed_size_binary(arrow_type):
        return np.dtype(f"S{arrow_type.byte_width}")
    return np.dtype(object)


def _zero(arrow_type: Any) -> object | None:
    """Return what a null of a column becomes in a numpy field (``None``: stays ``None``)."""
    t = _modules()[1].types
    if t.is_boolean(arrow_type):
        return False
    if t.is_integer(arrow_type) or t.is_floating(arrow_type):
        return 0
    if t.is_string(arrow_type) or t.is_large_string(arrow_type):
        return ""
    if t.is_binary(arrow_type) or t.is_large_binary(arrow_type):
        return b""
    return None


def structured(table: ArrowTable, dtype: Any | None) -> Any:
    """Return the rows of ``table`` (a batch read with a ``found`` column) as an array."""
    np, pa = _modules()
    t = pa.table(table)
    bins = [n for n in t.column_names if n != FOUND]
    if dtype is None:
        fields = [(n, _field_type(t.schema.field(n).type)) for n in bins]
        dtype = np.dtype([(FOUND, bool), *fields])
    elif FOUND not in dtype.names:
        dtype = np.dtype([(FOUND, bool), *((n, dtype.fields[n][0]) for n in dtype.names)])
    out = np.zeros(t.num_rows, dtype=dtype)
    out[FOUND] = t.column(FOUND).to_numpy()
    for name in bins:
        column = t.column(name).combine_chunks()
        zero = None if out.dtype[name].kind == "O" else _zero(column.type)
        if column.null_count and zero is not None:
            column = column.fill_null(pa.scalar(zero, column.type))
        out[name] = column.to_numpy(zero_copy_only=False)
    return out
