"""Timing loops: warmup, rounds interleaved across clients, GC off while timing."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from time import perf_counter_ns, process_time_ns
from typing import Any

from benchmarks.adapters import AsyncClient, Client, RustCeiling, SyncClient
from benchmarks.cpu import probe_ns, process_cpu_ns, process_wait_ns
from benchmarks.stats import Result, Round, median_of, summarize
from benchmarks.workloads import Workload

ROUND_TIMEOUT_S = 300.0


def applies(client: Client, w: Workload) -> bool:
    """Sequential workloads run everywhere; gather runs async clients; threads run sync ones.

    A client limited to some ops (``only``) runs just those.

    The Rust ceiling runs all three (threads = that many commands in flight on Tokio).
    """
    only = None if isinstance(client, RustCeiling) else client.only
    if only is not None and w.op not in only:
        return False
    if w.mode == "seq" or isinstance(client, RustCeiling):
        return True
    return (w.mode == "async") == isinstance(client, AsyncClient)


def _counts(w: Workload) -> bool:
    return w.op in ("batch", "scan", "query")


def _sync_fn(c: SyncClient, w: Workload) -> Callable[[int], Any]:
    if w.op == "batch":
        return lambda i: c.batch(i, w.size)
    if w.op == "scan":
        return lambda _i: c.scan()
    if w.op == "query":
        return lambda _i: c.query(w.low, w.high)
    fn: Callable[[int], Any] = getattr(c, w.op)
    return fn


def _async_fn(c: AsyncClient, w: Workload) -> Callable[[int], Awaitable[Any]]:
    if w.op == "batch":
        return lambda i: c.batch(i, w.size)
    if w.op == "scan":
        return lambda _i: c.scan()
    if w.op == "query":
        return lambda _i: c.query(w.low, w.high)
    fn: Callable[[int], Awaitable[Any]] = getattr(c, w.op)
    return fn


def _seq_sync(fn: Callable[[int], Any], ops: int, counts: bool) -> Round:
    lat = [0] * ops
    records = 0
    start = perf_counter_ns()
    for i in range(ops):
        t = perf_counter_ns()
        r = fn(i)
        lat[i] = perf_counter_ns() - t
        if counts:
            records += r
    return summarize(lat, perf_counter_ns() - start, records)


async def _seq_async(fn: Callable[[int], Awaitable[Any]], ops: int, counts: bool) -> Round:
    lat = [0] * ops
    records = 0
    start = perf_counter_ns()
    for i in range(ops):
        t = perf_counter_ns()
        r = await fn(i)
        lat[i] = perf_counter_ns() - t
        if counts:
            records += r
    return summarize(lat, perf_counter_ns() - start, records)


async def _gather(fn: Callable[[int], Awaitable[Any]], ops: int, concurrency: int) -> Round:
    """``concurrency`` workers, each awaiting the next op as soon as its last one is answered.

    Always that many calls in flight, at about 1.4 µs of harness CPU per op; a task per op
    behind a semaphore cost 13 µs per op at c50 and 19 µs at c256, shared by every client.
    """
    lat = [0] * ops
    todo = iter(range(ops))  # shared: each worker takes the next op

    async def worker() -> None:
        for i in todo:
            t = perf_counter_ns()
            await fn(i)
            lat[i] = perf_counter_ns() - t

    start = perf_counter_ns()
    await asyncio.gather(*(worker() for _ in range(min(concurrency, ops))))
    return summarize(lat, perf_counter_ns() - start, 0)


@dataclass
class Threads:
    """A pre-started pool so thread start-up is not timed."""

    n: int
    pool: ThreadPoolExecutor = field(init=False)

    def __post_init__(self) -> None:
        self.pool = ThreadPoolExecutor(self.n, thread_name_prefix="bench")
        barrier = threading.Barrier(self.n)
        for f in [self.pool.submit(barrier.wait) for _ in range(self.n)]:
            f.result()

    def run(self, fn: Callable[[int], Any], ops: int) -> Round:
        lat = [0] * ops

        def worker(k: int) -> None:
            for i in range(k, ops, self.n):
                t = perf_counter_ns()
                fn(i)
                lat[i] = perf_counter_ns() - t

        start = perf_counter_ns()
        for f in [self.pool.submit(worker, k) for k in range(self.n)]:
            f.result()
        return summarize(lat, perf_counter_ns() - start, 0)


def _delta(before: int | None, after: int | None) -> int | None:
    return None if before is None or after is None else after - before


def _client_cpu_ns(c: Client) -> int | None:
    """CPU time so far of the process running ``c``: the Rust ceiling's, or this one's."""
    return process_cpu_ns(c.pid) if isinstance(c, RustCeiling) else process_time_ns()


def _client_wait_ns(c: Client) -> int | None:
    """Time so far the threads of the process running ``c`` waited for a CPU."""
    return process_wait_ns(c.pid if isinstance(c, RustCeiling) else os.getpid())


class Runner:
    """Runs one workload across clients, round by round, on one asyncio loop.

    Each round also records the CPU time the client (this process, or the Rust ceiling's) and
    the server (``server_pid``, when it runs here) used during it.
    """

    def __init__(
        self, loop: asyncio.AbstractEventLoop, threads: Threads, server_pid: int | None = None
    ) -> None:
        self.loop = loop
        self.threads = threads
        self.server_pid = server_pid

    def one_round(self, c: Client, w: Workload, ops: int) -> Round:
        counts = _counts(w)
        if isinstance(c, RustCeiling):
            r = c.run(w.op, ops, w.concurrency, w.size, w.low, w.high)
            return Round(
                r["ops"], r["records"], r["elapsed_ns"], r["mean_ns"], r["p50_ns"], r["p99_ns"]
            )
        if isinstance(c, SyncClient):
            fn = _sync_fn(c, w)
            if w.mode == "threads":
                return self.threads.run(fn, ops)
            return _seq_sync(fn, ops, counts)
        afn = _async_fn(c, w)
        coro = (
            _gather(afn, ops, w.concurrency) if w.mode == "async" else _seq_async(afn, ops, counts)
        )
        return self.loop.run_until_complete(asyncio.wait_for(coro, ROUND_TIMEOUT_S))

    def timed_round(self, c: Client, w: Workload, ops: int) -> Round:
        gc.collect()
        gc.disable()
        try:
            probe = probe_ns()
            cpu, server_cpu = _client_cpu_ns(c), process_cpu_ns(self.server_pid)
            wait = _client_wait_ns(c)
            r = self.one_round(c, w, ops)
            r = dataclasses.replace(
                r,
                cpu_ns=_delta(cpu, _client_cpu_ns(c)),
                server_cpu_ns=_delta(server_cpu, process_cpu_ns(self.server_pid)),
                wait_ns=_delta(wait, _client_wait_ns(c)),
            )
            return dataclasses.replace(r, probe_ns=(probe + probe_ns()) // 2)
        finally:
            gc.enable()

    def run(
        self,
        clients: list[tuple[str, Client]],
        w: Workload,
        rounds: int,
        warmup_fraction: float,
        log: Callable[[str], None],
    ) -> dict[str, Result | str]:
        """Median results per client id, or the error text for clients that failed."""
        live = [(cid, c) for cid, c in clients if applies(c, w)]
        out: dict[str, Result | str] = {}
        samples: dict[str, list[Round]] = {cid: [] for cid, _ in live}
        warm_ops = max(1, int(w.ops * warmup_fraction))
        for cid, c in live:
            try:
                warm = self.timed_round(c, w, warm_ops)
                if w.op in ("scan", "query") and warm.records == 0:
                    raise RuntimeError("returned no records")
            except Exception as e:
                out[cid] = f"{type(e).__name__}: {e}".strip()[:300]
                log(f"    {cid}: {out[cid]}")
        for r in range(rounds):
            order = live[r % len(live) :] + live[: r % len(live)] if live else []
            for cid, c in order:
                if cid in out:
                    continue
                try:
                    samples[cid].append(self.timed_round(c, w, w.ops))
                except Exception as e:
                    out[cid] = f"{type(e).__name__}: {e}".strip()[:300]
                    log(f"    {cid}: {out[cid]}")
        for cid, rs in samples.items():
            if cid not in out and rs:
                out[cid] = median_of(rs)
        return out
