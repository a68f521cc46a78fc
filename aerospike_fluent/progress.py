"""Progress of long reads: ``query.on_progress(callback)``, or ``on_progress("tqdm")`` for a bar.

The callback gets a :class:`Progress` after every chunk and once more when the read ends
(``done=True``, also when it stopped early or failed). Bulk writes (``put_arrow(...,
progress=...)``) report a :class:`WriteProgress` the same way.

Example:
    >>> table = await users.query().on_progress("tqdm").to_arrow()
    >>> def show(p: Progress) -> None:
    ...     print(f"{p.records} records, {p.partitions}/{p.partitions_total} partitions")
    >>> rows = await users.query().on_progress(show).collect()

"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from aerospike_fluent.errors import InvalidTypeError

if TYPE_CHECKING:
    from aerospike_fluent._native import QueryStream


class Progress(NamedTuple):
    """How far a read is.

    Attributes:
        records: records handed out so far.
        partitions: partitions those records came from; every partition once the read ended
            with all its records.
        partitions_total: partitions the read covers (4096 for a whole set).
        done: the read ended (all read, stopped early, or failed).

    """

    records: int
    partitions: int
    partitions_total: int
    done: bool


ProgressCallback = Callable[[Progress], object]
"""Called with a :class:`Progress` after each chunk and when the read ends."""

OnProgress = ProgressCallback | Literal["tqdm"]


class ProgressBar:
    """A tqdm bar (``tqdm.auto``: a widget in notebooks) as a progress callback.

    The bar counts partitions, so it has a total and an ETA; the record count is its postfix.
    Closed when the read ends. Keyword arguments go to ``tqdm``.
    """

    __slots__ = ("_bar", "_options")

    def __init__(self, **tqdm_options: Any) -> None:
        self._options = tqdm_options
        self._bar: Any = None

    def __call__(self, p: Progress) -> None:
        """Move the bar to ``p``."""
        if self._bar is None:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                raise ModuleNotFoundError(
                    "on_progress('tqdm') needs tqdm: pip install 'aerospike-fluent[dataframes]'"
                ) from None
            options = {"unit": "partition", "desc": "reading", **self._options}
            self._bar = tqdm(total=p.partitions_total, **options)
        bar = self._bar
        bar.set_postfix(records=p.records, refresh=False)
        bar.update(p.partitions - bar.n)
        if p.done:
            bar.close()


class WriteProgress(NamedTuple):
    """How far a bulk write is.

    Attributes:
        rows: rows sent so far (written or failed).
        failed: rows that failed so far.
        rows_total: rows to write, when the input says (else ``None``).
        done: the write ended.

    """

    rows: int
    failed: int
    rows_total: int | None
    done: bool


WriteProgressCallback = Callable[[WriteProgress], object]
"""Called with a :class:`WriteProgress` after each round of batches and when the write ends."""

OnWriteProgress = WriteProgressCallback | Literal["tqdm"]


class WriteBar:
    """A tqdm bar of rows written, closed when the write ends."""

    __slots__ = ("_bar",)

    def __init__(self) -> None:
        self._bar: Any = None

    def __call__(self, p: WriteProgress) -> None:
        """Move the bar to ``p``."""
        if self._bar is None:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                raise ModuleNotFoundError(
                    "progress='tqdm' needs tqdm: pip install 'aerospike-fluent[dataframes]'"
                ) from None
            self._bar = tqdm(total=p.rows_total, unit="row", desc="writing")
        bar = self._bar
        bar.set_postfix(failed=p.failed, refresh=False)
        bar.update(p.rows - bar.n)
        if p.done:
            bar.close()


def write_callback(progress: OnWriteProgress | None) -> WriteProgressCallback | None:
    """Return the callback of one bulk write (a fresh bar for ``"tqdm"``)."""
    if progress == "tqdm":
        return WriteBar()
    if progress is None or callable(progress):
        return progress
    raise InvalidTypeError("progress takes a callable, 'tqdm' or None")


def callback(on_progress: OnProgress | None) -> ProgressCallback | None:
    """Return the callback for one read (a fresh bar for ``"tqdm"``)."""
    if on_progress == "tqdm":
        return ProgressBar()
    return on_progress


def check(on_progress: object) -> OnProgress | None:
    """Validate what ``on_progress()`` was given."""
    if on_progress is None or on_progress == "tqdm" or callable(on_progress):
        return on_progress
    raise InvalidTypeError("on_progress() takes a callable, 'tqdm' or None")


def report(cb: ProgressCallback | None, stream: QueryStream, records: int, done: bool) -> None:
    """Tell ``cb`` (if any) how far ``stream`` is, ``records`` having been handed out."""
    if cb is not None:
        _, partitions, total = stream.progress()
        cb(Progress(records, partitions, total, done))


__all__ = [
    "OnProgress",
    "OnWriteProgress",
    "Progress",
    "ProgressBar",
    "ProgressCallback",
    "WriteBar",
    "WriteProgress",
    "WriteProgressCallback",
]
