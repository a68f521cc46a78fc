"""What ``max_in_flight`` does to a burst: ``python -m benchmarks.backpressure [--quick]``.

1. 100,000 gets started at once with ``asyncio.gather``, without a limit and with
   ``max_in_flight`` 100 and 256: calls per second and peak RSS, each run in a fresh process
   (peak: the process's ``VmHWM`` growth from just before the burst, see
   :mod:`benchmarks.memory`; ``ru_maxrss`` too, which also counts start-up), variants
   interleaved, the order rotated every round.
2. What the limit costs calls that never wait for a slot: a client with ``max_in_flight=256``
   against one without, on the workloads of :mod:`benchmarks.feature_cost` (sequential sync get
   and put, 50 async workers, batches), in turns.

Writes ``results/backpressure.{md,json}`` and ``results/backpressure_cost.{md,json}``.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.feature_cost import compare, options, server_process, write
from benchmarks.memory import peak_mb, restart_peak

VARIANTS: dict[str, int | None] = {
    "no limit": None,
    "max_in_flight=100": 100,
    "max_in_flight=256": 256,
}
RECORDS = 1000


async def _burst(seeds: str, limit: int | None, calls: int) -> dict[str, Any]:
    import aerospike_fluent as af

    async with af.connect(seeds, max_in_flight=limit) as db:  # default timeouts, as a new user
        s = db.namespace("test").set("bp")
        await s.key("r0").get()  # connected, the loop's runtime built
        before = restart_peak()
        started = time.perf_counter()
        got = await asyncio.gather(
            *(s.key(f"r{i % RECORDS}").get() for i in range(calls)), return_exceptions=True
        )
        seconds = time.perf_counter() - started
        load = db.metrics().calls_in_flight
    failed = [r for r in got if isinstance(r, BaseException)]
    assert all(r is not None for r in got), "a get found no record"
    assert limit is None or (load.peak_in_flight or 0) <= limit, "the limit did not hold"
    return {
        "ops_per_s": (calls - len(failed)) / seconds,
        "failed": len(failed),
        "failure": type(failed[0]).__name__ if failed else None,
        "peak_growth_mb": peak_mb() - before,
        "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "waited": load.waited,
    }


def _child(argv: list[str]) -> int:
    seeds, limit, calls = argv[0], argv[1], int(argv[2])
    out = asyncio.run(_burst(seeds, None if limit == "none" else int(limit), calls))
    print(json.dumps(out), flush=True)
    return 0


def _run(seeds: str, limit: int | None, calls: int) -> dict[str, Any]:
    shown = "none" if limit is None else str(limit)
    args = [sys.executable, "-m", "benchmarks.backpressure", "--child", seeds, shown, str(calls)]
    done = subprocess.run(args, capture_output=True, text=True, check=False, timeout=600)
    if done.returncode:
        raise RuntimeError(f"{' '.join(args[2:])} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def bursts(calls: int, rounds: int) -> dict[str, list[dict[str, Any]]]:
    """Per variant, one sample per round (each in a fresh process)."""
    import aerospike_fluent.sync as afs

    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in VARIANTS}
    with server_process() as port:
        seeds = f"127.0.0.1:{port}"
        with afs.connect(seeds) as db:
            s = db.namespace("test").set("bp")
            for i in range(RECORDS):
                s.key(f"r{i}").put({"v": i})
        names = list(VARIANTS)
        for r in range(rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                samples[name].append(_run(seeds, VARIANTS[name], calls))
    return samples


def _spread(values: list[float], fmt: str) -> str:
    med = statistics.median(values)
    return f"{med:{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})"


def write_bursts(out: Path, samples: dict[str, list[dict[str, Any]]], calls: int) -> None:
    """Write ``backpressure.json`` and a table of medians and ranges, ``backpressure.md``."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    rounds = len(next(iter(samples.values())))
    (out / "backpressure.json").write_text(
        json.dumps({"when": stamp, "calls": calls, "samples": samples}, indent=2)
    )
    base = statistics.median(x["ops_per_s"] for x in samples["no limit"])
    lines = [
        "# A burst of gathered gets, with and without max_in_flight",
        "",
        f"{stamp} · embedded server · {calls:,} gets in one asyncio.gather · {rounds} rounds, "
        "a fresh process each · median (range)",
        "",
        "Gets/s counts the gets that returned their record; failed: those that raised (the",
        "first one's class), with the client's default timeouts.",
        "",
        "| variant | gets/s | / no limit | failed | peak RSS growth, MiB | ru_maxrss, MiB |",
        "|---|---|---|---|---|---|",
    ]
    for name, runs in samples.items():
        ops = [x["ops_per_s"] for x in runs]
        failed = [x["failed"] for x in runs]
        failure = next((x["failure"] for x in runs if x["failure"]), "")
        lines.append(
            f"| {name} | {_spread(ops, ',.0f')} | {statistics.median(ops) / base:.2f} | "
            f"{_spread([float(n) for n in failed], ',.0f')} {failure} | "
            f"{_spread([x['peak_growth_mb'] for x in runs], '.0f')} | "
            f"{_spread([x['ru_maxrss_mb'] for x in runs], '.0f')} |"
        )
    (out / "backpressure.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        return _child(argv[1:])
    args = options("backpressure", __doc__, argv)
    calls = 10_000 if args.quick else 100_000
    rounds = args.rounds or (2 if args.quick else 3)
    samples = bursts(calls, rounds)
    write_bursts(args.out, samples, calls)
    ops = 500 if args.quick else 5_000
    cost_rounds = 3 if args.quick else 7
    setups = {"off": ({}, None), "on": ({"max_in_flight": 256}, None)}
    table = compare(setups, ops=ops, rounds=cost_rounds)
    write(args.out, "backpressure_cost", "max_in_flight=256 on and off", table, cost_rounds, ops)
    print((args.out / "backpressure.md").read_text())
    print((args.out / "backpressure_cost.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
