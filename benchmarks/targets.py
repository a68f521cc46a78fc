"""Ratios behind each figure, and the targets of issues 6 and 24 checked against one run."""

from __future__ import annotations

from typing import Any

from benchmarks.stats import Result
from benchmarks.workloads import Workload

C, RUST = "c", "rust"


def speed(w: Workload, r: Result) -> float:
    """Higher is faster: records/s for scans, ops/s for concurrent runs, 1/latency otherwise."""
    if w.op == "scan":
        return r.records_per_s
    if w.throughput:
        return r.ops_per_s
    return 1e6 / r.mean_us if r.mean_us else 0.0


def ratio(w: Workload, results: dict[str, Result | str], cid: str, ref: str) -> float | None:
    """How many times faster ``cid`` is than ``ref`` here (None if either is missing)."""
    a, b = results.get(cid), results.get(ref)
    if not isinstance(a, Result) or not isinstance(b, Result):
        return None
    sa, sb = speed(w, a), speed(w, b)
    return sa / sb if sb else None


def check(
    workloads: list[Workload], table: dict[str, dict[str, Result | str]], memory: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each target: what it asks, the measured ratio (time ratio where the target is a time)."""
    by_name = {w.name: w for w in workloads}
    out: list[dict[str, Any]] = []

    def add(text: str, wname: str, cid: str, ref: str, limit: float, time_ratio: bool) -> None:
        w = by_name.get(wname)
        r = ratio(w, table.get(wname, {}), cid, ref) if w else None
        measured = None if r is None else (1 / r if time_ratio else r)
        ok = None if measured is None else (measured <= limit if time_ratio else measured >= limit)
        out.append({"target": text, "measured": measured, "limit": limit, "ok": ok})

    for wname in ("put", "get"):
        add(f"sync {wname} latency <= 0.95x C client", wname, "ours-sync", C, 0.95, True)
    for wname in ("c50_get", "c50_put"):
        add(f"{wname}: native path >= 1.5x sdk fast", wname, "ours-native", "sdk-async", 1.5, False)
        add(f"{wname}: builder path >= 1.3x sdk fast", wname, "ours-async", "sdk-async", 1.3, False)
    # not a default path: the opt-in auto_batch mode, on lines of their own (issue 24)
    for wname in ("c50_get", "c50_put", "c256_get", "c256_put"):
        text = f"{wname}: builder with auto_batch (opt-in) >= 2x sdk fast"
        add(text, wname, "ours-autobatch", "sdk-async", 2.0, False)

    def add_measured(text: str, wname: str, measured: float | None, limit: float) -> None:
        if wname in by_name:
            ok = None if measured is None else measured <= limit
            out.append({"target": text, "measured": measured, "limit": limit, "ok": ok})

    for wname in ("c50_get", "c50_put", "c256_get", "c256_put"):
        row = table.get(wname, {})
        text = f"{wname}: builder CPU per op <= 0.85x sdk fast"
        add_measured(text, wname, _cpu_ratio(row, "ours-async", "sdk-async"), 0.85)
    # issue 51 item 2: the builder's CPU per call below aerospike-sdk's in every round
    for wname in ("c50_get", "c50_put", "c256_get", "c256_put"):
        row = table.get(wname, {})
        text = f"{wname}: builder CPU per op < sdk fast's in its highest round"
        highest = highest_cpu_round_ratio(row, "ours-async", "sdk-async")
        out.append(
            {
                "target": text,
                "measured": highest,
                "limit": 1.0,
                "ok": None if highest is None else highest < 1.0,
            }
        )
    # issue 51: the auto_batch lead in every round, and its client CPU per call
    for wname in ("c50_get", "c50_put", "c256_get", "c256_put"):
        row = table.get(wname, {})
        lowest = _lowest_round_ratio(row, "ours-autobatch", "sdk-async")
        text = f"{wname}: auto_batch >= 2x sdk fast in its lowest round"
        out.append(
            {
                "target": text,
                "measured": lowest,
                "limit": 2.0,
                "ok": None if lowest is None else lowest >= 2.0,
            }
        )
        text = f"{wname}: auto_batch CPU per op <= raw Rust's"
        add_measured(text, wname, _cpu_ratio(row, "ours-autobatch", RUST), 1.0)
    add("batch1000 time <= 0.8x C client (sync)", "batch1000", "ours-sync", C, 0.8, True)
    add("batch1000 time <= 0.8x C client (async)", "batch1000", "ours-async", C, 0.8, True)
    for wname in ("put", "get", "exists", "operate"):
        for cid in ("ours-async", "ours-sync"):
            add(f"{wname}: {cid} time <= 1.25x raw Rust", wname, cid, RUST, 1.25, True)
    if memory:
        growth = memory.get("growth_mb")
        out.append(
            {
                "target": f"{memory.get('records', '?')}-record async-for scan: RSS growth < 64 MB",
                "measured": growth,
                "limit": 64,
                "ok": None if growth is None else growth < 64,
            }
        )
    return out


def _cpu_ratio(row: dict[str, Result | str], cid: str, ref: str) -> float | None:
    """``cid``'s client CPU per op over ``ref``'s (medians over rounds)."""
    a, b = row.get(cid), row.get(ref)
    if not isinstance(a, Result) or not isinstance(b, Result):
        return None
    x, y = a.cpu_us_per_op, b.cpu_us_per_op
    return x / y if x and y else None


def _lowest_round_ratio(row: dict[str, Result | str], cid: str, ref: str) -> float | None:
    """The lowest ops/s ratio of ``cid`` over ``ref`` among rounds (both ran in each round)."""
    a, b = row.get(cid), row.get(ref)
    if not isinstance(a, Result) or not isinstance(b, Result):
        return None
    pairs = list(zip(a.ops_per_s_by_round, b.ops_per_s_by_round, strict=False))
    return min((x / y for x, y in pairs if y), default=None)


def highest_cpu_round_ratio(row: dict[str, Result | str], cid: str, ref: str) -> float | None:
    """The highest client CPU per op ratio of ``cid`` over ``ref`` among rounds."""
    a, b = row.get(cid), row.get(ref)
    if not isinstance(a, Result) or not isinstance(b, Result):
        return None
    pairs = zip(a.cpu_us_per_op_by_round, b.cpu_us_per_op_by_round, strict=False)
    return max((x / y for x, y in pairs if x and y), default=None)
