"""A set as a Dask DataFrame: one task per partition range, each reading from its own worker.

Example:
    >>> import aerospike_fluent as af
    >>> from dask.distributed import Client
    >>> client = Client()                       # or a cluster's scheduler address
    >>> df = af.dask.read_set("10.0.0.1:3000", "test", "users", partitions=32,
    ...                       bins=["age", "country"], where="$.age >= 18")
    >>> df.groupby("country").age.mean().compute()

Needs ``pip install 'aerospike-fluent[dask]'`` (dask, distributed, pyarrow, pandas). Importing
``aerospike_fluent`` does not import dask; ``af.dask`` loads this module on first use.

"""

from __future__ import annotations

import pickle
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from aerospike_fluent import _validate, sync
from aerospike_fluent._exec import Sync
from aerospike_fluent._seeds import EMBEDDED, seeds_string
from aerospike_fluent.client import Client
from aerospike_fluent.errors import ArrowSchemaError, InvalidArgumentError, InvalidTypeError
from aerospike_fluent.exp import Exp
from aerospike_fluent.partitions import partition_ranges

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd

__all__ = ["read_set"]

DEFAULT_PARTITIONS = 16
DEFAULT_SAMPLE = 1000
DEFAULT_ROWS = 1024
"""Rows per record batch (the chunk fetched) in a task: a range's scan costs more per record as
this grows (16 ranges of 200,000 records: 1.5 µs of CPU per record at 1024, 2.2 at 4096)."""


class ReadRange:
    """One task: connect, read partitions ``[begin, begin + count)``, return pandas.

    Picklable (it is what the scheduler ships to the workers): the seeds, names, bins, the
    filter (an expression or AEL text), Arrow options, connect options and the columns.
    """

    __slots__ = (
        "arrow",
        "bins",
        "namespace",
        "options",
        "schema",
        "seeds",
        "set_name",
        "token",
        "where",
    )

    def __init__(
        self,
        seeds: str,
        namespace: str,
        set_name: str,
        bins: tuple[str, ...] | None,
        where: Exp | str | None,
        arrow: dict[str, Any],
        options: dict[str, Any],
        schema: Any,
    ) -> None:
        self.seeds = seeds
        self.namespace = namespace
        self.set_name = set_name
        self.bins = bins
        self.where = where
        self.arrow = arrow
        self.options = options
        self.schema = schema
        self.token = uuid.uuid4().hex

    def __dask_tokenize__(self) -> tuple[str, str]:
        """Each ``read_set`` call is a read of its own (the set may have changed since)."""
        return ("aerospike-read", self.token)

    def __repr__(self) -> str:
        return f"ReadRange({self.seeds!r}, {self.namespace!r}, {self.set_name!r})"

    def table(self, db: Client[Sync], part: tuple[int, int] | None, limit: int = 0) -> Any:
        """Read one range (or, with ``part=None``, the first ``limit`` records) as pyarrow."""
        q = db.namespace(self.namespace).set(self.set_name).query()
        if part is not None:
            q = q.partitions(*part)
        if limit:
            q = q.limit(limit)
        if self.bins is not None:
            q = q.select(*self.bins)
        if self.where is not None:
            q = q.where(self.where)
        return q.to_arrow(**self.arrow).to_pyarrow()

    def __call__(self, part: tuple[int, int]) -> pd.DataFrame:
        """Read partitions ``part = (begin, count)`` in this process, as the columns agreed."""
        import pandas as pd

        with sync.connect(self.seeds, **self.options) as db:
            table = self.table(db, part)
        frame: pd.DataFrame = conform(table, self.schema, part).to_pandas(
            types_mapper=pd.ArrowDtype
        )
        return frame


def conform(table: Any, schema: Any, part: tuple[int, int]) -> Any:
    """Bring one range's inferred columns to the agreed ``schema`` (nulls where a bin is absent).

    A bin the schema lacks, or values that do not cast to its column's type, raise
    :class:`ArrowSchemaError` naming the bin: the sample did not show the set's real columns.
    """
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    if table.schema.equals(schema):
        return table
    where = f"partitions {part[0]}-{part[0] + part[1] - 1}"
    extra = [name for name in table.column_names if schema.get_field_index(name) < 0]
    if extra:
        raise ArrowSchemaError(
            f"bin(s) {', '.join(map(repr, extra))} in {where} are not columns of the sample; "
            "pass schema= (or bins=) naming every column"
        )
    columns = []
    for field in schema:
        if table.schema.get_field_index(field.name) < 0:
            columns.append(pa.nulls(table.num_rows, field.type))
            continue
        column = table.column(field.name)
        try:
            columns.append(column.cast(field.type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise ArrowSchemaError(
                f"bin {field.name!r} in {where}: {column.type} values do not fit the column "
                f"type {field.type} (from the sample); pass schema=: {exc}"
            ) from exc
    return pa.Table.from_arrays(columns, schema=schema)


def read_set(
    seeds: str | Sequence[str | tuple[str, int]] | None,
    namespace: str,
    set_name: str,
    *,
    partitions: int = DEFAULT_PARTITIONS,
    bins: Sequence[str] | None = None,
    where: Exp | str | None = None,
    schema: Any = None,
    meta: pd.DataFrame | None = None,
    sample: int = DEFAULT_SAMPLE,
    rows: int = DEFAULT_ROWS,
    key: bool | str = False,
    digest: bool | str = False,
    generation: bool | str = False,
    ttl: bool | str = False,
    mixed_types: Literal["str"] | None = None,
    **options: Any,
) -> dd.DataFrame:
    """Read a set as a Dask DataFrame of ``partitions`` parts, one task per partition range.

    Each task connects its own sync client (``af.sync.connect(seeds, **options)``) in the
    worker that runs it, reads its range of the 4096 partitions
    (:func:`~aerospike_fluent.partition_ranges`) with ``query().partitions(b, c).to_arrow()``,
    and returns it as pandas with Arrow-backed dtypes (``pd.ArrowDtype``), so every part has
    the same column types whatever its values.

    Args:
        seeds: the cluster, as for :func:`aerospike_fluent.connect` (resolved here, so
            ``None`` means this process's ``AEROSPIKE_HOST``); every worker must reach it.
            ``embedded://`` is refused: each worker would start a server of its own.
        namespace: the namespace.
        set_name: the set.
        partitions: how many parts (tasks), 1-4096.
        bins: read only these bins (``select()``).
        where: a filter run by the servers: an expression (``F.bin("age") >= 18``) or AEL
            text (``"$.age >= 18"``); both are shipped to the tasks as they are.
        schema: a pyarrow schema of the columns; without it (and without ``meta``) the columns
            and their types come from the first ``sample`` records, read here.
        meta: an empty pandas DataFrame of the columns instead of ``schema``.
        sample: records read here to infer the columns (and to check the set can be read).
        rows: rows per record batch (the chunk fetched) in each task, 1-100000.
        key: add the user key column (``True`` or a column name); ``digest``, ``generation``
            and ``ttl`` likewise.
        digest: see ``key``.
        generation: see ``key``.
        ttl: see ``key``.
        mixed_types: ``"str"``: a bin of several types becomes a string column.
        **options: connect options (``user``, ``password``, ``tls_ca_file``, timeouts...);
            they must pickle.

    Raises:
        InvalidArgumentError: a bad argument (``partitions`` out of range, unpicklable
            options...), before any task runs; errors of the sample read (an unknown
            namespace, an unreachable cluster) are raised here too.

    """
    import dask.dataframe as dd
    import pandas as pd

    ranges = partition_ranges(partitions)
    _validate.integer("sample", sample, 1, 100_000)
    if isinstance(seeds, str) and seeds.strip().startswith(EMBEDDED):
        raise InvalidArgumentError(
            "read_set needs a server every worker reaches: embedded:// would start one per "
            "worker; start an EmbeddedServer and pass its seeds"
        )
    seeds_text = seeds_string(seeds)
    if where is not None and not isinstance(where, Exp | str):
        raise InvalidTypeError(
            f"where= takes an expression or AEL text, not {type(where).__name__}"
        )
    arrow: dict[str, Any] = {
        name: value
        for name, value in (
            ("key", key),
            ("digest", digest),
            ("generation", generation),
            ("ttl", ttl),
            ("mixed_types", mixed_types),
        )
        if value
    }
    arrow["rows"] = _validate.integer("rows", rows, 1, 100_000)
    names = None if bins is None else tuple(bins)
    task = ReadRange(seeds_text, namespace, set_name, names, where, arrow, dict(options), None)
    _check_pickles(task)
    if schema is not None and meta is not None:
        raise InvalidArgumentError("read_set takes schema= or meta=, not both")
    if schema is not None:
        arrow["schema"] = schema  # read natively as these columns, in every task
    with sync.connect(seeds_text, **options) as db:
        # also checks the names, the filter, the namespace and that the cluster answers
        given = schema is not None or meta is not None
        inferred = task.table(db, None, 1 if given else sample).schema
    task.schema = _columns(inferred, meta)
    pickle.dumps(task)
    empty = task.schema.empty_table().to_pandas(types_mapper=pd.ArrowDtype)
    frame: dd.DataFrame = dd.from_map(  # type: ignore[no-untyped-call]
        task, ranges, meta=empty, label="aerospike-read", enforce_metadata=False
    )
    return frame


def _columns(schema: Any, meta: pd.DataFrame | None) -> Any:
    import pyarrow as pa

    if meta is not None:
        schema = pa.Schema.from_pandas(meta, preserve_index=False)
    untyped = [f.name for f in schema if pa.types.is_null(f.type)]
    if untyped:
        raise InvalidArgumentError(
            f"column(s) {', '.join(map(repr, untyped))} have no type (no value in the sample, "
            "or an object column of meta=); pass schema= with their types"
        )
    return schema


def _check_pickles(task: ReadRange) -> None:
    for name, value in (("where", task.where), *task.options.items()):
        try:
            pickle.dumps(value)
        except Exception as exc:
            raise InvalidArgumentError(
                f"{name}= does not pickle, so it cannot be sent to the workers: {exc}"
            ) from exc
