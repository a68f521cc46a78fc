"""Files to rows, through Arrow's readers: CSV, JSON lines and Parquet, streamed where Arrow can."""

from __future__ import annotations

from typing import Any, NamedTuple

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pa_csv  # type: ignore[import-untyped, unused-ignore]
import pyarrow.json as pa_json  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

from aerospike_fluent.cli.output import fail


class Source(NamedTuple):
    """A file's rows as a record batch reader, and their count when the file says it."""

    reader: Any
    rows: int | None

    @property
    def columns(self) -> list[str]:
        """The column names."""
        return list(self.reader.schema.names)


def open_source(path: str, fmt: str) -> Source:
    """Open ``path`` as ``fmt``; a file that cannot be read stops the command, naming why."""
    try:
        if fmt == "csv":
            return Source(_csv(path), None)
        if fmt == "jsonl":
            table = _json_lines(path)
            return Source(
                pa.RecordBatchReader.from_batches(table.schema, table.to_batches()), table.num_rows
            )
        parquet = pq.ParquetFile(path)
        return Source(
            pa.RecordBatchReader.from_batches(parquet.schema_arrow, parquet.iter_batches()),
            parquet.metadata.num_rows,
        )
    except (OSError, pa.ArrowException) as e:
        fail(f"cannot read {path} as {fmt}: {e}")


def _csv(path: str) -> Any:
    """Stream a CSV file, keeping as their text the dates and times Arrow would infer.

    No bin holds a date; the text the file has is what a record can keep of it.
    """
    inferred = pa_csv.open_csv(path).schema
    as_text = {f.name: pa.string() for f in inferred if _untimed(f.type) != f.type}
    return pa_csv.open_csv(path, convert_options=pa_csv.ConvertOptions(column_types=as_text))


def _json_lines(path: str) -> Any:
    """Read a JSON lines file, keeping as their text the dates and times Arrow would infer."""
    table = pa_json.read_json(path)
    schema = pa.schema([f.with_type(_untimed(f.type)) for f in table.schema])
    if schema == table.schema:
        return table
    return pa_json.read_json(path, parse_options=pa_json.ParseOptions(explicit_schema=schema))


def _untimed(kind: Any) -> Any:
    """``kind`` with string wherever it holds a date, time or timestamp."""
    if pa.types.is_temporal(kind):
        return pa.string()
    if pa.types.is_struct(kind):
        return pa.struct([f.with_type(_untimed(f.type)) for f in kind])
    if pa.types.is_list(kind):
        return pa.list_(kind.value_field.with_type(_untimed(kind.value_type)))
    return kind
