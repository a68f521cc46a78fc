"""Records into models: ``python -m benchmarks.typed_records [--quick]``.

Reads every record of a set (100,000 records of 5 bins; 10,000 with ``--quick``) into
dataclass instances and into pydantic models, two ways, in turns (the order swapped every
round): the hand-written loop a user writes today (``[User(**r.bins) for r in
query.collect()]``, ``User.model_validate(r.bins)``) and ``query().as_(User).collect()``.
Also plain records, the floor both stand on. The embedded server runs in a process of its own.
Writes ``results/typed_records.{md,json}``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic

from benchmarks.feature_cost import RESULTS, SERVER
from benchmarks.interleaved import Measure, medians, run_rounds


@dataclass
class User:
    name: str
    age: int
    score: float
    city: str
    n: int


class PUser(pydantic.BaseModel):
    name: str
    age: int
    score: float
    city: str
    n: int


def workloads(n: int) -> dict[str, Callable[[Any], Measure]]:
    """Per workload: (sync client) -> one timed run of each way."""

    def way(read: Callable[[Any], list[Any]]) -> Callable[[Any], Measure]:
        def make(db: Any) -> Measure:
            q = db.namespace("test").set("typed").query()

            def run() -> int:
                got = read(q)
                assert len(got) == n, len(got)
                return n

            return run

        return make

    return {
        "records (floor)": way(lambda q: q.collect()),
        "dataclass, hand loop": way(lambda q: [User(**r.bins) for r in q.collect()]),
        "dataclass, as_()": way(lambda q: q.as_(User).collect()),
        "pydantic, hand loop": way(lambda q: [PUser.model_validate(r.bins) for r in q.collect()]),
        "pydantic, as_()": way(lambda q: q.as_(PUser).collect()),
    }


def main(argv: list[str] | None = None) -> int:
    from aerospike_fluent import sync as afs

    p = argparse.ArgumentParser(prog="python -m benchmarks.typed_records", description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int)
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    n = 10_000 if args.quick else 100_000
    rounds = args.rounds or (3 if args.quick else 7)
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    try:
        seeds = f"127.0.0.1:{int(proc.stdout.readline())}"
        with afs.connect(seeds) as db:
            s = db.namespace("test").set("typed")
            for start in range(0, n, 5000):
                rows = {
                    i: {"name": f"n{i}", "age": i % 90, "score": i / 3, "city": "Paris", "n": i}
                    for i in range(start, min(n, start + 5000))
                }
                s.put_many(rows).raise_on_error()
            samples = run_rounds(workloads(n), {"sync": (db,)}, rounds)
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=20)
    write(args.out, medians(samples), rounds, n)
    return 0


def write(out: Path, table: dict[str, dict[str, dict[str, float]]], rounds: int, n: int) -> None:
    """Write ``typed_records.json`` and a table with the speed-ups, ``typed_records.md``."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    cells = {name: by_mode["sync"] for name, by_mode in table.items()}
    (out / "typed_records.json").write_text(
        json.dumps({"when": stamp, "rounds": rounds, "records": n, "results": cells}, indent=2)
    )
    lines = [
        "# Records into models",
        "",
        f"{stamp} · embedded server · {rounds} rounds (median) · {n:,} records of 5 bins",
        "",
        "| workload | µs per record | CPU µs per record |",
        "|---|---|---|",
    ]
    for name, c in cells.items():
        lines.append(f"| {name} | {c['us_per_op']:.2f} | {c['cpu_us_per_op']:.2f} |")
    for kind in ("dataclass", "pydantic"):
        hand, ours = cells[f"{kind}, hand loop"], cells[f"{kind}, as_()"]
        lines.append(
            f"\n{kind}: as_() is {hand['us_per_op'] / ours['us_per_op']:.2f}x as fast as the "
            f"hand loop ({hand['cpu_us_per_op'] / ours['cpu_us_per_op']:.2f}x in CPU)."
        )
    (out / "typed_records.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
