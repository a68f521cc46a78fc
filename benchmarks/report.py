"""``latest.json`` and ``latest.md`` under ``benchmarks/results/``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.stats import Result
from benchmarks.targets import RUST, C, ratio, speed
from benchmarks.workloads import Workload

Table = dict[str, dict[str, Result | str]]


def to_json(
    meta: dict[str, Any],
    clients: dict[str, dict[str, str]],
    workloads: list[Workload],
    table: Table,
    targets: list[dict[str, Any]],
    memory: dict[str, Any],
) -> dict[str, Any]:
    rows = []
    for w in workloads:
        res: dict[str, Any] = {}
        for cid, r in table.get(w.name, {}).items():
            if isinstance(r, Result):
                res[cid] = r.to_dict() | {
                    "speed": speed(w, r),
                    "vs_c": ratio(w, table[w.name], cid, C),
                    "vs_rust": ratio(w, table[w.name], cid, RUST),
                }
            else:
                res[cid] = {"error": r}
        rows.append(
            {
                "name": w.name,
                "title": w.title,
                "op": w.op,
                "mode": w.mode,
                "concurrency": w.concurrency,
                "size": w.size,
                "ops_per_round": w.ops,
                "results": res,
            }
        )
    return {
        "meta": meta,
        "clients": clients,
        "workloads": rows,
        "targets": targets,
        "memory": memory,
    }


def _f(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _num(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def _cpu(x: float | None) -> str:
    return "—" if x is None else _num(x)


def to_markdown(doc: dict[str, Any], names: dict[str, str]) -> str:
    m = doc["meta"]
    lines = [
        "# Benchmark results",
        "",
        f"{m['date']} · server: {m['server']} · {'quick' if m['quick'] else 'full'} run · "
        f"{m['rounds']} rounds (median) · loop: {m['loop']} · {m['cpus']} CPUs",
        "",
        "Latencies in µs (median over rounds of each round's mean/p50/p99). **xC** and **xRust**: "
        "how many times faster than the C client / the raw Rust client (>1 = faster; "
        "from latency for sequential workloads, ops/s for concurrent ones, records/s for scans). "
        "**CPU/op** and **server/op**: CPU µs per operation (per scan or query for those) used "
        "during the round by the client's process (every thread; for the Python clients that is "
        "the whole harness process) and by the server's.",
        "",
    ]
    for w in doc["workloads"]:
        lines += [f"## {w['title']}", ""]
        rate = "records/s" if w["op"] == "scan" else "ops/s"
        lines += [
            f"| client | mean | p50 | p99 | {rate} | xC | xRust | CPU/op | server/op |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for cid, r in w["results"].items():
            name = names.get(cid, cid)
            if "error" in r:
                lines.append(f"| {name} | error: {r['error'][:120]} | | | | | | | |")
                continue
            rv = r["records_per_s"] if w["op"] == "scan" else r["ops_per_s"]
            lines.append(
                f"| {name} | {_num(r['mean_us'])} | {_num(r['p50_us'])} | {_num(r['p99_us'])} "
                f"| {_num(rv)} | {_f(r['vs_c'])} | {_f(r['vs_rust'])} "
                f"| {_cpu(r['cpu_us_per_op'])} | {_cpu(r['server_cpu_us_per_op'])} |"
            )
        lines.append("")
        if w["mode"] != "seq":
            lines += _by_round(w["results"], names)
    lines += ["## Targets (issue 6)", "", "| target | measured | ok |", "|---|---|---|"]
    for t in doc["targets"]:
        ok = {True: "yes", False: "**no**", None: "n/a"}[t["ok"]]
        lines.append(f"| {t['target']} | {_f(t['measured'])} | {ok} |")
    lines.append("")
    if doc["memory"]:
        lines += ["## Memory", "", "```", json.dumps(doc["memory"], indent=1), "```", ""]
    skipped = {k: v for k, v in doc["clients"].items() if v["status"] != "ok"}
    if skipped:
        lines += ["## Skipped clients", ""]
        lines += [f"- {names.get(k, k)}: {v['reason']}" for k, v in skipped.items()]
        lines.append("")
    return "\n".join(lines)


def _by_round(results: dict[str, Any], names: dict[str, str]) -> list[str]:
    """Each round of a concurrent workload, in the order run.

    Ops/s, the client's CPU µs per op, the µs per op its threads waited for a CPU, and the
    machine probe's µs (the same fixed work each round: higher = the machine ran slower).
    """
    lines = [
        "| client | ops/s by round | CPU/op by round | waited for a CPU, µs/op | probe µs |",
        "|---|---|---|---|---|",
    ]
    for cid, r in results.items():
        if "error" in r or not r.get("ops_per_s_by_round"):
            continue
        rates = ", ".join(_num(x) for x in r["ops_per_s_by_round"])
        cpus = ", ".join(_cpu(x) for x in r["cpu_us_per_op_by_round"])
        waits = ", ".join(_cpu(x) for x in r.get("wait_us_per_op_by_round", ()))
        probes = ", ".join(_cpu(x) for x in r.get("probe_us_by_round", ()))
        lines.append(f"| {names.get(cid, cid)} | {rates} | {cpus} | {waits} | {probes} |")
    if len(lines) == 2:
        return []
    return [*lines, "", *_cpu_split(results, names)]


def _cpu_split(results: dict[str, Any], names: dict[str, str]) -> list[str]:
    """Per round, the builder's CPU per op over aerospike-sdk's, and over raw Rust's plus
    the floor's (the Python call itself: ``ours-floor``)."""
    cpu = {c: r.get("cpu_us_per_op_by_round") for c, r in results.items() if "error" not in r}
    ours, sdk = cpu.get("ours-async"), cpu.get("sdk-async")
    rust, floor = cpu.get("rust"), cpu.get("ours-floor")
    lines = []

    def ratios(xs: Any, ys: Any) -> list[float]:
        return [x / y for x, y in zip(xs, ys, strict=False) if x and y]

    if ours and sdk and (r := ratios(ours, sdk)):
        below = sum(x < 1 for x in r)
        lines.append(
            f"{names.get('ours-async', 'ours-async')} CPU per op over "
            f"{names.get('sdk-async', 'sdk-async')}'s, by round: "
            f"{', '.join(_f(x) for x in r)} (below it in {below} of {len(r)})"
        )
    if ours and rust and floor:
        base = [x + y if x and y else None for x, y in zip(rust, floor, strict=False)]
        if r := ratios(ours, base):
            lines.append(
                f"... over raw Rust's plus the floor's, by round: {', '.join(_f(x) for x in r)}"
            )
    return [*lines, ""] if lines else []


def write(out_dir: Path, doc: dict[str, Any], names: dict[str, str]) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    j, md = out_dir / "latest.json", out_dir / "latest.md"
    j.write_text(json.dumps(doc, indent=1) + "\n")
    md.write_text(to_markdown(doc, names))
    return [j, md]
