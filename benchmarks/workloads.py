"""The workloads and their sizes (full run and ``--quick``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Mode = Literal["seq", "async", "threads"]


@dataclass(frozen=True)
class Workload:
    """``ops`` commands per round of ``op``; ``mode`` says which clients run it and how."""

    name: str
    op: str
    ops: int
    mode: Mode = "seq"
    concurrency: int = 1
    size: int = 0
    low: int = 0
    high: int = 0
    throughput: bool = False  # headline figure is ops/s rather than latency

    @property
    def title(self) -> str:
        return {
            "seq": f"{self.name}: sequential, one command at a time",
            "async": f"{self.name}: {self.concurrency} asyncio tasks, each awaiting its next call",
            "threads": f"{self.name}: {self.concurrency} threads (sync clients)",
        }[self.mode]


@dataclass(frozen=True)
class Sizes:
    """Everything the run size changes."""

    seq_ops: int
    batch100_ops: int
    batch1000_ops: int
    scan_records: int
    query_ops: int
    concurrent_ops: int
    rounds: int
    warmup_fraction: float
    keys: int


FULL = Sizes(2000, 200, 30, 100_000, 20, 10_000, 5, 0.25, 10_000)
QUICK = Sizes(300, 20, 4, 10_000, 4, 1_500, 3, 0.25, 1_000)


def all_workloads(z: Sizes) -> list[Workload]:
    # g = id % 1000 on the scan set, so g in [0, 9] selects 1 % of it.
    return [
        Workload("put", "put", z.seq_ops),
        Workload("get", "get", z.seq_ops),
        Workload("exists", "exists", z.seq_ops),
        Workload("operate", "operate", z.seq_ops),
        Workload("batch100", "batch", z.batch100_ops, size=100),
        Workload("batch1000", "batch", z.batch1000_ops, size=1000),
        Workload("scan", "scan", 1, throughput=True),
        Workload("query", "query", z.query_ops, low=0, high=9),
        Workload("c50_get", "get", z.concurrent_ops, "async", 50, throughput=True),
        Workload("c50_put", "put", z.concurrent_ops, "async", 50, throughput=True),
        Workload("c256_get", "get", z.concurrent_ops, "async", 256, throughput=True),
        Workload("c256_put", "put", z.concurrent_ops, "async", 256, throughput=True),
        Workload("t8_get", "get", z.concurrent_ops, "threads", 8, throughput=True),
        Workload("t8_put", "put", z.concurrent_ops, "threads", 8, throughput=True),
    ]
