"""No source file is longer than the house limit: every Rust file of every crate and every
Python file of the package, its benchmarks, examples and tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).parents[2]
MAX_LINES = 600
SOURCES = {
    "crates": ".rs",
    "aerospike_fluent": ".py",
    "benchmarks": ".py",
    "examples": ".py",
    "tests": ".py",
}
# Build output and environments hold files nobody wrote.
NOT_SOURCE = {"target", "__pycache__", "node_modules", "build", "dist"}


def source_files(top: Path, suffix: str) -> Iterator[Path]:
    for folder, subfolders, files in os.walk(top):
        subfolders[:] = [d for d in subfolders if d not in NOT_SOURCE and not d.startswith(".")]
        yield from (Path(folder, f) for f in files if f.endswith(suffix))


def test_every_tree_has_sources() -> None:
    empty = [top for top, suffix in SOURCES.items() if not any(source_files(ROOT / top, suffix))]
    assert empty == []


def test_no_source_file_is_over_the_limit() -> None:
    long = [
        f"{f.relative_to(ROOT)}: {n} lines"
        for top, suffix in SOURCES.items()
        for f in sorted(source_files(ROOT / top, suffix))
        if (n := len(f.read_text().splitlines())) > MAX_LINES
    ]
    assert long == []
