"""Scans, queries and Arrow side by side with the C client, interleaved round by round.

    python -m benchmarks.scans [--host h:p] [--records N] [--rounds R] [--only a,b]

One process, one server (``--host`` / ``AEROSPIKE_HOST``, else the release embedded server in
its own process). Each round runs every workload once, in an order rotated every round; the
table gives the median over rounds of records/s and of CPU per record (this process, every
thread; and the server's when it is ours), and the ratio to the C client's figure of the same
kind from the same rounds:

- ``scan``: every record of the set, counted (C: ``query().foreach``; ours: ``for r in
  q.stream()`` sync, ``async for r in q`` async);
- ``bins``: the same, reading every record's bins (C: ``len(bins)`` of the tuple it hands
  over; ours: ``len(r.bins)``, which builds the dict a streamed record otherwise builds only
  when first asked for);
- ``query``: a secondary-index range selecting 10 % of the set;
- ``arrow``: the set into a ``pyarrow.Table`` (C: ``foreach`` into a list, then
  ``pa.Table.from_pylist``; ours: ``pa.table(q.to_arrow())``);
- ``batches``: ours as Arrow batches of 4096 rows (the default), each handed to pyarrow and dropped.

Nothing is asserted; the numbers go in commit bodies and ``benchmarks/NOTES.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks import server as servers
from benchmarks.cpu import process_cpu_ns

NAMESPACE = "test"
INDEX_SPAN = 100
"""``g = id % 1000``; the query selects ``g`` in ``[0, INDEX_SPAN)``: 10 % of the set."""


def _load(seed: str, set_name: str, records: int) -> None:
    import aerospike_fluent.sync as afs
    from aerospike_fluent import errors

    with afs.connect(seed) as db:
        s = db.namespace(NAMESPACE).set(set_name)
        if s.query().count() >= records:
            return
        for start in range(0, records, 5000):
            rows = {
                i: {"i": i, "s": f"value-{i:026d}", "f": i / 7, "g": i % 1000}
                for i in range(start, min(start + 5000, records))
            }
            s.put_many(rows).raise_on_error()
        with contextlib.suppress(errors.IndexAlreadyExistsError):
            s.create_index("g", "numeric", name=f"{set_name}_g")


class Workloads:
    """Every client's way of running each workload; each returns the records it read."""

    def __init__(self, seed: str, set_name: str) -> None:
        import aerospike
        import pyarrow as pa

        import aerospike_fluent as af
        import aerospike_fluent.sync as afs

        host, _, port = seed.rpartition(":")
        self.pa = pa
        self.set_name = set_name
        self.c: Any = aerospike.client(
            {"hosts": [(host, int(port))], "policies": {"timeout": 60_000}}
        ).connect()
        self.sdb = afs.connect(seed, total_timeout=60)
        self.loop = asyncio.new_event_loop()
        self.adb = self.loop.run_until_complete(af.connect(seed, total_timeout=60))
        self.ss = self.sdb.namespace(NAMESPACE).set(set_name)
        self.aset = self.adb.namespace(NAMESPACE).set(set_name)
        from aerospike import predicates

        self.between = predicates.between

    def close(self) -> None:
        self.c.close()
        self.sdb.close()
        self.adb.close()
        self.loop.close()

    # ------------------------------------------------------------------ C client
    def _c_query(self, indexed: bool) -> Any:
        q = self.c.query(NAMESPACE, self.set_name)
        if indexed:
            q.where(self.between("g", 0, INDEX_SPAN - 1))
        return q

    def _c_count(self, indexed: bool) -> int:
        n = 0

        def each(_record: Any) -> None:
            nonlocal n
            n += 1

        self._c_query(indexed).foreach(each)
        return n

    def c_scan(self) -> int:
        return self._c_count(False)

    def c_bins(self) -> int:
        n = 0

        def each(record: Any) -> None:
            nonlocal n
            n += len(record[2]) > 0

        self._c_query(False).foreach(each)
        return n

    def c_query(self) -> int:
        return self._c_count(True)

    def c_arrow(self) -> int:
        rows: list[dict[str, Any]] = []
        self._c_query(False).foreach(lambda r: rows.append(r[2]))
        return int(self.pa.Table.from_pylist(rows).num_rows)

    # ------------------------------------------------------------------ ours, sync
    def _sq(self, indexed: bool) -> Any:
        q = self.ss.query()
        return q.where_index("g").between(0, INDEX_SPAN - 1) if indexed else q

    def sync_scan(self) -> int:
        return sum(1 for _ in self._sq(False).stream())

    def sync_bins(self) -> int:
        return sum(len(r.bins) > 0 for r in self._sq(False).stream())

    def sync_query(self) -> int:
        return sum(1 for _ in self._sq(True).stream())

    def sync_arrow(self) -> int:
        return int(self.pa.table(self._sq(False).to_arrow()).num_rows)

    def sync_batches(self) -> int:
        return sum(self.pa.table(b).num_rows for b in self._sq(False).arrow_batches())

    # ------------------------------------------------------------------ ours, async
    def _aq(self, indexed: bool) -> Any:
        q = self.aset.query()
        return q.where_index("g").between(0, INDEX_SPAN - 1) if indexed else q

    def _run(self, coro: Any) -> int:
        return int(self.loop.run_until_complete(coro))

    def _acount(self, indexed: bool) -> int:
        async def go() -> int:
            n = 0
            async for _ in self._aq(indexed):
                n += 1
            return n

        return self._run(go())

    def async_scan(self) -> int:
        return self._acount(False)

    def async_bins(self) -> int:
        async def go() -> int:
            n = 0
            async for r in self._aq(False):
                n += len(r.bins) > 0
            return n

        return self._run(go())

    def async_query(self) -> int:
        return self._acount(True)

    def async_arrow(self) -> int:
        async def go() -> int:
            return int(self.pa.table(await self._aq(False).to_arrow()).num_rows)

        return self._run(go())

    def async_batches(self) -> int:
        async def go() -> int:
            n = 0
            async for b in self._aq(False).arrow_batches():
                n += self.pa.table(b).num_rows
            return n

        return self._run(go())


CASES = {
    "scan": ["c_scan", "sync_scan", "async_scan"],
    "bins": ["c_bins", "sync_bins", "async_bins"],
    "query": ["c_query", "sync_query", "async_query"],
    "arrow": ["c_arrow", "sync_arrow", "async_arrow", "sync_batches", "async_batches"],
}


def _measure(fn: Callable[[], int], server_pid: int | None) -> dict[str, float]:
    gc.collect()
    gc.disable()
    try:
        srv = process_cpu_ns(server_pid)
        cpu = time.process_time_ns()
        t = time.perf_counter_ns()
        n = fn()
        wall = time.perf_counter_ns() - t
        cpu = time.process_time_ns() - cpu
        srv_after = process_cpu_ns(server_pid)
    finally:
        gc.enable()
    out = {"records": n, "rec_s": n / (wall / 1e9), "cpu_us": cpu / 1e3 / max(n, 1)}
    if srv is not None and srv_after is not None:
        out["server_us"] = (srv_after - srv) / 1e3 / max(n, 1)
    return out


def run(seed: str, server_pid: int | None, records: int, rounds: int, only: set[str]) -> str:
    set_name = f"bench_scans_{records}"
    _load(seed, set_name, records)
    w = Workloads(seed, set_name)
    names = [n for case in CASES.values() for n in case if not only or n in only]
    results: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    try:
        for fn_name in names:  # warm-up
            getattr(w, fn_name)()
        for r in range(rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for fn_name in order:
                results[fn_name].append(_measure(getattr(w, fn_name), server_pid))
            print(f"round {r + 1}/{rounds} done", file=sys.stderr)
    finally:
        w.close()
    return _table(results, records, rounds)


def _median(samples: list[dict[str, float]], key: str) -> float | None:
    values = [s[key] for s in samples if key in s]
    return statistics.median(values) if values else None


def _table(results: dict[str, list[dict[str, float]]], records: int, rounds: int) -> str:
    lines = [
        f"{records:,} records of 4 bins, {rounds} rounds (median), interleaved",
        "",
        "| workload | client | records/s | x C | CPU µs/record | server µs/record |",
        "|---|---|---|---|---|---|",
    ]
    for case, fns in CASES.items():
        base = _median(results.get(fns[0], []), "rec_s")
        for fn_name in fns:
            if fn_name not in results:
                continue
            rate = _median(results[fn_name], "rec_s") or 0.0
            cpu = _median(results[fn_name], "cpu_us") or 0.0
            srv = _median(results[fn_name], "server_us")
            ratio = f"{rate / base:.2f}" if base else "-"
            srv_text = f"{srv:.2f}" if srv is not None else "-"
            lines.append(f"| {case} | {fn_name} | {rate:,.0f} | {ratio} | {cpu:.2f} | {srv_text} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Entry point (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host")
    p.add_argument("--records", type=int, default=100_000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--only", default="", help="comma-separated workload functions")
    a = p.parse_args(argv)
    srv = servers.start(a.host, lambda m: print(m, file=sys.stderr))
    try:
        pid = srv.proc.pid if srv.proc is not None else None
        only = {x for x in a.only.split(",") if x}
        print(run(f"{srv.host}:{srv.port}", pid, a.records, a.rounds, only))
    finally:
        srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
