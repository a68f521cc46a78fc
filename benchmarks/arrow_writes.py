"""Bulk writes from Arrow: ``python -m benchmarks.arrow_writes [--quick]``.

One embedded server in a process of its own. The same rows (1,000,000 of an int key and four
bins; 100,000 with ``--quick``) are written in turns, the order swapped every round: with
``put_arrow`` from a pyarrow table, with ``put_many`` from dicts (5,000 per call), and with the
C client's ``batch_write`` (5,000 per call). Writes ``results/arrow_writes.{md,json}``.
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

CHUNK = 5000


def columns(n: int) -> dict[str, list[Any]]:
    return {
        "id": list(range(n)),
        "age": [i % 90 for i in range(n)],
        "score": [i / 7 for i in range(n)],
        "city": [f"city{i % 100}" for i in range(n)],
        "active": [i % 3 == 0 for i in range(n)],
    }


def workloads(n: int) -> dict[str, Callable[[str, Any], Measure]]:
    import pyarrow as pa

    cols = columns(n)
    table = pa.table(cols)
    names = [c for c in cols if c != "id"]
    dicts = [{c: cols[c][i] for c in names} for i in range(n)]

    def fluent_arrow(db: Any) -> Measure:
        s = db.namespace("test").set("aw_arrow")

        def run() -> int:
            result = s.put_arrow(table, key="id")
            assert result.written == n, result
            return n

        return run

    def fluent_many(db: Any) -> Measure:
        s = db.namespace("test").set("aw_many")

        def run() -> int:
            for start in range(0, n, CHUNK):
                rows = {i: dicts[i] for i in range(start, min(n, start + CHUNK))}
                s.put_many(rows).raise_on_error()
            return n

        return run

    def c_batch_write(c: Any) -> Measure:
        from aerospike_helpers.batch import records as br
        from aerospike_helpers.operations import operations as op

        def run() -> int:
            for start in range(0, n, CHUNK):
                rows = [
                    br.Write(("test", "aw_c", i), [op.write(k, v) for k, v in dicts[i].items()])
                    for i in range(start, min(n, start + CHUNK))
                ]
                done = c.batch_write(br.BatchRecords(rows))
                assert done.result == 0, done.result
            return n

        return run

    def pick(kind: str, client: Any) -> Measure:
        return {"arrow": fluent_arrow, "many": fluent_many, "c": c_batch_write}[kind](client)

    return {"write rows": pick}


def main(argv: list[str] | None = None) -> int:
    import aerospike

    from aerospike_fluent import sync as afs

    args = options("arrow_writes", __doc__, argv)
    n = 100_000 if args.quick else 1_000_000
    rounds = args.rounds or 3
    with server_process() as port:
        c: Any = aerospike.client({"hosts": [("127.0.0.1", port)]}).connect()
        with afs.connect(f"127.0.0.1:{port}") as db:
            setups = {
                "put_arrow": ("arrow", db),
                "put_many": ("many", db),
                "C client batch_write": ("c", c),
            }
            samples = run_rounds(workloads(n), setups, rounds)
        c.close()
    write(args.out, medians(samples)["write rows"], rounds, n)
    return 0


def write(out: Path, cells: dict[str, dict[str, float]], rounds: int, n: int) -> None:
    """Write ``arrow_writes.json`` and a table with records/s and the ratios."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    (out / "arrow_writes.json").write_text(
        json.dumps({"when": stamp, "rounds": rounds, "rows": n, "results": cells}, indent=2)
    )
    c = cells["C client batch_write"]["us_per_op"]
    lines = [
        "# Bulk writes from Arrow",
        "",
        f"{stamp} · embedded server · {rounds} rounds (median) · {n:,} rows of 4 bins",
        "",
        "| writer | records/s | CPU µs per record | speed vs the C client |",
        "|---|---|---|---|",
    ]
    for name, cell in cells.items():
        lines.append(
            f"| {name} | {1e6 / cell['us_per_op']:,.0f} | {cell['cpu_us_per_op']:.2f} | "
            f"{c / cell['us_per_op']:.2f}x |"
        )
    (out / "arrow_writes.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
