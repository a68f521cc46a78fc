"""``python -m benchmarks [--quick] [--host h:p] [--clients ...] [--workloads ...]``."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import chart, dataset, report, server, targets
from benchmarks.adapters import ALL, AsyncClient, Client, RustCeiling, Skip, SyncClient, Target
from benchmarks.runner import Runner, Threads
from benchmarks.stats import Result
from benchmarks.workloads import FULL, QUICK, all_workloads

RESULTS = Path(__file__).resolve().parent / "results"
MEMORY_RECORDS = 1_000_000
PACKAGES = ("aerospike", "aerospike-py", "aerospike-sdk", "aerospike-native", "aerospike-fluent")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parse(argv: list[str] | None) -> argparse.Namespace:
    ids = [cid for cid, _ in ALL]
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    p.add_argument("--quick", action="store_true", help="small sizes, 3 rounds (CI smoke, < 2 min)")
    p.add_argument(
        "--host", help="host:port of a running server (default: AEROSPIKE_HOST, else embedded)"
    )
    p.add_argument("--clients", help=f"comma-separated subset of: {','.join(ids)}")
    p.add_argument("--workloads", help="comma-separated subset of workload names")
    p.add_argument("--rounds", type=int, help="timed rounds per workload (median reported)")
    p.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    p.add_argument("--rust-workers", type=int, default=1, help="Tokio workers of the Rust ceiling")
    p.add_argument(
        "--memory",
        choices=["auto", "on", "off"],
        default="auto",
        help="1M-record async-for RSS check (auto: full runs only)",
    )
    p.add_argument("--no-build", action="store_true", help="do not run cargo build first")
    p.add_argument("--out", type=Path, default=RESULTS)
    return p.parse_args(argv)


def new_loop(kind: str) -> asyncio.AbstractEventLoop:
    # Explicit loop: aerospike-sdk installs uvloop as the global policy on import; every async
    # client must run on the same loop implementation.
    if kind == "uvloop":
        import uvloop

        return uvloop.new_event_loop()
    return asyncio.SelectorEventLoop()


async def _fill(c: AsyncClient, keys: int, concurrency: int = 256) -> None:
    sem = asyncio.Semaphore(concurrency)  # also opens the connection pool

    async def one(i: int) -> None:
        async with sem:
            await c.put(i)

    await asyncio.gather(*(one(i) for i in range(keys)))


def open_client(
    cls: Any, t: Target, loop: asyncio.AbstractEventLoop, a: argparse.Namespace
) -> Client:
    """Connect and write this client's own keys (its prefix) with its own put."""
    if cls is RustCeiling:
        rust = RustCeiling(t, workers=a.rust_workers)
        rust.connect()
        rust.setup()
        return rust
    c = cls(t)
    if isinstance(c, SyncClient):
        c.connect()
        for i in range(t.keys):
            c.put(i)
        return c
    assert isinstance(c, AsyncClient)
    loop.run_until_complete(asyncio.wait_for(c.connect(), 30))
    loop.run_until_complete(_fill(c, t.keys))
    return c


def close_client(c: Client, loop: asyncio.AbstractEventLoop) -> None:
    try:
        if isinstance(c, AsyncClient):
            loop.run_until_complete(asyncio.wait_for(c.close(), 10))
        else:
            c.close()
    except Exception as e:
        log(f"  close {c.name}: {e}")


def memory_check(
    seed: str, rust: RustCeiling | None, srv_host: str, srv_port: int
) -> dict[str, Any]:
    name = dataset.load(rust, srv_host, srv_port, MEMORY_RECORDS, log, index=False)
    out: dict[str, Any] = {}
    for who in ("ours", "sdk"):
        cmd = [
            sys.executable,
            "-m",
            "benchmarks.memory",
            "--host",
            seed,
            "--set",
            name,
            "--client",
            who,
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
        lines = done.stdout.strip().splitlines()
        try:
            res = json.loads(lines[-1])
        except (IndexError, json.JSONDecodeError):
            res = {"ok": False, "error": (done.stderr or "no output")[-300:]}
        log(f"  memory {who}: {res}")
        if who == "ours":
            out.update(res)
        else:
            out["aerospike_sdk_for_comparison"] = res
    return out


def versions() -> dict[str, str]:
    out = {}
    for p in PACKAGES:
        try:
            out[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            out[p] = "not installed"
    return out


def main(argv: list[str] | None = None) -> int:
    a = parse(argv)
    started = time.monotonic()
    sizes = QUICK if a.quick else FULL
    rounds = a.rounds or sizes.rounds
    workloads = all_workloads(sizes)
    if a.workloads:
        wanted = set(a.workloads.split(","))
        workloads = [w for w in workloads if w.name in wanted]
    chosen = [(cid, cls) for cid, cls in ALL if not a.clients or cid in a.clients.split(",")]

    if not a.no_build:
        server.build(log)
    srv = server.start(a.host, log)
    log(f"server: {srv.kind} at {srv.host}:{srv.port}")
    loop = new_loop(a.loop)
    threads = Threads(8)
    clients: list[tuple[str, Client]] = []
    status: dict[str, dict[str, str]] = {}
    names = {cid: cls.name for cid, cls in ALL}
    try:
        for cid, cls in chosen:
            t = Target(srv.host, srv.port, prefix=cid, keys=sizes.keys)
            try:
                clients.append((cid, open_client(cls, t, loop, a)))
                status[cid] = {"name": cls.name, "status": "ok", "reason": ""}
                log(f"client {cid}: ready")
            except Skip as e:
                status[cid] = {"name": cls.name, "status": "skipped", "reason": str(e)}
            except Exception as e:
                status[cid] = {
                    "name": cls.name,
                    "status": "skipped",
                    "reason": f"{type(e).__name__}: {e}"[:300],
                }
            if status[cid]["status"] != "ok":
                log(f"client {cid}: skipped — {status[cid]['reason']}")
        rust = next((c for _, c in clients if isinstance(c, RustCeiling)), None)
        if any(w.op in ("scan", "query") for w in workloads):
            scan_set = dataset.load(rust, srv.host, srv.port, sizes.scan_records, log)
            for _, c in clients:
                c.t.scan_set = scan_set
        runner = Runner(loop, threads, srv.proc.pid if srv.proc is not None else None)
        table: dict[str, dict[str, Result | str]] = {}
        for w in workloads:
            log(f"workload {w.name} ({w.title})")
            table[w.name] = runner.run(clients, w, rounds, sizes.warmup_fraction, log)
        memory: dict[str, Any] = {}
        if a.memory == "on" or (a.memory == "auto" and not a.quick):
            log(f"memory check: {MEMORY_RECORDS} records through async for")
            memory = memory_check(f"{srv.host}:{srv.port}", rust, srv.host, srv.port)
        meta = {
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "server": srv.kind,
            "quick": a.quick,
            "rounds": rounds,
            "loop": a.loop,
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "packages": versions(),
            "rust_workers": a.rust_workers,
            "seconds": round(time.monotonic() - started, 1),
        }
        doc = report.to_json(
            meta, status, workloads, table, targets.check(workloads, table, memory), memory
        )
        paths = report.write(a.out, doc, names)
        png = chart.write(a.out / "latest.png", doc, names)
        for p in [*paths, *([png] if png else [])]:
            log(f"wrote {p}")
        print(report.to_markdown(doc, names))
    finally:
        for _, c in clients:
            close_client(c, loop)
        threads.pool.shutdown()
        loop.close()
        srv.stop()
    return 0
