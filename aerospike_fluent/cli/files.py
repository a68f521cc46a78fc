"""Rows to files, through Arrow's writers: CSV, JSON lines and Parquet.

A file is written under a hidden name beside it and takes its own name when the rows are
complete, or when the query was interrupted (then it holds the rows read so far, closed
cleanly). A query that fails leaves no file.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Protocol

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pa_csv  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

from aerospike_fluent.cli.output import fail, plain, to_json

FILE_FORMATS = ("csv", "jsonl", "parquet")
SUFFIXES = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def format_of(path: str) -> str:
    """Return the file format a file name's suffix says."""
    fmt = SUFFIXES.get(Path(path).suffix.lower())
    if fmt is None:
        fail(f"cannot tell the format of {path!r} from its suffix: give --format csv|jsonl|parquet")
    return fmt


class _Rows(Protocol):
    def write(self, table: Any) -> None: ...
    def close(self) -> None: ...


class _Parquet:
    def __init__(self, path: str, schema: Any) -> None:
        self._writer = pq.ParquetWriter(path, schema)

    def write(self, table: Any) -> None:
        self._writer.write_table(table)

    def close(self) -> None:
        self._writer.close()


class _Csv:
    """Nested and binary columns become text: JSON, and bytes in base64."""

    def __init__(self, sink: str | IO[bytes], schema: Any) -> None:
        self._writer = pa_csv.CSVWriter(sink, as_text(schema.empty_table()).schema)

    def write(self, table: Any) -> None:
        self._writer.write_table(as_text(table))

    def close(self) -> None:
        self._writer.close()


class _JsonLines:
    """One JSON object per row; bytes in base64."""

    def __init__(self, sink: str | IO[bytes]) -> None:
        self._owned = isinstance(sink, str)
        self._sink: IO[bytes] = open(sink, "wb") if isinstance(sink, str) else sink  # noqa: SIM115

    def write(self, table: Any) -> None:
        lines = (to_json(row) + "\n" for row in table.to_pylist(maps_as_pydicts="lossy"))
        self._sink.write("".join(lines).encode())

    def close(self) -> None:
        self._sink.flush()
        if self._owned:
            self._sink.close()


def as_text(table: Any) -> Any:
    """``table`` with its nested and binary columns as JSON text (the CSV writer takes neither)."""
    columns = []
    for field, column in zip(table.schema, table.columns, strict=True):
        kind = field.type
        if (
            pa.types.is_nested(kind)
            or pa.types.is_binary(kind)
            or pa.types.is_large_binary(kind)
            or pa.types.is_fixed_size_binary(kind)
        ):
            values = column.to_pylist(maps_as_pydicts="lossy")
            texts = [None if v is None else _text(v) for v in values]
            columns.append(pa.array(texts, pa.string()))
        else:
            columns.append(column)
    return pa.table(columns, names=table.column_names)


def _text(value: object) -> str:
    shown = plain(value)
    return shown if isinstance(shown, str) else to_json(shown)


def _open(fmt: str, sink: str | IO[bytes], schema: Any) -> _Rows:
    if fmt == "parquet":
        if not isinstance(sink, str):
            fail("parquet is written to a file: give --output FILE")
        return _Parquet(sink, schema)
    if fmt == "csv":
        return _Csv(sink, schema)
    return _JsonLines(sink)


class Output:
    """Where a query's rows go: ``path`` (through a hidden file beside it) or stdout."""

    def __init__(self, fmt: str, path: str | None) -> None:
        self.fmt = fmt
        self.path = path
        self.rows = 0
        self._rows: _Rows | None = None
        self._partial = None if path is None else _hidden(path)

    def write(self, table: Any) -> None:
        """Write the rows of ``table`` (the first table fixes the columns).

        Ctrl-C waits for the rows to be written and counted, then interrupts.
        """
        with _ctrl_c_after():
            if self._rows is None:
                sink: str | IO[bytes] = self._partial if self._partial else sys.stdout.buffer
                self._rows = _open(self.fmt, sink, table.schema)
            self._rows.write(table)
            self.rows += table.num_rows

    def finish(self) -> None:
        """Close and give the file its name; no rows make an empty file."""
        if self._rows is None:
            self.write(pa.table({}))
        self._close(keep=True)

    def interrupted(self) -> bool:
        """Close what was written so far and give it its name; False when nothing was."""
        opened = self._rows is not None
        self._close(keep=opened)
        return opened

    def abandon(self) -> None:
        """Close and remove the partial file."""
        self._close(keep=False)

    def _close(self, *, keep: bool) -> None:
        rows, self._rows = self._rows, None
        try:
            if rows is not None:
                rows.close()
        finally:
            if self._partial is not None and self.path is not None:
                if keep:
                    os.replace(self._partial, self.path)
                elif os.path.exists(self._partial):
                    os.unlink(self._partial)


@contextmanager
def _ctrl_c_after() -> Iterator[None]:
    """Hold a Ctrl-C back until the block is done, then raise it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def _hidden(path: str) -> str:
    target = Path(path)
    return str(target.with_name(f".{target.name}.partial"))
