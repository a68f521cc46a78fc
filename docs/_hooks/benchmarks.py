"""MkDocs hook: put the benchmark engineer's latest results into the performance page.

``docs/performance.md`` contains the marker ``<!-- benchmark-results -->``. When
``benchmarks/results/latest.md`` exists (written by ``make bench``), the marker is replaced by its
table (headings demoted one level) and ``benchmarks/results/latest.png`` is published as
``assets/benchmarks/latest.png``. Otherwise the page says how to produce them. No number is ever
written by hand into the docs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

MARKER = "<!-- benchmark-results -->"
ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
CHART_URI = "assets/benchmarks/latest.png"

MISSING = """!!! note "No results yet"
    This build of the documentation found no `benchmarks/results/latest.md`. Run `make bench`
    (or `make bench-quick`) on your machine, then rebuild the docs with `make docs`: the table and
    the chart are included from the files the benchmark writes, never copied by hand.
"""


def on_files(files: Files, config: Any, **_: Any) -> Files:
    """Publish the chart when the benchmark produced one."""
    chart = RESULTS / "latest.png"
    if chart.is_file():
        files.append(File.generated(config, CHART_URI, abs_src_path=str(chart)))
    return files


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the marker with the latest table (or with how to produce it)."""
    if MARKER not in markdown:
        return markdown
    table = RESULTS / "latest.md"
    if not table.is_file():
        return markdown.replace(MARKER, MISSING)
    text = re.sub(r"(?m)^(#{1,5}) ", r"#\1 ", table.read_text(encoding="utf-8"))
    parts = [text.strip()]
    if (RESULTS / "latest.png").is_file():
        parts.append(f"![Benchmark chart]({CHART_URI})")
    return markdown.replace(MARKER, "\n\n".join(parts))
