"""``query NS[.SET]``: records as a table in the terminal, or as CSV, JSON lines or Parquet."""

from __future__ import annotations

import signal
from typing import Any

import click
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
from rich.table import Table

from aerospike_fluent.cli import progress
from aerospike_fluent.cli.connection import Connection, connection_options
from aerospike_fluent.cli.files import FILE_FORMATS, Output, format_of
from aerospike_fluent.cli.output import INTERRUPTED, cell, fail, note, stdout
from aerospike_fluent.cli.targets import check_namespace, target
from aerospike_fluent.errors import AerospikeError, ArrowSchemaError
from aerospike_fluent.query import Query

TABLE_ROWS = 1000
"""Records a terminal table shows when no ``--limit`` is given."""


@click.command(name="query")
@click.argument("source", metavar="NS[.SET]")
@click.option(
    "--where", metavar="AEL", help="Keep the records this filter matches ('$.age >= 18')."
)
@click.option("--bins", metavar="A,B,...", help="Read only these bins.")
@click.option("--limit", type=click.IntRange(min=1), help="Stop after N records.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("table", *FILE_FORMATS)),
    help="table (the terminal), csv, jsonl or parquet (default: --output's suffix, else table).",
)
@click.option(
    "--output", "-o", metavar="FILE", help="Write to FILE (csv and jsonl go to stdout without it)."
)
@click.option(
    "--key",
    "key_column",
    metavar="NAME",
    help="Add the user key as column NAME (keys stored with the record).",
)
@click.option("--meta", is_flag=True, help="Add the generation and ttl columns.")
@click.option(
    "--mixed-types",
    is_flag=True,
    help="Make a bin with values of several types a column of their text.",
)
@click.option(
    "--batch-rows",
    type=click.IntRange(1, 100_000),
    default=4096,
    show_default=True,
    help="Rows read and written at a time.",
)
@click.option(
    "--records-per-second", type=click.IntRange(min=0), help="Pace the scan on each node."
)
@progress.quiet_option
@connection_options
def command(
    connection: Connection,
    source: str,
    where: str | None,
    bins: str | None,
    limit: int | None,
    fmt: str | None,
    output: str | None,
    key_column: str | None,
    meta: bool,
    mixed_types: bool,
    batch_rows: int,
    records_per_second: int | None,
    quiet: bool,
) -> None:
    """Read the records of NS.SET (or the whole namespace NS), filtered with --where."""
    fmt = fmt or (format_of(output) if output else "table")
    if fmt == "table" and output:
        fail("a table is for the terminal: give --format csv, jsonl or parquet with --output")
    if fmt == "parquet" and not output:
        fail("parquet is written to a file: give --output FILE")
    columns: dict[str, Any] = {"mixed_types": "str" if mixed_types else None}
    if key_column:
        columns["key"] = key_column
    if meta:
        columns.update(generation=True, ttl=True)
    named = target(source)
    with connection.open() as db:
        check_namespace(db, named.namespace)
        scope = db.namespace(named.namespace)
        query = (scope if named.set is None else scope.set(named.set)).query()
        most = limit or (TABLE_ROWS if fmt == "table" else None)
        query = _shaped(query, where, bins, most, records_per_second)
        try:
            with progress.reading(quiet) as report:
                query = query.on_progress(report)
                if fmt == "table":
                    _show(query.to_arrow(**columns), limit)
                else:
                    _write(query, Output(fmt, output), {**columns, "rows": batch_rows})
        except ArrowSchemaError as e:
            fail(_for_the_command_line(str(e)))


def _for_the_command_line(message: str) -> str:
    """Name the flag to give instead of the Python option an Arrow column error names."""
    reason, api_hint, _ = message.partition("; pass mixed_types=")
    return (
        f"{reason}; --mixed-types makes such a bin a column of their text" if api_hint else message
    )


def _shaped(
    query: Query[Any], where: str | None, bins: str | None, limit: int | None, pace: int | None
) -> Query[Any]:
    try:
        if where:
            query = query.where(where)
    except AerospikeError as e:
        fail(f"bad --where filter {where!r}: {e}")
    try:
        if bins:
            query = query.select(*[b.strip() for b in bins.split(",") if b.strip()])
        if limit:
            query = query.limit(limit)
        if pace:
            query = query.records_per_second(pace)
    except AerospikeError as e:
        fail(str(e))
    return query


def _show(data: Any, limit: int | None) -> None:
    rows = pa.table(data)
    if rows.num_rows == 0:
        note("no records")
        return
    table = Table(show_lines=False)
    for name in rows.column_names:
        table.add_column(name, overflow="fold")
    for row in rows.to_pylist(maps_as_pydicts="lossy"):
        table.add_row(*(cell(v) for v in row.values()))
    stdout.print(table)
    shown = f"{rows.num_rows:,} record(s)"
    if limit is None and rows.num_rows == TABLE_ROWS:
        shown += f": the first {TABLE_ROWS:,}; --limit N for more, --format csv for all"
    note(shown)


def _write(query: Query[Any], output: Output, options: dict[str, Any]) -> None:
    try:
        with query.arrow_batches(**options) as batches:
            for batch in batches:
                output.write(pa.table(batch))
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        kept = output.interrupted()
        where = output.path or "stdout"
        note(
            f"interrupted: {where} holds the {output.rows:,} record(s) read so far"
            if kept
            else "interrupted before any record: nothing written"
        )
        raise click.exceptions.Exit(INTERRUPTED) from None
    except BaseException:
        output.abandon()
        raise
    output.finish()
    if output.path:
        note(f"{output.rows:,} record(s) written to {output.path}")
