"""Before/after: two builds of this SDK, interleaved round by round against one server.

    python -m benchmarks.ab SERVER_BIN DIR_A DIR_B [ROUNDS]

A directory may be given as ``NAME=VALUE@DIR`` to run that side with an environment variable
set (for example ``AEROSPIKE_FLUENT_CRATE_RECORDS=1@.`` for the crate's single-record path).

``DIR_A`` and ``DIR_B`` are checkouts whose ``aerospike_fluent/`` holds a built extension (for
example ``git worktree add`` of two commits, each with ``cargo build --release -p native`` copied
to ``aerospike_fluent/_native.abi3.so``); ``SERVER_BIN`` is a release ``embedded-server``. Each
round runs one process per build, alternating which goes first, and the table gives the median
and range of each metric and the ratio B/A. CPU is the client process's, per operation.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

N = 3000
"""Sequential calls per workload."""
C50_OPS = 20_000
BATCH_ROUNDS = 30
SCAN_RECORDS = 20_000
SCAN_ROUNDS = 10
BACKGROUND_RECORDS = 10_000
BACKGROUND_ROUNDS = 10
UDF = b"function one(rec)\n  return 1\nend\n"
"""A record UDF: a call only the crate serves (from a blocking caller or a loop, a hop to the
worker runtime)."""


def _sequential(fn: Callable[[int], object]) -> dict[str, float]:
    for i in range(200):
        fn(i)
    lat = []
    cpu = time.process_time_ns()
    for i in range(N):
        t = time.perf_counter_ns()
        fn(i)
        lat.append(time.perf_counter_ns() - t)
    return {
        "mean_us": statistics.fmean(lat) / 1e3,
        "cpu_us": (time.process_time_ns() - cpu) / N / 1e3,
    }


async def _awaited(fn: Callable[[int], Awaitable[object]]) -> dict[str, float]:
    for i in range(200):
        await fn(i)
    lat = []
    cpu = time.process_time_ns()
    for i in range(N):
        t = time.perf_counter_ns()
        await fn(i)
        lat.append(time.perf_counter_ns() - t)
    return {
        "mean_us": statistics.fmean(lat) / 1e3,
        "cpu_us": (time.process_time_ns() - cpu) / N / 1e3,
    }


async def _concurrent(fn: Callable[[int], Awaitable[object]]) -> dict[str, float]:
    sem = asyncio.Semaphore(50)

    async def one(i: int) -> None:
        async with sem:
            await fn(i)

    await asyncio.gather(*(one(i) for i in range(2000)))
    cpu, t = time.process_time_ns(), time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(C50_OPS)))
    elapsed = time.perf_counter() - t
    return {"ops_s": C50_OPS / elapsed, "cpu_us": (time.process_time_ns() - cpu) / C50_OPS / 1e3}


def _rounds(fn: Callable[[], object]) -> dict[str, float]:
    """Median and range of ``BATCH_ROUNDS`` calls of ``fn`` after one warm-up call."""
    fn()
    lat = []
    for _ in range(BATCH_ROUNDS):
        t = time.perf_counter_ns()
        fn()
        lat.append(time.perf_counter_ns() - t)
    return _median_ms(lat)


async def _async_rounds(fn: Callable[[], Awaitable[object]]) -> dict[str, float]:
    """``_rounds`` of an awaited call."""
    await fn()
    lat = []
    for _ in range(BATCH_ROUNDS):
        t = time.perf_counter_ns()
        await fn()
        lat.append(time.perf_counter_ns() - t)
    return _median_ms(lat)


def _median_ms(samples: list[int]) -> dict[str, float]:
    return {"median_ms": statistics.median(samples) / 1e6}


def background(db: Any) -> dict[str, dict[str, float]]:
    """A background query adding 1 to every record of a 10k set: until every node took it
    on (``execute()``), and until it completed (``wait()``, which polls every 100 ms)."""
    s = db.namespace("test").set("ab-bg")
    if s.query().count() < BACKGROUND_RECORDS:
        s.put_many({i: {"i": i} for i in range(BACKGROUND_RECORDS)})
    started, finished = [], []
    for _ in range(BACKGROUND_ROUNDS + 1):
        t = time.perf_counter_ns()
        task = s.query().background().add("i", 1).execute()
        started.append(time.perf_counter_ns() - t)
        assert task.wait() == "complete"
        finished.append(time.perf_counter_ns() - t)
    return {
        "sync_background10k_start": _median_ms(started[1:]),
        "sync_background10k_done": _median_ms(finished[1:]),
    }


def measure(seeds: str) -> dict[str, dict[str, float]]:
    """One round of every workload with the build on ``sys.path``."""
    import aerospike_fluent as af

    out: dict[str, dict[str, float]] = {}
    keys = list(range(1000))
    with af.sync.connect(seeds) as db:
        s = db.namespace("test").set("ab")
        out["sync_put"] = _sequential(lambda i: s.key(i).put({"i": i}))
        out["sync_get"] = _sequential(lambda i: s.key(i).get())
        out["sync_exists"] = _sequential(lambda i: s.key(i).exists())
        out["sync_operate"] = _sequential(lambda i: s.key(i).add("i", 1).read("i").execute())
        db.udf_register(UDF, "ab.lua")
        out["sync_udf"] = _sequential(lambda i: s.key(i).udf("ab", "one"))
        out["sync_batch1000"] = _rounds(lambda: s.keys(keys).get())
        out["sync_batch_touch1000"] = _rounds(lambda: s.keys(keys).touch())
        scanned = db.namespace("test").set("ab-scan")
        if scanned.query().count() < SCAN_RECORDS:
            scanned.put_many({i: {"i": i, "s": "x" * 20} for i in range(SCAN_RECORDS)})
        lat = []
        for _ in range(SCAN_ROUNDS):
            t = time.perf_counter_ns()
            assert sum(1 for _ in scanned.query()) == SCAN_RECORDS
            lat.append(time.perf_counter_ns() - t)
        out["sync_scan20k"] = _median_ms(lat)
        out.update(background(db))

    async def main() -> None:
        async with af.connect(seeds) as db:
            a = db.namespace("test").set("ab")
            out["async_put"] = await _awaited(lambda i: a.key(i).put({"i": i}))
            out["async_get"] = await _awaited(lambda i: a.key(i).get())
            out["async_operate"] = await _awaited(
                lambda i: a.key(i).add("i", 1).read("i").execute()
            )
            out["async_udf"] = await _awaited(lambda i: a.key(i).udf("ab", "one"))
            out["c50_put"] = await _concurrent(lambda i: a.key(i % N).put({"i": i}))
            out["c50_get"] = await _concurrent(lambda i: a.key(i % N).get())
            out["async_batch1000"] = await _async_rounds(lambda: a.keys(keys).get())
        async with af.connect(seeds, auto_batch=True) as db:
            a = db.namespace("test").set("ab")
            out["c50_autobatch_get"] = await _concurrent(lambda i: a.key(i % N).get())
            out["c50_autobatch_operate"] = await _concurrent(
                lambda i: a.key(i % N).add("i", 1).execute()
            )

    asyncio.run(main())
    return out


def _start_server(server_bin: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [server_bin, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"listening on (\S+):(\d+)", line)
        if m:
            return proc, f"{m.group(1)}:{m.group(2)}"
    raise RuntimeError("the server did not start")


def compare(server_bin: str, dir_a: str, dir_b: str, rounds: int) -> str:
    """Interleave ``rounds`` rounds of both builds; return a Markdown table."""
    proc, seeds = _start_server(server_bin)
    runs: dict[str, list[dict[str, dict[str, float]]]] = {"A": [], "B": []}
    try:
        for r in range(rounds):
            order = [("A", dir_a), ("B", dir_b)]
            for tag, side in order if r % 2 == 0 else order[::-1]:
                setting, _, path = side.rpartition("@")
                env = dict(os.environ, PYTHONPATH=path)
                if setting:
                    name, _, value = setting.partition("=")
                    env[name] = value
                done = subprocess.run(
                    [sys.executable, __file__, "--measure", seeds],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs[tag].append(json.loads(done.stdout.strip().splitlines()[-1]))
    finally:
        proc.terminate()
        proc.wait()
    rows = [
        "| workload | metric | A median (range) | B median (range) | B/A |",
        "|---|---|---|---|---|",
    ]
    for workload, metrics in runs["A"][0].items():
        for metric in metrics:
            a = [run[workload][metric] for run in runs["A"]]
            b = [run[workload][metric] for run in runs["B"]]
            ma, mb = statistics.median(a), statistics.median(b)
            rows.append(
                f"| {workload} | {metric} | {ma:.1f} ({min(a):.1f}-{max(a):.1f}) "
                f"| {mb:.1f} ({min(b):.1f}-{max(b):.1f}) | {mb / ma:.2f} |"
            )
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    """Entry point (see the module docstring)."""
    if argv[:1] == ["--measure"]:
        print(json.dumps(measure(argv[1])))
        return 0
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    rounds = int(argv[3]) if len(argv) == 4 else 6
    print(compare(argv[0], argv[1], argv[2], rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
