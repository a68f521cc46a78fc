"""Memory check: stream a large scan through ``async for`` (records, or Arrow batches with
``--client ours-arrow``) and report RSS growth.

Runs in its own process (``python -m benchmarks.memory --host h:p --set S``) so the other
clients' allocations do not count; prints one JSON line. The peak is this process's own
``VmHWM``, restarted after connect: ``ru_maxrss`` would not do, Linux carries the parent's peak
RSS over ``fork``/``exec`` into it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import time
from typing import Any

from benchmarks.adapters.base import NAMESPACE


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_mb() -> float:
    """Peak resident set size of this process (since ``restart_peak``) in MiB."""
    return _status_mb("VmHWM")


def restart_peak() -> float:
    """Restart the peak at the current RSS and return it (the baseline)."""
    # Without clear_refs (kernels before 4.0) the peak also counts start-up, i.e. overstates.
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status_mb("VmRSS")


async def stream_ours(seed: str, set_name: str, arrow: bool = False) -> tuple[int, float, float]:
    af: Any = importlib.import_module("aerospike_fluent")
    db: Any = await af.connect(seed)
    try:
        before, n = restart_peak(), 0
        query = db.namespace(NAMESPACE).set(set_name).query().timeout(600)
        if arrow:
            async for batch in query.arrow_batches():
                n += batch.num_rows
        else:
            async for _ in query.stream():
                n += 1
        return n, before, peak_mb()
    finally:
        db.close()


async def stream_ours_arrow(seed: str, set_name: str) -> tuple[int, float, float]:
    return await stream_ours(seed, set_name, arrow=True)


async def stream_sdk(seed: str, set_name: str) -> tuple[int, float, float]:
    import aerospike_sdk as m

    host, _, port = seed.rpartition(":")
    cluster: Any = await m.ClusterDefinition(host, int(port)).connect()
    try:
        session = cluster.create_session(m.Behavior.DEFAULT)
        before, n = restart_peak(), 0
        async for _ in await session.query(m.DataSet.of(NAMESPACE, set_name)).execute():
            n += 1
        return n, before, peak_mb()
    finally:
        await cluster.close()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--host", required=True)
    p.add_argument("--set", required=True)
    p.add_argument("--client", choices=["ours", "ours-arrow", "sdk"], default="ours")
    a = p.parse_args()
    fn = {"ours": stream_ours, "ours-arrow": stream_ours_arrow, "sdk": stream_sdk}[a.client]
    start = time.perf_counter()
    try:
        n, before, peak = asyncio.run(fn(a.host, a.set))
    except Exception as e:
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"[:300]}))
        return
    out = {
        "ok": True,
        "client": a.client,
        "records": n,
        "seconds": round(time.perf_counter() - start, 2),
        "rss_before_mb": round(before, 1),
        "rss_peak_mb": round(peak, 1),
        "growth_mb": round(peak - before, 1),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
