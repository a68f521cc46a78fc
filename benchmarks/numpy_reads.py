"""Batch reads into numpy: ``python -m benchmarks.numpy_reads [--quick]``.

One embedded server in a process of its own holds 50,000 records of four numeric bins (10,000
with ``--quick``). Every key is read into a numpy structured array, in turns, the order swapped
every round: with ``keys(...).to_numpy(dtype=...)``, with ``to_numpy()`` inferring the fields,
and with aerospike-py's ``batch_read(keys, bins).to_numpy(dtype)``. Writes
``results/numpy_reads.{md,json}``.
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

SET = "numpy_reads"
BINS = ("a", "b", "x", "y")
PEER = "aerospike-py to_numpy"


def _dtype() -> Any:
    import numpy as np

    return np.dtype([("a", "i8"), ("b", "i8"), ("x", "f8"), ("y", "f8")])


def load(db: Any, n: int) -> None:
    """Write the records (int keys ``0..n``) in batches."""
    s = db.namespace("test").set(SET)
    for start in range(0, n, 5000):
        ids = range(start, min(n, start + 5000))
        rows = {i: {"a": i, "b": i % 97, "x": i / 3, "y": i * 0.5} for i in ids}
        s.put_many(rows).raise_on_error()


def workloads(n: int) -> dict[str, Callable[[str, Any], Measure]]:
    dtype = _dtype()
    keys = list(range(n))

    def fluent(db: Any, typed: bool) -> Measure:
        rows = db.namespace("test").set(SET).keys(keys)

        def run() -> int:
            a = rows.to_numpy(dtype=dtype) if typed else rows.to_numpy(*BINS)
            assert len(a) == n and bool(a["found"].all()), len(a)
            return n

        return run

    def peer(c: Any) -> Measure:
        tuples = [("test", SET, k) for k in keys]

        def run() -> int:
            a = c.batch_read(tuples, list(BINS)).to_numpy(dtype)
            assert len(a) == n and int((a.result_codes == 0).sum()) == n
            return n

        return run

    def pick(kind: str, client: Any) -> Measure:
        if kind == "peer":
            return peer(client)
        return fluent(client, kind == "typed")

    return {f"{n:,} keys": pick}


def main(argv: list[str] | None = None) -> int:
    import aerospike_py

    from aerospike_fluent import sync as afs

    args = options("numpy_reads", __doc__, argv)
    n = 10_000 if args.quick else 50_000
    rounds = args.rounds or 5
    with server_process() as port:
        peer: Any = aerospike_py.client({"hosts": [("127.0.0.1", port)]}).connect()
        with afs.connect(f"127.0.0.1:{port}") as db:
            load(db, n)
            setups = {
                "to_numpy(dtype=...)": ("typed", db),
                "to_numpy(*bins)": ("inferred", db),
                PEER: ("peer", peer),
            }
            samples = run_rounds(workloads(n), setups, rounds)
        peer.close()
    runs = samples[f"{n:,} keys"]
    peer_walls = [wall for wall, _, _ in runs[PEER]]
    ratios = {
        mode: [wall / p for (wall, _, _), p in zip(times, peer_walls, strict=True)]
        for mode, times in runs.items()
    }
    cells = medians(samples)[f"{n:,} keys"]
    write(args.out, cells, ratios, rounds, n)
    return 0


def write(
    out: Path,
    cells: dict[str, dict[str, float]],
    ratios: dict[str, list[float]],
    rounds: int,
    n: int,
) -> None:
    """Write ``numpy_reads.json`` and a table with each reader's time against aerospike-py's."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    (out / "numpy_reads.json").write_text(
        json.dumps(
            {"when": stamp, "rounds": rounds, "keys": n, "results": cells, "ratios": ratios},
            indent=2,
        )
    )
    peer = cells[PEER]["us_per_op"]
    lines = [
        "# Batch reads into numpy",
        "",
        f"{stamp} · embedded server · {rounds} rounds (median) · {n:,} keys of 4 numeric bins",
        "",
        "| reader | ms per read | CPU µs per key | time vs aerospike-py (median, range) |",
        "|---|---|---|---|",
    ]
    for name, cell in cells.items():
        r = sorted(ratios[name])
        lines.append(
            f"| {name} | {cell['us_per_op'] * n / 1000:,.1f} | {cell['cpu_us_per_op']:.2f} | "
            f"{cell['us_per_op'] / peer:.2f}x ({r[0]:.2f}-{r[-1]:.2f}) |"
        )
    (out / "numpy_reads.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
