"""Where an async call's CPU goes, by thread, and how many wake-ups it costs.

    python -m benchmarks.wakeups [--host h:p] [--ops N] [--runs R] [--loop asyncio|uvloop]
        [--clients builder,autobatch] [--workloads c1_get,c50_put,...]

Runs each workload (``c<N>_get`` / ``c<N>_put``: N calls in flight through a semaphore, as in
``python -m benchmarks``) with this SDK's async builder, plain and with ``auto_batch=True``,
against the embedded release server in its own process (or ``--host``). Per operation it
prints: ops/s; CPU µs of each client thread group (the event-loop thread, the worker runtime
threads, the rest) and of the server (``/proc/<pid>/task/<tid>/schedstat``); how often each
went to sleep (voluntary context switches: each is a wake-up later); and how many loop
iterations (selector polls) ran. Measures only: nothing asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aerospike_fluent import _aio
from benchmarks import server as bench_server

Sample = dict[str, tuple[int, int]]  # thread group -> (cpu ns, voluntary context switches)


def _threads(pid: int | str) -> dict[int, tuple[str, int, int]]:
    out: dict[int, tuple[str, int, int]] = {}
    base = Path(f"/proc/{pid}/task")
    for task in base.iterdir():
        try:
            name = (task / "comm").read_text().strip()
            cpu = (task / "schedstat").read_text().split()[0]
            status = (task / "status").read_text()
        except OSError:
            continue
        sleeps = status.split("voluntary_ctxt_switches:")[1].split()[0]
        out[int(task.name)] = (name, int(cpu), int(sleeps))
    return out


def _group(name: str, tid: int, loop_tid: int) -> str:
    if tid == loop_tid:
        return "loop"
    if name.startswith("aerospike-fluen") and not name.endswith("tick"):
        return "worker"
    return "other"


def sample(pid: int | str, loop_tid: int) -> Sample:
    """CPU ns and sleeps, summed per thread group of process ``pid``."""
    out: dict[str, tuple[int, int]] = {}
    for tid, (name, cpu, slices) in _threads(pid).items():
        g = _group(name, tid, loop_tid) if pid == "self" else "server"
        c, s = out.get(g, (0, 0))
        out[g] = (c + cpu, s + slices)
    return out


def _diff(a: Sample, b: Sample, ops: int) -> dict[str, tuple[float, float]]:
    return {
        g: ((b[g][0] - a.get(g, (0, 0))[0]) / ops / 1e3, (b[g][1] - a.get(g, (0, 0))[1]) / ops)
        for g in b
    }


class Counters:
    """Counts the loop's selector polls (asyncio's loop only)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.polls = 0
        selector = getattr(loop, "_selector", None)
        if selector is not None:
            select = selector.select

            def counted(timeout: float | None = None) -> Any:
                self.polls += 1
                return select(timeout)

            selector.select = counted


async def _gather(fn: Callable[[int], Awaitable[Any]], ops: int, concurrency: int) -> None:
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            await fn(i)

    await asyncio.gather(*(one(i) for i in range(ops)))


async def run_one(
    db: Any, workload: str, ops: int, counters: Counters, server_pid: int | None
) -> dict[str, Any]:
    conc, verb = workload[1:].split("_")
    s = db.namespace("test").set("wakeups")
    record = {"i": 1, "s": "x" * 32}
    if verb == "get":

        async def fn(i: int) -> Any:
            return await s.key(i % 1000).get()
    else:

        async def fn(i: int) -> Any:
            return await s.key(i % 1000).put(record)

    await _gather(fn, max(ops // 4, 500), int(conc))  # warm-up: pools, loop runtime
    loop_tid = __import__("threading").get_native_id()
    before, srv = sample("self", loop_tid), sample(server_pid, 0) if server_pid else {}
    polls = counters.polls
    completer = _aio.completers.get(asyncio.get_running_loop())
    started = completer.loop_ops_started if completer else 0
    polled = completer.loop_ops_polled if completer else 0
    t = time.perf_counter()
    await _gather(fn, ops, int(conc))
    wall = time.perf_counter() - t
    after, srv2 = sample("self", loop_tid), sample(server_pid, 0) if server_pid else {}
    res: dict[str, Any] = {"ops_s": ops / wall, "polls": (counters.polls - polls) / ops}
    if completer:
        res["on_loop"] = (completer.loop_ops_started - started) / ops
        res["spun"] = (completer.loop_ops_polled - polled) / ops
    res.update(_diff(before, after, ops))
    if server_pid:
        res.update(_diff(srv, srv2, ops))
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.wakeups")
    p.add_argument("--host")
    p.add_argument("--ops", type=int, default=20_000)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    p.add_argument("--clients", default="builder,autobatch")
    p.add_argument("--workloads", default="c1_get,c1_put,c50_get,c50_put,c256_get,c256_put")
    a = p.parse_args(argv)
    import aerospike_fluent as af

    srv = None
    if a.host:
        seed, server_pid = a.host, None
    else:
        srv = bench_server.start(None, lambda m: print(m, file=sys.stderr))
        seed = f"{srv.host}:{srv.port}"
        server_pid = srv.proc.pid if srv.proc else None
    loop: asyncio.AbstractEventLoop
    if a.loop == "uvloop":
        import uvloop

        loop = uvloop.new_event_loop()
    else:
        loop = asyncio.SelectorEventLoop()
    counters = Counters(loop)
    clients = a.clients.split(",")
    rows: list[tuple[str, str, dict[str, Any]]] = []

    async def go() -> None:
        dbs = {
            "builder": await af.connect(seed),
            "autobatch": await af.connect(seed, auto_batch=True),
            "nospin": await af.connect(seed, spin_wait=0),
            "autobatch64": await af.connect(seed, auto_batch=64),
        }
        for _ in range(a.runs):
            for w in a.workloads.split(","):
                for c in clients:
                    rows.append((w, c, await run_one(dbs[c], w, a.ops, counters, server_pid)))
        for db in dbs.values():
            db.close()

    try:
        import gc

        gc.disable()
        loop.run_until_complete(go())
    finally:
        loop.close()
        if srv is not None:
            srv.stop()
    groups = ["loop", "worker", "other", "server"]
    print(
        "| workload | client | ops/s | loop polls/op | on loop runtime | answered polling | "
        + " | ".join(f"{g} µs/op (sleeps/op)" for g in groups)
        + " |"
    )
    print("|---" * (6 + len(groups)) + "|")
    for w in a.workloads.split(","):
        for c in clients:
            mine = [r for ww, cc, r in rows if ww == w and cc == c]
            med = sorted(mine, key=lambda r: r["ops_s"])[len(mine) // 2]
            cells = [f"{med[g][0]:.1f} ({med[g][1]:.2f})" if g in med else "-" for g in groups]
            print(
                f"| {w} | {c} | {med['ops_s']:,.0f} | {med['polls']:.2f} | "
                f"{med.get('on_loop', 0):.2f} | {med.get('spun', 0):.3f} | "
                + " | ".join(cells)
                + " |"
            )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
