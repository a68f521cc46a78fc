"""Per-row cost of bulk writes as they grow: ``python -m benchmarks.bulk_build [--quick]``.

One embedded server in a process of its own. At 5,000 and at 50,000 rows of four bins, in
turns (sizes and writers in an order swapped every round, after one warm-up run of each):
building a ``db.batch()`` of that many ``put`` rows (keys made on the way, nothing sent),
sending that batch (``execute()``, one request), and ``put_many`` of a dict of that many rows
(split into batch requests of 5,000), both with a 30 s timeout. Reports µs and client CPU µs
per row, and the ratio of the per-row time (and CPU) at 50,000 to that at 5,000: 1 is linear;
well under 3 is the bound. Reports, asserts nothing. ``--quick`` runs fewer rounds. Writes
``results/bulk_build.{md,json}``.
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.feature_cost import options, server_process
from benchmarks.interleaved import Measure, medians, run_rounds

SIZES = (5_000, 50_000)
BOUND = 3.0
TIMEOUT = 30.0
"""Seconds a request may take (the default 1 s is short for 50,000 rows on a busy box)."""


def row(i: int) -> dict[str, Any]:
    return {"age": i % 90, "score": i / 7, "city": f"city{i % 100}", "active": i % 3 == 0}


def workloads() -> dict[str, Callable[[Any, int], Measure]]:
    """Per writer: (client, rows) -> one timed run."""

    def build(db: Any, n: int) -> Measure:
        s = db.namespace("test").set(f"bb_build_{n}")
        rows = [row(i) for i in range(n)]

        def run() -> int:
            b = db.batch()
            for i in range(n):
                b = b.put(s.key(i), rows[i])
            assert len(b) == n
            return n

        return run

    def execute(db: Any, n: int) -> Measure:
        s = db.namespace("test").set(f"bb_exec_{n}")
        b = db.batch().timeout(TIMEOUT)
        for i in range(n):
            b = b.put(s.key(i), row(i))

        def run() -> int:
            b.execute().raise_on_error()
            return n

        return run

    def put_many(db: Any, n: int) -> Measure:
        s = db.namespace("test").set(f"bb_many_{n}")
        rows = {i: row(i) for i in range(n)}

        def run() -> int:
            s.put_many(rows, timeout=TIMEOUT).raise_on_error()
            return n

        return run

    return {"db.batch() build": build, "db.batch() execute": execute, "put_many": put_many}


def main(argv: list[str] | None = None) -> int:
    from aerospike_fluent import sync as afs

    args = options("bulk_build", __doc__, argv)
    rounds = args.rounds or (3 if args.quick else 7)
    with server_process() as port, afs.connect(f"127.0.0.1:{port}") as db:
        setups = {f"{n:,} rows": (db, n) for n in SIZES}
        samples = run_rounds(workloads(), setups, rounds)
    write(args.out, medians(samples), rounds)
    return 0


def verdict(ratio: float) -> str:
    """Whether a 50k / 5k per-row ratio is within the bound (1 is linear)."""
    return f"within {BOUND:g}" if ratio < BOUND else f"OVER {BOUND:g}"


def write(out: Path, cells: dict[str, dict[str, dict[str, float]]], rounds: int) -> None:
    """Write ``bulk_build.json`` and a table of per-row times and the 50k / 5k ratios."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    small, large = (f"{n:,} rows" for n in SIZES)
    ratios = {
        w: {k: by[large][k] / by[small][k] for k in ("us_per_op", "cpu_us_per_op")}
        for w, by in cells.items()
    }
    (out / "bulk_build.json").write_text(
        json.dumps(
            {"when": stamp, "rounds": rounds, "results": cells, "ratio_50k_over_5k": ratios},
            indent=2,
        )
    )
    lines = [
        "# Bulk builds: per-row cost at 5,000 and 50,000 rows",
        "",
        f"{stamp} · embedded server · {rounds} rounds (median) · rows of 4 bins",
        "",
        f"| writer | µs/row at {small} | at {large} | CPU µs/row at {small} | at {large} "
        f"| per-row time, {large} / {small} | per-row CPU, {large} / {small} |",
        "|---|---|---|---|---|---|---|",
    ]
    for w, by in cells.items():
        wall, cpu = ratios[w]["us_per_op"], ratios[w]["cpu_us_per_op"]
        lines.append(
            f"| {w} | {by[small]['us_per_op']:.2f} | {by[large]['us_per_op']:.2f} | "
            f"{by[small]['cpu_us_per_op']:.2f} | {by[large]['cpu_us_per_op']:.2f} | "
            f"{wall:.2f} ({verdict(wall)}) | {cpu:.2f} ({verdict(cpu)}) |"
        )
    (out / "bulk_build.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
