"""Speed of the embedded server itself, measured with the official C client.

Starts the release ``embedded-server`` binary as a separate process (or uses ``--host``), runs
sequential put/get with the C client (concurrency 1) and with 50 threads (concurrency 50), and
reports ops/s plus the server process's CPU time per request read from ``/proc/<pid>/stat``.

    python benchmarks/server_speed.py [--ops 20000] [--binary target/release/embedded-server]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aerospike

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds consumed so far by process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def start_server(binary: Path) -> tuple[subprocess.Popen[str], int]:
    """Starts the server on a free port; returns the process and the port."""
    proc = subprocess.Popen(
        [str(binary), "--port", "0"], stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise RuntimeError(f"unexpected server output: {line!r}")
    return proc, int(line.rsplit(":", 1)[1])


def run(
    label: str, pid: int | None, n: int, threads: int, work: Callable[[int], None]
) -> dict[str, float]:
    """Runs ``work(i)`` for i in range(n) over ``threads`` threads; returns rate and CPU/op."""
    cpu0 = cpu_seconds(pid) if pid else 0.0
    start = time.perf_counter()
    if threads == 1:
        for i in range(n):
            work(i)
    else:

        def loop(t: int) -> None:
            for i in range(t, n, threads):
                work(i)

        pool = [threading.Thread(target=loop, args=(t,)) for t in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
    elapsed = time.perf_counter() - start
    cpu = (cpu_seconds(pid) - cpu0) if pid else float("nan")
    result = {"ops_per_s": n / elapsed, "server_cpu_us_per_op": cpu / n * 1e6}
    print(
        f"{label:<12} {result['ops_per_s']:>10.0f} ops/s   "
        f"server CPU {result['server_cpu_us_per_op']:6.2f} µs/op"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=20000)
    parser.add_argument("--binary", type=Path, default=ROOT / "target/release/embedded-server")
    parser.add_argument("--host", help="host:port of an already running server (no CPU figures)")
    args = parser.parse_args()

    proc = None
    if args.host:
        host, _, port_text = args.host.rpartition(":")
        port, pid = int(port_text), None
    else:
        if not args.binary.exists():
            raise SystemExit(f"build it first: cargo build --release -p server ({args.binary})")
        proc, port = start_server(args.binary)
        host, pid = "127.0.0.1", proc.pid
    client: Any = aerospike.client({"hosts": [(host, port)], "max_conns_per_node": 300}).connect()
    try:
        keys = [("test", "bench", i) for i in range(args.ops)]
        bins = {"a": 1, "s": "value"}
        for k in keys[:200]:
            client.put(k, bins)
        run("put c=1", pid, args.ops, 1, lambda i: client.put(keys[i], bins))
        run("get c=1", pid, args.ops, 1, lambda i: client.get(keys[i]))
        run("put c=50", pid, args.ops, 50, lambda i: client.put(keys[i], bins))
        run("get c=50", pid, args.ops, 50, lambda i: client.get(keys[i]))
    finally:
        client.close()
        if proc is not None:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
