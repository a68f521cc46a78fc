"""``import NS.SET FILE --key COLUMN``: the rows of a CSV, JSON lines or Parquet file as records."""

from __future__ import annotations

from typing import cast

import click
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

from aerospike_fluent import _native
from aerospike_fluent._arrow_write import ArrowWriteResult, WriteMode
from aerospike_fluent._types import Key
from aerospike_fluent.cli import progress
from aerospike_fluent.cli.connection import Connection, connection_options
from aerospike_fluent.cli.files import FILE_FORMATS, format_of
from aerospike_fluent.cli.output import INTERRUPTED, fail, note
from aerospike_fluent.cli.sources import Source, open_source
from aerospike_fluent.cli.targets import Target, check_namespace, target
from aerospike_fluent.errors import AerospikeError
from aerospike_fluent.progress import WriteProgress

REASONS_SHOWN = 5


@click.command(name="import")
@click.argument("destination", metavar="NS.SET")
@click.argument("file")
@click.option(
    "--key",
    "key_column",
    required=True,
    metavar="COLUMN",
    help="The column of user keys; every other column is a bin.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FILE_FORMATS),
    help="The file's format (default: from its suffix).",
)
@click.option(
    "--mode",
    type=click.Choice(("upsert", "insert", "update", "replace")),
    default="upsert",
    show_default=True,
    help="insert refuses rows whose record exists; update refuses rows whose record does not.",
)
@click.option(
    "--send-key/--no-send-key",
    default=True,
    show_default=True,
    help="Store the user key with the record.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1, 5000),
    default=5000,
    show_default=True,
    help="Rows per batch request.",
)
@click.option("--dry-run", is_flag=True, help="Read and check every row; write nothing.")
@progress.quiet_option
@connection_options
def command(
    connection: Connection,
    destination: str,
    file: str,
    key_column: str,
    fmt: str | None,
    mode: str,
    send_key: bool,
    batch_size: int,
    dry_run: bool,
    quiet: bool,
) -> None:
    """Write every row of FILE (CSV, JSON lines, Parquet) as a record of NS.SET."""
    named = target(destination, need_set=True)
    source = open_source(file, fmt or format_of(file))
    if key_column not in source.columns:
        fail(
            f"no column {key_column!r} in {file} for --key: its columns are "
            + ", ".join(source.columns)
        )
    with connection.open() as db:
        check_namespace(db, named.namespace)
        if dry_run:
            _dry_run(named, file, source, key_column, batch_size)
            return
        records = db.namespace(named.namespace).set(str(named.set))
        sent = [0]
        with progress.writing(quiet, source.rows) as bar:

            def report(p: WriteProgress) -> None:
                sent[0] = p.rows - p.failed
                if bar is not None:
                    bar(p)

            try:
                result = records.put_arrow(
                    source.reader,
                    key=key_column,
                    mode=cast(WriteMode, mode),
                    send_key=send_key,
                    batch_size=batch_size,
                    progress=report,
                )
            except (AerospikeError, pa.ArrowException) as e:
                fail(f"{e} ({sent[0]:,} row(s) were written before it)")
            except KeyboardInterrupt:
                note(f"interrupted: {sent[0]:,} row(s) of {file} were written to {named}")
                raise click.exceptions.Exit(INTERRUPTED) from None
    _summary(named, file, result)


def _dry_run(named: Target, file: str, source: Source, key_column: str, batch_size: int) -> None:
    rows = 0
    try:
        writer = _native.ArrowWriter(source.reader, named.namespace, str(named.set), key_column)
        while (chunk := writer.next_chunk(batch_size)) is not None:
            rows += len(chunk)
    except (AerospikeError, pa.ArrowException) as e:
        fail(f"{file}: {e}")
    bins = [c for c in source.columns if c != key_column]
    click.echo(
        f"dry run: {rows:,} row(s) of {file} would be written to {named} "
        f"(key {key_column}; bins {', '.join(bins) or 'none'}); nothing was written"
    )


def _summary(named: Target, file: str, result: ArrowWriteResult) -> None:
    click.echo(
        f"{result.written:,} row(s) of {file} written to {named}; {len(result.failed):,} refused"
    )
    for key, error in result.failed[:REASONS_SHOWN]:
        click.echo(f"  key {_key_text(key)}: {type(error).__name__}: {error}")
    if len(result.failed) > REASONS_SHOWN:
        click.echo(f"  ... and {len(result.failed) - REASONS_SHOWN:,} more")
    if result.failed:
        note("some rows were refused")
        raise click.exceptions.Exit(1)


def _key_text(key: Key) -> str:
    user_key, digest = key[2], key[3]
    if user_key is not None:
        return repr(user_key)
    return "digest " + (digest or b"").hex()
