"""A set read by Dask workers against one process: ``python -m benchmarks.dask_reads [--quick]``.

One embedded server in a process of its own holds 200,000 records of four bins (20,000 with
``--quick``). In turns, the order swapped every round (after one warm-up run of each): one
process reads the set with ``query().to_arrow()``; ``af.dask.read_set`` on a ``LocalCluster``
of 4 worker processes (one thread each) reads it in 4 and in 16 parts and ``compute()`` brings
the DataFrame to the driver; and, 16 parts, only the row counts leave the workers. CPU per
record is the driver's (with the scheduler, which runs in it) plus, for the Dask reads, every
worker's and nanny's process (``/proc/<pid>/task/*/schedstat``), and apart the server's.
Writes ``results/dask_reads.{md,json}``.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.cpu import process_cpu_ns
from benchmarks.feature_cost import options, server_process

WORKERS = 4
SET = "dask_reads"

Run = Callable[[], int]


def load(db: Any, n: int) -> None:
    import pyarrow as pa

    table = pa.table(
        {
            "id": list(range(n)),
            "age": [i % 90 for i in range(n)],
            "score": [i / 7 for i in range(n)],
            "city": [f"city{i % 100}" for i in range(n)],
            "active": [i % 3 == 0 for i in range(n)],
        }
    )
    assert db.namespace("test").set(SET).put_arrow(table, key="id").written == n


def setups(db: Any, seeds: str, n: int) -> dict[str, Run]:
    import aerospike_fluent as af

    def one_process() -> int:
        return int(db.namespace("test").set(SET).query().to_arrow().num_rows)

    def dask_compute(parts: int) -> Run:
        def run() -> int:
            return len(af.dask.read_set(seeds, "test", SET, partitions=parts).compute())

        return run

    def dask_in_workers() -> int:
        ddf = af.dask.read_set(seeds, "test", SET, partitions=16)
        return int(ddf.map_partitions(len).sum().compute())

    return {
        "one process, to_arrow()": one_process,
        "dask, 4 parts, compute()": dask_compute(4),
        "dask, 16 parts, compute()": dask_compute(16),
        "dask, 16 parts, counted in the workers": dask_in_workers,
    }


def worker_pids(client: Any) -> list[int]:
    """The workers' processes and their nannies'."""
    import psutil

    pids = list(client.run(os.getpid).values())
    return pids + [psutil.Process(p).ppid() for p in pids]


def cpu_seconds(pids: list[int]) -> float:
    """CPU so far of these processes' live threads (``schedstat``: nanoseconds, where
    ``psutil``'s 10 ms ticks over eight processes would swamp a short round)."""
    return sum(process_cpu_ns(pid) or 0 for pid in pids) / 1e9


def timed(run: Run, pids: list[int], server: int | None) -> dict[str, float]:
    """Wall, client CPU (driver + ``pids``) and server CPU seconds of one run, and its rows."""
    s0 = process_cpu_ns(server)
    w0, c0, t0 = cpu_seconds(pids), time.process_time(), time.perf_counter()
    rows = run()
    wall = time.perf_counter() - t0
    driver, workers = time.process_time() - c0, cpu_seconds(pids) - w0
    s1 = process_cpu_ns(server)
    srv = (s1 - s0) / 1e9 if s0 is not None and s1 is not None else float("nan")
    return {
        "wall": wall,
        "client_cpu": driver + workers,
        "driver_cpu": driver,
        "workers_cpu": workers,
        "server_cpu": srv,
        "rows": rows,
    }


def idle_cpu_per_s(pids: list[int]) -> float:
    """CPU seconds per second the idle workers and nannies use (heartbeats, event loops)."""
    w0 = cpu_seconds(pids)
    time.sleep(2)
    return (cpu_seconds(pids) - w0) / 2


def main(argv: list[str] | None = None) -> int:
    import psutil

    args = options("dask_reads", __doc__, argv)
    n = 20_000 if args.quick else 200_000
    rounds = args.rounds or (3 if args.quick else 5)
    with server_process() as port:
        (server,) = (p.pid for p in psutil.Process().children())
        samples = measure(f"127.0.0.1:{port}", server, n, rounds)
    write(args.out, summarise(samples, n), rounds, n)
    return 0


def measure(seeds: str, server: int, n: int, rounds: int) -> dict[str, list[dict[str, float]]]:
    """Load the set, then time every setup once per round, the order swapped every round."""
    from dask.distributed import Client, LocalCluster

    from aerospike_fluent import sync as afs

    with (
        afs.connect(seeds) as db,
        LocalCluster(
            n_workers=WORKERS,
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        load(db, n)
        runs = setups(db, seeds, n)
        pids = worker_pids(client)
        for run in runs.values():
            assert run() == n  # warm-up: imports and connections in every worker
        idle = idle_cpu_per_s(pids)
        samples: dict[str, list[dict[str, float]]] = {"idle": [{"cpu_per_s": idle}]}
        samples.update({name: [] for name in runs})
        names = list(runs)
        for r in range(rounds):
            for name in names if r % 2 == 0 else reversed(names):
                # the one-process read runs no task: the idle workers are not its cost
                sample = timed(runs[name], pids if "dask" in name else [], server)
                assert sample["rows"] == n, (name, sample)
                samples[name].append(sample)
            print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    return samples


def summarise(samples: dict[str, list[dict[str, float]]], n: int) -> dict[str, dict[str, float]]:
    """Median records/s and CPU µs per record (client, driver, workers, server), per setup."""
    cells: dict[str, dict[str, float]] = {"idle": samples["idle"][0]}
    for name, runs in samples.items():
        if name == "idle":
            continue
        cells[name] = {"records_per_s": statistics.median(n / s["wall"] for s in runs)}
        for part in ("client", "driver", "workers", "server"):
            us = statistics.median(s[f"{part}_cpu"] / n for s in runs) * 1e6
            cells[name][f"{part}_cpu_us_per_record"] = us
    return cells


def write(out: Path, cells: dict[str, dict[str, float]], rounds: int, n: int) -> None:
    """Write ``dask_reads.json`` and a table with records/s, CPU per record and the ratios."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    (out / "dask_reads.json").write_text(
        json.dumps(
            {"when": stamp, "rounds": rounds, "records": n, "workers": WORKERS, "results": cells},
            indent=2,
        )
    )
    base = cells["one process, to_arrow()"]
    lines = [
        "# Dask reads against one process",
        "",
        f"{stamp} · embedded server · {os.cpu_count()} cores · {WORKERS} Dask worker processes "
        f"· {rounds} rounds (median) · {n:,} records of 4 bins · idle workers and nannies: "
        f"{cells['idle']['cpu_per_s'] * 1e3:.0f} ms of CPU per second",
        "",
        "| reader | records/s | vs one process | client CPU µs/record (driver + workers) | "
        "vs one process | server CPU µs/record |",
        "|---|---|---|---|---|---|",
    ]
    for name, c in cells.items():
        if name == "idle":
            continue
        lines.append(
            f"| {name} | {c['records_per_s']:,.0f} | "
            f"{c['records_per_s'] / base['records_per_s']:.2f}x | "
            f"{c['client_cpu_us_per_record']:.2f} ({c['driver_cpu_us_per_record']:.2f} + "
            f"{c['workers_cpu_us_per_record']:.2f}) | "
            f"{c['client_cpu_us_per_record'] / base['client_cpu_us_per_record']:.2f}x | "
            f"{c['server_cpu_us_per_record']:.2f} |"
        )
    (out / "dask_reads.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
