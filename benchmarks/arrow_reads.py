"""A set into Arrow against the C client: ``python -m benchmarks.arrow_reads [--quick]``.

One server (``--host`` / ``AEROSPIKE_HOST``, else the embedded server in its own process) holds
100,000 records of ``benchmarks.scans`` (an int, a 32-character string, a float, an int; 10,000
with ``--quick``). Each round reads the whole set once per reader, the order rotated every
round: the C client's ``query().foreach`` into a list then ``pyarrow.Table.from_pylist``, and
this SDK's ``to_arrow()`` (sync, async) and ``arrow_batches()`` (sync, async), each into a
``pyarrow.Table``. Per reader: records/s, how many times faster than the C client in the same
round (median and range over rounds), client CPU per record (this process, every thread) and
the server's (when it is the embedded one). Writes ``results/arrow_reads.{md,json}``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
from pathlib import Path

from benchmarks import server as servers
from benchmarks.feature_cost import RESULTS
from benchmarks.scans import Workloads, _load, _measure

PEER = "c_arrow"
READERS = [PEER, "sync_arrow", "async_arrow", "sync_batches", "async_batches"]
LABELS = {
    PEER: "C client: foreach into a list, Table.from_pylist",
    "sync_arrow": "to_arrow(), sync",
    "async_arrow": "to_arrow(), async",
    "sync_batches": "arrow_batches(), sync",
    "async_batches": "arrow_batches(), async",
}

Sample = dict[str, float]


def run(seed: str, server_pid: int | None, records: int, rounds: int) -> dict[str, list[Sample]]:
    """Per reader, one sample per round (after a warm-up read of each)."""
    set_name = f"bench_scans_{records}"
    _load(seed, set_name, records)
    w = Workloads(seed, set_name)
    samples: dict[str, list[Sample]] = {name: [] for name in READERS}
    try:
        for name in READERS:
            getattr(w, name)()
        for r in range(rounds):
            order = READERS[r % len(READERS) :] + READERS[: r % len(READERS)]
            for name in order:
                samples[name].append(_measure(getattr(w, name), server_pid))
            print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    finally:
        w.close()
    return samples


def summary(samples: dict[str, list[Sample]]) -> dict[str, dict[str, float]]:
    """Medians per reader; ``x_c``: records/s over the C client's in the same round."""
    peer = samples[PEER]
    out: dict[str, dict[str, float]] = {}
    for name, runs in samples.items():
        ratios = sorted(s["rec_s"] / p["rec_s"] for s, p in zip(runs, peer, strict=True))
        cpu = sorted(s["cpu_us"] for s in runs)
        cell = {
            "rec_s": statistics.median(s["rec_s"] for s in runs),
            "x_c": statistics.median(ratios),
            "x_c_low": ratios[0],
            "x_c_high": ratios[-1],
            "cpu_us": statistics.median(cpu),
            "cpu_us_low": cpu[0],
            "cpu_us_high": cpu[-1],
        }
        server = [s["server_us"] for s in runs if "server_us" in s]
        if server:
            cell["server_us"] = statistics.median(server)
        out[name] = cell
    return out


def write(out: Path, cells: dict[str, dict[str, float]], head: str, stem: str) -> None:
    """``<stem>.json`` and ``<stem>.md``: the table, printed too."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps({"about": head, "results": cells}, indent=2))
    peer_cpu = cells[PEER]["cpu_us"]
    lines = [
        "# A set into a pyarrow.Table, against the C client",
        "",
        head,
        "",
        "| reader | records/s | x C (median, range) | CPU µs/record (range) | C CPU / CPU "
        "| server µs/record |",
        "|---|---|---|---|---|---|",
    ]
    for name, c in cells.items():
        server = f"{c['server_us']:.2f}" if "server_us" in c else "-"
        lines.append(
            f"| {LABELS[name]} | {c['rec_s']:,.0f} | {c['x_c']:.2f}x "
            f"({c['x_c_low']:.2f}-{c['x_c_high']:.2f}) | {c['cpu_us']:.2f} "
            f"({c['cpu_us_low']:.2f}-{c['cpu_us_high']:.2f}) | {peer_cpu / c['cpu_us']:.2f} "
            f"| {server} |"
        )
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.arrow_reads", description=__doc__)
    p.add_argument("--host")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int)
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--stem", default="arrow_reads", help="results file name, without suffix")
    a = p.parse_args(argv)
    records = 10_000 if a.quick else 100_000
    rounds = a.rounds or (3 if a.quick else 7)
    srv = servers.start(a.host, lambda m: print(m, file=sys.stderr))
    try:
        pid = srv.proc.pid if srv.proc is not None else None
        load_before = os.getloadavg()[0]
        samples = run(f"{srv.host}:{srv.port}", pid, records, rounds)
        load_after = os.getloadavg()[0]
    finally:
        srv.stop()
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    head = (
        f"{stamp} · {srv.kind} · {records:,} records of 4 bins · {rounds} rounds, order "
        f"rotated · load average {load_before:.1f} before, {load_after:.1f} after "
        f"({os.cpu_count()} CPUs)"
    )
    write(a.out, summary(samples), head, a.stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
