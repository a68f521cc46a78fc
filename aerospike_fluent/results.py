"""Result containers: batch results that keep per-record errors, query pages."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, overload

from aerospike_fluent._native import BatchRow, Record
from aerospike_fluent._types import Key

Mapping.register(Record)  # a read-only mapping of its bins: len, iteration, keys(), dict(rec)

NOT_FOUND = 2
# a row its request never answered (a ClientError; docs/internals/native-plan.md)
NO_RESPONSE = -15


class BatchResult(Sequence[BatchRow]):
    """Rows of a batch in request order; a failed row does not fail the others.

    A missing record in a *read* row is not an error: its ``record`` is ``None``.
    """

    __slots__ = ("_missing_ok", "_rows")

    def __init__(self, rows: list[BatchRow], missing_ok: Sequence[bool] | bool) -> None:
        self._rows = rows
        self._missing_ok = missing_ok

    @overload
    def __getitem__(self, i: int) -> BatchRow: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[BatchRow]: ...
    def __getitem__(self, i: int | slice) -> BatchRow | Sequence[BatchRow]:
        return self._rows[i]

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[BatchRow]:
        return iter(self._rows)

    def __repr__(self) -> str:
        return f"BatchResult({len(self._rows)} rows, {len(self.errors)} errors)"

    def _is_error(self, i: int, row: BatchRow) -> bool:
        if row.error is None and row.result_code == 0:
            return False
        ok = self._missing_ok if isinstance(self._missing_ok, bool) else self._missing_ok[i]
        return not (ok and row.result_code == NOT_FOUND)

    @property
    def records(self) -> list[Record | None]:
        """The record of each row (``None`` for missing records and failed rows)."""
        return [row.record for row in self._rows]

    @property
    def keys(self) -> list[Key]:
        """The key of each row."""
        return [row.key for row in self._rows]

    def by_key(self, user_key: str | int | bytes) -> BatchRow:
        """Return the (first) row of ``user_key``; ``KeyError`` when no row has it."""
        for row in self._rows:
            if row.key[2] == user_key and type(row.key[2]) is type(user_key):
                return row
        raise KeyError(user_key)

    @property
    def errors(self) -> list[BatchRow]:
        """The rows that failed."""
        return [row for i, row in enumerate(self._rows) if self._is_error(i, row)]

    @property
    def ok(self) -> bool:
        """True when no row failed."""
        return not any(self._is_error(i, row) for i, row in enumerate(self._rows))

    def raise_on_error(self) -> BatchResult:
        """Raise the first row's error (noting how many rows failed); else return ``self``."""
        failed = self.errors
        if not failed:
            return self
        first = failed[0]
        error = first.error
        if error is None:  # the native row carries a result code without an exception
            from aerospike_fluent.errors import error_for_code

            error = error_for_code(first.result_code, "batch row failed", key=first.key)
        note = f"{len(failed) - 1} more of {len(self._rows)} batch rows failed"
        if len(failed) > 1 and note not in getattr(error, "__notes__", ()):
            error.add_note(note)
        raise error


def whole(rows: list[BatchRow], missing_ok: Sequence[bool] | bool) -> BatchResult:
    """Return the rows as a :class:`BatchResult`, unless a node's part of the batch failed.

    A node that failed as a whole (timeout, lost connection, an error that stopped its reply,
    rows left unanswered) raises its error, the batch's result as its ``partial``; a row's own
    outcome (not found, filtered out, generation) stays on the row.
    """
    result = BatchResult(rows, missing_ok)
    failed = [row for row in rows or () if row.node_failed and row.error is not None]
    if not failed:
        return result
    # the node's own error before a row that only went unanswered
    first = next((row for row in failed if row.result_code != NO_RESPONSE), failed[0])
    error = first.error
    assert error is not None
    error.partial = result
    if len(failed) > 1:
        error.add_note(
            f"{len(failed)} of {len(rows)} batch rows failed with their node; "
            "the answered rows are in .partial"
        )
    raise error


R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Page(Generic[R]):
    """One page of a query: its records and the token resuming after them.

    Records are instances after ``query().as_(Model)``; ``token`` is ``None`` when the query is
    exhausted.
    """

    records: list[R]
    token: bytes | None

    def __iter__(self) -> Iterator[R]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)
