"""Progress bars on stderr, drawn only when stderr is a terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from aerospike_fluent.cli.output import stderr
from aerospike_fluent.progress import Progress as ReadProgress
from aerospike_fluent.progress import WriteProgress

quiet_option = click.option("--quiet", "-q", is_flag=True, help="No progress bar on stderr.")


def _bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
    )


def _shown(quiet: bool) -> bool:
    return not quiet and stderr.is_terminal


@contextmanager
def reading(quiet: bool) -> Iterator[Callable[[ReadProgress], None] | None]:
    """Yield a query's progress callback: partitions done, records read."""
    if not _shown(quiet):
        yield None
        return
    with _bar() as bar:
        task = bar.add_task("partitions", total=4096, detail="")

        def update(p: ReadProgress) -> None:
            bar.update(
                task,
                completed=p.partitions,
                total=p.partitions_total,
                detail=f"{p.records:,} records",
            )

        yield update


@contextmanager
def writing(quiet: bool, total: int | None) -> Iterator[Callable[[WriteProgress], None] | None]:
    """Yield an import's progress callback: rows sent, rows refused."""
    if not _shown(quiet):
        yield None
        return
    with _bar() as bar:
        task = bar.add_task("rows", total=total, detail="")

        def update(p: WriteProgress) -> None:
            bar.update(task, completed=p.rows, detail=f"{p.failed:,} refused")

        yield update
