"""What a client feature costs, measured on and off in one interleaved run.

One embedded server in a process of its own; one sync and one async client per setup run the
same workloads in turns (the order swapped every round). ``metrics_cost``, ``policy_cost`` and
``breaker_cost`` are its users; each writes ``results/<stem>.{md,json}``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from benchmarks.interleaved import Measure, medians, run_rounds

RESULTS = Path(__file__).resolve().parent / "results"

SERVER = """
import sys
from aerospike_fluent.server import EmbeddedServer
server = EmbeddedServer()
print(server.port, flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def server_process(code: str = SERVER) -> Iterator[int]:
    """Run ``code`` (which prints a port, then waits on stdin) in a process; yield the port."""
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    try:
        yield int(proc.stdout.readline())
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=20)


def options(prog: str, description: str | None, argv: list[str] | None) -> argparse.Namespace:
    """``--quick``, ``--rounds`` and ``--out`` of a benchmark module."""
    p = argparse.ArgumentParser(prog=f"python -m benchmarks.{prog}", description=description)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int)
    p.add_argument("--out", type=Path, default=RESULTS)
    return p.parse_args(argv)


Setup = tuple[dict[str, Any], Callable[[Any], Any] | None]
"""``connect()`` options, and what to make of the connected client (a view, say)."""


def workloads(ops: int) -> dict[str, Callable[[Any, Any], Measure]]:
    """Per workload: (sync client, (loop, async client)) -> one timed run."""

    def sync_get(db: Any, _a: Any) -> Measure:
        k = db.namespace("test").set("m").key("k")

        def run() -> int:
            for _ in range(ops):
                k.get()
            return ops

        return run

    def sync_put(db: Any, _a: Any) -> Measure:
        k = db.namespace("test").set("m").key("k")

        def run() -> int:
            for i in range(ops):
                k.put({"v": i})
            return ops

        return run

    def c50(verb: str) -> Callable[[Any, Any], Measure]:
        def make(_db: Any, a: Any) -> Measure:
            loop, adb = a
            keys = [adb.namespace("test").set("m").key(f"r{i}") for i in range(50)]

            async def worker(k: Any) -> None:
                for i in range(ops // 50):
                    await (k.get() if verb == "get" else k.put({"v": i}))

            def run() -> int:
                async def all_of() -> None:
                    await asyncio.gather(*(worker(k) for k in keys))

                loop.run_until_complete(all_of())
                return (ops // 50) * 50

            return run

        return make

    def batch(db: Any, _a: Any) -> Measure:
        keys = db.namespace("test").set("m").keys([f"r{i}" for i in range(50)])

        def run() -> int:
            for _ in range(ops // 50):
                keys.get()
            return (ops // 50) * 50

        return run

    return {
        "sync get": sync_get,
        "sync put": sync_put,
        "async c50 get": c50("get"),
        "async c50 put": c50("put"),
        "sync batch of 50 (per key)": batch,
    }


def compare(
    setups: Mapping[str, Setup],
    *,
    ops: int,
    rounds: int,
    check: Callable[[dict[str, tuple[Any, Any]]], None] | None = None,
) -> dict[str, dict[str, dict[str, float]]]:
    """Run every workload under every setup; per workload and setup, the medians."""
    import aerospike_fluent as af
    from aerospike_fluent import sync as afs

    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    seeds = f"127.0.0.1:{int(proc.stdout.readline())}"
    loop = asyncio.new_event_loop()
    opened: list[Any] = []
    clients: dict[str, tuple[Any, Any]] = {}
    try:
        for mode, (options, make) in setups.items():
            db = afs.connect(seeds, **options)
            adb = loop.run_until_complete(af.connect(seeds, **options))
            opened += [db, adb]
            if make is not None:
                db, adb = make(db), make(adb)
            clients[mode] = (db, (loop, adb))
        s = opened[0].namespace("test").set("m")
        for i in range(50):
            s.key(f"r{i}").put({"v": i})
        s.key("k").put({"v": 0})
        samples = run_rounds(workloads(ops), clients, rounds)
        if check is not None:
            check({mode: (db, a[1]) for mode, (db, a) in clients.items()})
    finally:
        for db in opened:
            db.close()
        loop.close()
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=20)
    return medians(samples)


def write(
    out: Path,
    stem: str,
    title: str,
    table: dict[str, dict[str, dict[str, float]]],
    rounds: int,
    ops: int,
) -> None:
    """Write ``<stem>.json`` and a table per setup relative to the first one, ``<stem>.md``."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    (out / f"{stem}.json").write_text(
        json.dumps({"when": stamp, "rounds": rounds, "ops": ops, "results": table}, indent=2)
    )
    modes = list(next(iter(table.values())))
    base, others = modes[0], modes[1:]
    head = ["workload", *(f"{m} µs" for m in modes)]
    head += [f"{m} / {base}" for m in others] + [f"CPU {m} / {base}" for m in others]
    lines = [
        f"# {title}",
        "",
        f"{stamp} · embedded server · {rounds} rounds (median) · {ops} ops per round",
        "",
        f"µs per operation, and each setup relative to {base} (1.00: no cost).",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for wname, by_mode in table.items():
        b = by_mode[base]
        cells = [wname, *(f"{by_mode[m]['us_per_op']:.2f}" for m in modes)]
        cells += [f"{by_mode[m]['us_per_op'] / b['us_per_op']:.3f}" for m in others]
        cells += [f"{by_mode[m]['cpu_us_per_op'] / b['cpu_us_per_op']:.3f}" for m in others]
        lines.append("| " + " | ".join(cells) + " |")
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
