"""A set as a lazy polars source, with projection, predicate and limit pushdown.

Example:
    >>> import aerospike_fluent as af, polars as pl
    >>> with af.sync.connect("127.0.0.1:3000") as db:
    ...     lf = af.polars.scan_set(db, "test", "users", key="id")
    ...     adults = lf.filter(pl.col("age") >= 18).select("id", "name").collect()

The columns polars asks for become the bins read; the parts of a ``filter`` that have a
server-side twin become a filter expression, so the server sends fewer records; ``head(n)``
reads at most ``n`` records when nothing is left to filter. Polars calls a source from its own
threads and waits for it, so the source takes a blocking client (:mod:`aerospike_fluent.sync`):
with an async client :func:`scan_set` raises :class:`~aerospike_fluent.errors.InvalidTypeError`.
Needs polars (``pip install 'aerospike-fluent[polars]'``).

"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack

try:
    import polars as pl
    from polars.io.plugins import register_io_source
except ImportError as missing:  # pragma: no cover - depends on the environment
    raise ImportError(
        "aerospike_fluent.polars needs polars: pip install 'aerospike-fluent[polars]'"
    ) from missing

from aerospike_fluent import _arrow, _validate
from aerospike_fluent import exp as F
from aerospike_fluent._polars_predicate import Column, kind_of, to_filter
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp import Exp

if TYPE_CHECKING:
    from aerospike_fluent._arrow import ArrowOptions
    from aerospike_fluent._exec import Sync
    from aerospike_fluent.client import Client
    from aerospike_fluent.query import Query
    from aerospike_fluent.scopes import RecordSet

__all__ = ["DEFAULT_SAMPLE", "ScanOptions", "scan", "scan_set", "server_filter"]

DEFAULT_SAMPLE = 100
"""Records read to infer the columns when no ``schema`` is given."""

_META = ("key", "digest", "generation", "ttl")


class ScanOptions(TypedDict, total=False):
    """Options of :func:`scan_set`.

    ``schema``: the columns, a polars schema (``{"age": pl.Int64, ...}``); without one they are
    inferred from the first ``sample_size`` records (a bin first seen later is not a column).
    ``key``, ``digest``, ``generation``, ``ttl``: add that metadata column (``True``, or a
    column name), as for :meth:`~aerospike_fluent.Query.to_arrow`.
    ``mixed_types``: ``"str"`` for bins of several types (their text; predicates on string
    columns are then applied by polars only).
    ``batch_size``: rows per batch read (default: what polars asks for, at most 100,000).
    ``sample_size``: records read to infer the schema (default 100).
    """

    schema: Mapping[str, Any]
    key: _arrow.MetaColumn
    digest: _arrow.MetaColumn
    generation: _arrow.MetaColumn
    ttl: _arrow.MetaColumn
    mixed_types: Literal["str"] | None
    batch_size: int
    sample_size: int


def scan_set(
    db: Client[Sync], namespace: str, set_name: str, **options: Unpack[ScanOptions]
) -> pl.LazyFrame:
    """Every record of ``namespace.set_name`` as a :class:`polars.LazyFrame` (see the module).

    ``db`` is a blocking client (:func:`aerospike_fluent.sync.connect`).
    """
    return scan(db.namespace(namespace).set(set_name), **options)


def scan(records: RecordSet[Sync], **options: Unpack[ScanOptions]) -> pl.LazyFrame:
    """Return the records of a set scope as a :class:`polars.LazyFrame` (``s.scan_polars()``)."""
    source = _Source(records, options)
    return register_io_source(
        source.read,
        schema=source.schema(),  # now: a refusal raises here, as itself
        explain_name="aerospike",
        explain_detail=f"{records.namespace_name}.{records.name}",
    )


def server_filter(
    predicate: pl.Expr, schema: Mapping[str, Any], *, key: str | None = None
) -> Exp | None:
    """Return the server-side filter a scan with columns ``schema`` sends for ``predicate``.

    ``None`` when no part of it is pushed down; ``key`` names the user key column. The filter
    keeps at least the records ``predicate`` keeps (polars applies all of it afterwards).
    """
    return to_filter(predicate, _columns(pl.Schema(schema), key, mixed=False))


def _columns(schema: pl.Schema, key: str | None, *, mixed: bool) -> dict[str, Column]:
    """Return the columns a predicate may be pushed on: bins and the key, by kind."""
    out: dict[str, Column] = {}
    for name, dtype in schema.items():
        kind = kind_of(dtype)
        if kind is None or (mixed and kind == "str" and name != key):
            continue
        out[name] = Column(kind, key=name == key)
    return out


class _Source:
    """The scan behind one LazyFrame: its schema (inferred once) and its reads."""

    __slots__ = ("_meta", "_options", "_records", "_schema")

    def __init__(self, records: RecordSet[Sync], options: ScanOptions) -> None:
        if records._ex.is_async:
            raise InvalidTypeError(
                "a polars scan needs a blocking client: polars calls its sources from its own "
                "threads and waits for them; connect with aerospike_fluent.sync.connect()"
            )
        _validate.known_names("scan option", options, ScanOptions.__annotations__)
        self._records = records
        self._options = options
        self._meta: dict[str, str] = {}
        for what in _META:
            name = _arrow._meta(options.get(what, False), what)
            if name is not None:
                self._meta[what] = name
        if "batch_size" in options:
            _validate.integer("batch_size", options["batch_size"], 1, 100_000)
        self._schema: pl.Schema | None = None
        if "schema" in options:
            self._schema = self._checked(pl.Schema(options["schema"]))

    def _checked(self, schema: pl.Schema) -> pl.Schema:
        missing = [name for name in self._meta.values() if name not in schema]
        if missing:
            raise InvalidArgumentError(
                f"the schema has no column {', '.join(map(repr, missing))} for the metadata asked"
            )
        return schema

    def schema(self) -> pl.Schema:
        """Return the columns: the ``schema`` option, else those of the first records."""
        if self._schema is None:
            sample = self._options.get("sample_size", DEFAULT_SAMPLE)
            _validate.integer("sample_size", sample, 1, 100_000)
            options: ArrowOptions = {}
            for what, name in self._meta.items():
                options[what] = name  # type: ignore[literal-required]
            if self._options.get("mixed_types") is not None:
                options["mixed_types"] = self._options["mixed_types"]
            table = self._records.query().limit(sample).to_arrow(**options)
            inferred = pl.DataFrame(table).schema
            untyped = [n for n in self._meta.values() if inferred[n] == pl.Null]
            if untyped and table.num_rows:
                raise InvalidArgumentError(
                    f"column {untyped[0]!r} is null in the first {table.num_rows} records, so "
                    "its type is unknown (a key is stored only when written with send_key); "
                    "pass schema= to type it"
                )
            self._schema = pl.Schema(
                {n: t for n, t in inferred.items() if t != pl.Null or n in self._meta.values()}
            )
        return self._schema

    def read(
        self,
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        """Polars' call: the batches of ``with_columns``, filtered, at most ``n_rows`` rows."""
        schema = self.schema()
        names = list(schema) if with_columns is None else list(with_columns)
        needed = set(names)
        if predicate is not None:
            needed.update(predicate.meta.root_names())
        if not needed and schema:
            needed.add(next(iter(schema)))  # a row count still needs rows
        if n_rows == 0 or not needed:
            yield pl.DataFrame(schema=pl.Schema({n: schema[n] for n in names}))
            return
        columns = pl.Schema({n: t for n, t in schema.items() if n in needed})
        pushed = None
        if predicate is not None:
            mixed = self._options.get("mixed_types") is not None
            pushed = to_filter(predicate, _columns(columns, self._meta.get("key"), mixed=mixed))
        rows = self._options.get("batch_size") or min(batch_size or _arrow.DEFAULT_ROWS, 100_000)
        if n_rows is not None and predicate is not None:
            rows = min(rows, max(n_rows, 1024))  # stop soon after n rows passed
        left = n_rows
        for query, options in self._parts(columns, pushed, rows):
            if left is not None and predicate is None:
                query = query.limit(left)
            with query.arrow_batches(**options) as batches:
                for table in batches:
                    frame = _complete(pl.DataFrame(table), columns)
                    if predicate is not None:
                        frame = frame.filter(predicate)
                    if left is not None:
                        frame = frame.head(left)
                        left -= frame.height
                    yield frame.select(names)
                    if left == 0:
                        return

    def _parts(
        self, columns: pl.Schema, pushed: Exp | None, rows: int
    ) -> list[tuple[Query[Sync], ArrowOptions]]:
        """Return the queries reading ``columns`` of the records ``pushed`` keeps.

        A query naming bins is not sent the records holding none of them (as a real server
        does), so a second one reads those records' metadata only: their bins are all null.
        """
        meta = {what: name for what, name in self._meta.items() if name in columns}
        bins = [n for n in columns if n not in meta.values()]
        first = self._records.query() if bins else self._records.query().no_bins()
        parts = [(first, self._arrow_options(columns, meta, rows))]
        if bins:
            none = F.all_of(*(~F.bin_exists(b) for b in bins))
            rest = self._records.query().no_bins().where(none)
            kept = pl.Schema({n: t for n, t in columns.items() if n in meta.values()})
            if not meta:  # a column to count the rows by
                meta, kept = {"digest": _ROW}, pl.Schema({_ROW: pl.Binary})
            parts.append((rest, self._arrow_options(kept, meta, rows)))
        if pushed is not None:
            parts = [(query.where(pushed), options) for query, options in parts]
        return parts

    @staticmethod
    def _arrow_options(schema: pl.Schema, meta: Mapping[str, str], rows: int) -> ArrowOptions:
        options: ArrowOptions = {"schema": schema, "rows": rows}
        for what, name in meta.items():
            options[what] = name  # type: ignore[literal-required]
        return options


_ROW = "__aerospike_fluent_row"


def _complete(frame: pl.DataFrame, columns: pl.Schema) -> pl.DataFrame:
    """``frame`` with every one of ``columns``, in their order: those it lacks all null."""
    missing = [pl.lit(None, dtype=t).alias(n) for n, t in columns.items() if n not in frame]
    return (frame.with_columns(missing) if missing else frame).select(list(columns))
