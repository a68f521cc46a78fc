"""Transactions against the C client's: ``python -m benchmarks.transactions [--quick]``.

One embedded Enterprise server (namespace ``test`` in strong-consistency mode) in a process
of its own; this SDK's blocking client and the C client run the same transactions in turns
(the order swapped every round): two writes then commit, and two reads plus two writes then
commit, each on keys of its own. Writes ``results/transactions.{md,json}``.
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.feature_cost import options, server_process
from benchmarks.interleaved import Measure, medians, run_rounds

SERVER = """
import sys
from aerospike_fluent.server import EmbeddedServer
server = EmbeddedServer(edition="enterprise", strong_consistency=["test"])
print(server.port, flush=True)
sys.stdin.read()
"""

SET = "txbench"


def fluent_txn(db: Any, n: int, reads: bool) -> Measure:
    def run() -> int:
        for i in range(n):
            with db.transaction() as tx:
                t = tx.namespace("test").set(SET)
                a, b = t.key(f"a{i % 64}"), t.key(f"b{i % 64}")
                if reads:
                    a.get()
                    b.get()
                a.put({"v": i})
                b.put({"v": i})
        return n

    return run


def c_txn(c: Any, n: int, reads: bool) -> Measure:
    import aerospike

    def run() -> int:
        for i in range(n):
            txn = aerospike.Transaction()
            policy = {"txn": txn}
            a, b = ("test", SET, f"ca{i % 64}"), ("test", SET, f"cb{i % 64}")
            if reads:
                c.get(a, policy=policy)
                c.get(b, policy=policy)
            c.put(a, {"v": i}, policy=policy)
            c.put(b, {"v": i}, policy=policy)
            c.commit(txn)
        return n

    return run


def workloads(n: int) -> dict[str, Callable[[str, Any], Measure]]:
    """Per workload: (client kind, client) -> one timed run of ``n`` transactions."""

    def make(reads: bool) -> Callable[[str, Any], Measure]:
        def build(kind: str, client: Any) -> Measure:
            return (fluent_txn if kind == "fluent" else c_txn)(client, n, reads)

        return build

    return {"2 writes + commit": make(False), "2 reads + 2 writes + commit": make(True)}


def main(argv: list[str] | None = None) -> int:
    import aerospike

    from aerospike_fluent import sync as afs

    args = options("transactions", __doc__, argv)
    n = 200 if args.quick else 2000
    rounds = args.rounds or (3 if args.quick else 7)
    with server_process(SERVER) as port:
        c: Any = aerospike.client({"hosts": [("127.0.0.1", port)]}).connect()
        with afs.connect(f"127.0.0.1:{port}") as db:
            clients = {"aerospike_fluent": ("fluent", db), "C client": ("c", c)}
            samples = run_rounds(workloads(n), clients, rounds)
        c.close()
    write(args.out, medians(samples), rounds, n)
    return 0


def write(out: Path, table: dict[str, dict[str, dict[str, float]]], rounds: int, n: int) -> None:
    """Write ``transactions.json`` and a table with the ratios, ``transactions.md``."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    (out / "transactions.json").write_text(
        json.dumps({"when": stamp, "rounds": rounds, "transactions": n, "results": table}, indent=2)
    )
    lines = [
        "# Transactions",
        "",
        f"{stamp} · embedded server, strong-consistency namespace · {rounds} rounds (median)"
        f" · {n:,} transactions per run · blocking clients",
        "",
        "| transaction | aerospike_fluent µs | C client µs | time ratio | CPU µs (ours / C) |",
        "|---|---|---|---|---|",
    ]
    for name, by in table.items():
        ours, theirs = by["aerospike_fluent"], by["C client"]
        lines.append(
            f"| {name} | {ours['us_per_op']:.0f} | {theirs['us_per_op']:.0f} | "
            f"{ours['us_per_op'] / theirs['us_per_op']:.2f}x | "
            f"{ours['cpu_us_per_op']:.0f} / {theirs['cpu_us_per_op']:.0f} |"
        )
    (out / "transactions.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
