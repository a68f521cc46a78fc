"""What counting calls costs: ``python -m benchmarks.metrics_cost [--quick]``.

One embedded server in a process of its own; clients connected with ``metrics=True`` (the
default) and ``metrics=False`` run each workload in turns, the order swapped every round, so
the ratios come from one interleaved run. Writes ``results/metrics.{md,json}``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.interleaved import Measure, medians, run_rounds

RESULTS = Path(__file__).resolve().parent / "results"
MODES = ("off", "on")

SERVER = """
import sys
from aerospike_fluent.server import EmbeddedServer
server = EmbeddedServer()
print(server.port, flush=True)
sys.stdin.read()
"""


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


def main(argv: list[str] | None = None) -> int:
    import aerospike_fluent as af
    from aerospike_fluent import sync as afs

    p = argparse.ArgumentParser(prog="python -m benchmarks.metrics_cost", description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int)
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    ops = 500 if args.quick else 5_000
    rounds = args.rounds or (3 if args.quick else 7)

    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    seeds = f"127.0.0.1:{int(proc.stdout.readline())}"
    loop = asyncio.new_event_loop()
    clients: dict[str, tuple[Any, Any]] = {}
    try:
        for mode in MODES:
            on = mode == "on"
            db = afs.connect(seeds, metrics=on)
            adb = loop.run_until_complete(af.connect(seeds, metrics=on))
            clients[mode] = (db, (loop, adb))
        s = clients["on"][0].namespace("test").set("m")
        for i in range(50):
            s.key(f"r{i}").put({"v": i})
        s.key("k").put({"v": 0})
        samples = run_rounds(workloads(ops), clients, rounds)
        counted = clients["on"][0].metrics().count() + clients["on"][1][1].metrics().count()
        uncounted = clients["off"][0].metrics().count() + clients["off"][1][1].metrics().count()
        assert counted > 0 and uncounted == 0, "the clients did not count as configured"
    finally:
        for db, (_, adb) in clients.values():
            db.close()
            adb.close()
        loop.close()
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=20)

    write(args.out, medians(samples), rounds, ops)
    return 0


def write(out: Path, table: dict[str, dict[str, dict[str, float]]], rounds: int, ops: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    (out / "metrics.json").write_text(
        json.dumps({"when": stamp, "rounds": rounds, "ops": ops, "results": table}, indent=2)
    )
    lines = [
        "# Metrics on and off",
        "",
        f"{stamp} · embedded server · {rounds} rounds (median) · {ops} ops per round",
        "",
        "µs per operation, and metrics on relative to off (1.00: no cost).",
        "",
        "| workload | off | on | on / off | CPU/op off | CPU/op on | CPU on / off |",
        "|---|---|---|---|---|---|---|",
    ]
    for wname, by_mode in table.items():
        off, on = by_mode["off"], by_mode["on"]
        lines.append(
            f"| {wname} | {off['us_per_op']:.2f} | {on['us_per_op']:.2f} "
            f"| {on['us_per_op'] / off['us_per_op']:.3f} | {off['cpu_us_per_op']:.2f} "
            f"| {on['cpu_us_per_op']:.2f} | {on['cpu_us_per_op'] / off['cpu_us_per_op']:.3f} |"
        )
    (out / "metrics.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
