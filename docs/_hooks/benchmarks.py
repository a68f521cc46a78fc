"""MkDocs hook: put the benchmark engineer's latest results into the performance page.

``docs/performance.md`` carries markers that this hook replaces from the files in
``benchmarks/results/`` (written by ``make bench`` and ``python -m benchmarks.scans``):

- ``<!-- benchmark-summary -->``: ratio tables computed from ``latest.json``, plus
  ``concurrency.json`` (the concurrent workloads against another server) and the newest table of
  ``scans.md`` (scans, queries and Arrow) when they exist;
- ``<!-- benchmark-chart -->``: ``latest.png``, published as ``assets/benchmarks/latest.png``;
- ``<!-- benchmark-results -->``: every table of ``latest.md``, in a collapsed block;
- ``<!-- benchmark-secured -->``: the plain / login / login+TLS table of ``secured.md``.

Without results the summary says how to produce them. No number is ever written by hand into
the docs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

SUMMARY = "<!-- benchmark-summary -->"
CHART = "<!-- benchmark-chart -->"
RESULTS_MARKER = "<!-- benchmark-results -->"
SECURED = "<!-- benchmark-secured -->"
MARKERS = (SUMMARY, CHART, RESULTS_MARKER, SECURED)

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
CHART_URI = "assets/benchmarks/latest.png"

MISSING = """!!! note "No results yet"
    This build of the documentation found no `benchmarks/results/latest.json`. Run `make bench`
    (or `make bench-quick`) on your machine, then rebuild the docs with `make docs`: the tables
    and the chart are made from the files the benchmark writes, never copied by hand.
"""

C_CLIENT = "c"
SDK_ASYNC = "sdk-async"

# Columns of the table against the C client: this SDK's variants, in the harness's client ids.
VS_C_COLUMNS = (
    ("ours-sync", "sync"),
    ("ours-async", "async"),
    ("ours-autobatch", "async, `auto_batch=True`"),
    ("ours-sync-nospin", "sync, `spin_wait=0`"),
    ("ours-async-nospin", "async, `spin_wait=0`"),
)

# Columns of the table against aerospike-sdk's async fast path (many calls in flight).
VS_SDK_COLUMNS = (
    ("ours-async", "async"),
    ("ours-autobatch", "async, `auto_batch=True`"),
)

# Row labels of the workloads the harness knows (others keep their title).
WORKLOAD_LABELS = {
    "put": "put",
    "get": "get",
    "exists": "exists",
    "operate": "operate (three operations on one key)",
    "batch100": "batch read of 100 keys",
    "batch1000": "batch read of 1,000 keys",
    "scan": "scan of the whole set",
    "query": "secondary-index query",
    "t8_get": "get, 8 threads sharing one client",
    "t8_put": "put, 8 threads sharing one client",
    "c50_get": "get, 50 tasks in flight",
    "c50_put": "put, 50 tasks in flight",
    "c256_get": "get, 256 tasks in flight",
    "c256_put": "put, 256 tasks in flight",
}

# Rows of the scans table: label, then the sync and the async workload of benchmarks/scans.py.
SCAN_ROWS = (
    ("stream every record", "sync_scan", "async_scan"),
    ("stream every record and read its bins", "sync_bins", "async_bins"),
    ("secondary-index query, streamed", "sync_query", "async_query"),
    ("`to_arrow()` (C client: scan, then `Table.from_pylist`)", "sync_arrow", "async_arrow"),
    ("`arrow_batches()` (C client: as above)", "sync_batches", "async_batches"),
)


def on_files(files: Files, config: Any, **_: Any) -> Files:
    """Publish the chart when the benchmark produced one."""
    chart = RESULTS / "latest.png"
    if chart.is_file():
        files.append(File.generated(config, CHART_URI, abs_src_path=str(chart)))
    return files


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace each marker with what the result files say (or with how to produce them)."""
    if not any(marker in markdown for marker in MARKERS):
        return markdown
    latest = _load_json(RESULTS / "latest.json")
    replacements = {
        SUMMARY: summary(latest) if latest is not None else MISSING,
        CHART: _chart(),
        RESULTS_MARKER: _all_tables(),
        SECURED: _secured(),
    }
    for marker, text in replacements.items():
        markdown = markdown.replace(marker, text)
    return markdown


# ------------------------------------------------------------------------------------ summary
def summary(latest: dict[str, Any]) -> str:
    """Build the ratio tables of one run (``latest.json``) and of the result files next to it."""
    parts = [_run_line(latest)]
    vs_c = _vs_c_table(latest)
    if vs_c:
        parts += [
            "**Against the official C client** (`aerospike`, blocking): how many times as fast "
            "(above 1 = faster), from each call's latency, from operations per second with 8 "
            "threads, from records per second for the scan:",
            vs_c,
        ]
    runs = [latest]
    other = _load_json(RESULTS / "concurrency.json")
    if other is not None:
        runs.append(other)
    vs_sdk = _vs_sdk_table(runs)
    if vs_sdk:
        parts += [
            "**Many asyncio calls in flight: throughput, times that of aerospike-sdk's async "
            "fast path** (`session.get` / `session.put`; the C client has no asyncio API):",
            vs_sdk,
        ]
        if other is not None:
            parts.append(_run_line(other, prefix="The last two columns: ", packages=False))
    scans = _scans_table(RESULTS / "scans.md")
    if scans:
        parts += scans
    memory = latest.get("memory")
    if isinstance(memory, dict) and memory.get("ok") and memory.get("growth_mb") is not None:
        parts.append(
            f"**Memory:** streaming {int(memory.get('records', 0)):,} records through "
            f"`async for` grew the process's resident memory by {memory['growth_mb']} MB."
        )
    return "\n\n".join(parts)


def _run_line(run: dict[str, Any], prefix: str = "Latest run: ", packages: bool = True) -> str:
    """Say when, against which server and with which versions a result file was made."""
    meta = run.get("meta", {})
    bits = [
        f"{meta.get('date', '?')}",
        _server_name(run),
        f"{meta.get('rounds', '?')} rounds (median)",
        f"{meta.get('cpus', '?')} CPUs",
    ]
    if meta.get("python"):
        bits.append(f"Python {meta['python']}")
    versions = (meta.get("packages") or {}) if packages else {}
    compared = [f"{name} {version}" for name, version in versions.items() if name != "aerospike"]
    if versions.get("aerospike"):
        compared.insert(0, f"the C client `aerospike` {versions['aerospike']}")
    if compared:
        bits.append("packages: " + ", ".join(compared))
    return f"*{prefix}" + " · ".join(bits) + ".*"


def _server_name(run: dict[str, Any]) -> str:
    server = str(run.get("meta", {}).get("server", ""))
    if server.startswith("embedded"):
        return "the embedded server (release binary, its own process)"
    if server.startswith("external"):
        return "a separate Aerospike server (`--host`)"
    return server or "?"


def _short_server(run: dict[str, Any]) -> str:
    server = str(run.get("meta", {}).get("server", ""))
    if server.startswith("embedded"):
        return "embedded server"
    return "separate server"


def _vs_c_table(run: dict[str, Any]) -> str:
    """Tabulate the workloads the C client ran: each variant of this SDK as a multiple of it."""
    rows = []
    for w in run.get("workloads", []):
        results = w.get("results", {})
        if not isinstance(results.get(C_CLIENT), dict):
            continue
        rows.append((_label(w), [_get(results, cid, "vs_c") for cid, _ in VS_C_COLUMNS]))
    return _table(rows, [header for _, header in VS_C_COLUMNS])


def _vs_sdk_table(runs: list[dict[str, Any]]) -> str:
    """Tabulate the workloads only async clients ran, against aerospike-sdk's async fast path."""
    order: list[str] = []
    labels: dict[str, str] = {}
    cells: dict[str, list[float | None]] = {}
    for i, run in enumerate(runs):
        for w in run.get("workloads", []):
            results = w.get("results", {})
            if isinstance(results.get(C_CLIENT), dict) or not isinstance(
                results.get(SDK_ASYNC), dict
            ):
                continue
            name = str(w.get("name"))
            if name not in cells:
                if i > 0:
                    continue  # only the workloads of the main run
                order.append(name)
                labels[name] = _label(w)
                cells[name] = [None] * (len(VS_SDK_COLUMNS) * len(runs))
            base = _get(results, SDK_ASYNC, "speed")
            for j, (cid, _) in enumerate(VS_SDK_COLUMNS):
                mine = _get(results, cid, "speed")
                if mine is not None and base:
                    cells[name][i * len(VS_SDK_COLUMNS) + j] = mine / base
    headers = [
        f"{header}, {_short_server(run)}" if len(runs) > 1 else header
        for run in runs
        for _, header in VS_SDK_COLUMNS
    ]
    return _table([(labels[n], cells[n]) for n in order], headers)


def _label(workload: dict[str, Any]) -> str:
    name = str(workload.get("name", ""))
    return WORKLOAD_LABELS.get(name, str(workload.get("title", name)))


def _get(results: dict[str, Any], cid: str, field: str) -> float | None:
    row = results.get(cid)
    if not isinstance(row, dict):
        return None
    value = row.get(field)
    return float(value) if isinstance(value, int | float) else None


def _table(rows: list[tuple[str, list[float | None]]], headers: list[str]) -> str:
    """Build a Markdown table of ratios, leaving out columns with no value at all."""
    keep = [j for j in range(len(headers)) if any(cells[j] is not None for _, cells in rows)]
    if not rows or not keep:
        return ""
    lines = [
        "| workload | " + " | ".join(headers[j] for j in keep) + " |",
        "|---|" + "---:|" * len(keep),
    ]
    for label, cells in rows:
        lines.append(f"| {label} | " + " | ".join(_ratio(cells[j]) for j in keep) + " |")
    return "\n".join(lines)


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


# -------------------------------------------------------------------------------- scans.md
def _scans_table(path: Path) -> list[str]:
    """Build the table of the newest ``python -m benchmarks.scans`` run: ratios to the C client."""
    if not path.is_file():
        return []
    title, sections = _parse_scans(path.read_text(encoding="utf-8"))
    sections = [(name, ratios) for name, ratios in sections if ratios]
    if not sections:
        return []
    headers = [
        f"{mode}, {_scan_server(name)}" if len(sections) > 1 else mode
        for name, _ in sections
        for mode in ("sync", "async")
    ]
    rows = [
        (label, [ratios.get(fn) for _, ratios in sections for fn in (sync_fn, async_fn)])
        for label, sync_fn, async_fn in SCAN_ROWS
    ]
    table = _table(rows, headers)
    if not table:
        return []
    when = re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", title)
    source = f"`benchmarks/results/scans.md`, {when.group(0)}" if when else "`scans.md`"
    return [
        "**Scans, queries and Arrow: records per second, times the C client's** "
        f"(`query().foreach`; {source}):",
        table,
    ]


def _parse_scans(text: str) -> tuple[str, list[tuple[str, dict[str, float]]]]:
    """Read the first ``# `` block of ``scans.md``: its title and, per ``## `` section, x C.

    The file keeps the newest run first and the earlier ones below, each under its own ``# ``
    heading; each run has one table per server (``## `` heading), or a single table.
    """
    title = ""
    sections: list[tuple[str, dict[str, float]]] = []
    for line in text.splitlines():
        if line.startswith("# "):
            if title:
                break
            title = line[2:]
            sections.append(("", {}))
        elif line.startswith("## "):
            sections.append((line[3:], {}))
        elif line.startswith("|") and sections:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 4 and _is_number(cells[3]):
                sections[-1][1][cells[1]] = float(cells[3])
    return title, sections


def _scan_server(heading: str) -> str:
    return "embedded server" if "embedded" in heading.lower() else "separate server"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------------ chart and tables
def _chart() -> str:
    if not (RESULTS / "latest.png").is_file():
        return ""
    return f"![Speed of every client against the C client and raw Rust]({CHART_URI})"


def _all_tables() -> str:
    """Put every table of ``latest.md`` in a collapsed block (its headings as bold lines)."""
    table = RESULTS / "latest.md"
    if not table.is_file():
        return ""
    lines = table.read_text(encoding="utf-8").strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    body = _indent(re.sub(r"^#{1,6} (.+)$", r"**\1**", line) for line in lines)
    return f'??? info "Every table of the latest run (`benchmarks/results/latest.md`)"\n\n{body}\n'


def _secured() -> str:
    """Return the plain / login / login+TLS table of ``secured.md`` (``benchmarks.secured``)."""
    path = RESULTS / "secured.md"
    if not path.is_file():
        return "No measurement yet: run `python -m benchmarks.secured`."
    lines = path.read_text(encoding="utf-8").strip().splitlines()
    return "\n".join(line for line in lines if not line.startswith("# ")).strip()


def _indent(lines: Iterable[str]) -> str:
    return "\n".join(f"    {line}" if line.strip() else "" for line in lines).strip("\n")


def _load_json(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else None
