"""Round summaries and the median across rounds (same percentile rule as crates/bench)."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Round:
    """What one round of one client measured; times in nanoseconds."""

    ops: int
    records: int
    elapsed_ns: int
    mean_ns: float
    p50_ns: float
    p99_ns: float
    # CPU time of the client's process and of the server's during the round (None: unknown)
    cpu_ns: int | None = None
    server_cpu_ns: int | None = None
    # time the client's threads waited for a CPU while runnable; the machine probe's CPU time
    # (``cpu.probe_ns``, mean of one run before and one after the round)
    wait_ns: int | None = None
    probe_ns: int | None = None

    @property
    def ops_per_s(self) -> float:
        return self.ops * 1e9 / self.elapsed_ns if self.elapsed_ns else 0.0

    @property
    def records_per_s(self) -> float:
        return self.records * 1e9 / self.elapsed_ns if self.elapsed_ns else 0.0


def percentile(sorted_ns: list[int], q: float) -> int:
    """Nearest rank: element ``min(n - 1, floor(q * n))`` of the sorted sample."""
    if not sorted_ns:
        return 0
    return sorted_ns[min(len(sorted_ns) - 1, int(q * len(sorted_ns)))]


def summarize(latencies_ns: list[int], elapsed_ns: int, records: int) -> Round:
    s = sorted(latencies_ns)
    mean = sum(s) / len(s) if s else 0.0
    return Round(len(s), records, elapsed_ns, mean, percentile(s, 0.5), percentile(s, 0.99))


@dataclass(frozen=True)
class Result:
    """Median of each figure over the timed rounds."""

    rounds: int
    ops_per_round: int
    records: int
    mean_us: float
    p50_us: float
    p99_us: float
    ops_per_s: float
    records_per_s: float
    cpu_us_per_op: float | None = None
    server_cpu_us_per_op: float | None = None
    # each round's ops/s and client CPU µs per op, in the order they ran
    ops_per_s_by_round: tuple[float, ...] = ()
    cpu_us_per_op_by_round: tuple[float | None, ...] = ()
    wait_us_per_op_by_round: tuple[float | None, ...] = ()
    probe_us_by_round: tuple[float | None, ...] = ()

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


def _cpu_per_op_us(rounds: list[Round], cpu: str) -> float | None:
    """Median over rounds of CPU µs per operation; None unless every round measured it."""
    per_op = [
        getattr(r, cpu) / r.ops / 1e3 for r in rounds if getattr(r, cpu) is not None and r.ops
    ]
    return statistics.median(per_op) if rounds and len(per_op) == len(rounds) else None


def median_of(rounds: list[Round]) -> Result:
    med = statistics.median
    return Result(
        rounds=len(rounds),
        ops_per_round=rounds[0].ops,
        records=int(med(r.records for r in rounds)),
        mean_us=med(r.mean_ns for r in rounds) / 1e3,
        p50_us=med(r.p50_ns for r in rounds) / 1e3,
        p99_us=med(r.p99_ns for r in rounds) / 1e3,
        ops_per_s=med(r.ops_per_s for r in rounds),
        records_per_s=med(r.records_per_s for r in rounds),
        cpu_us_per_op=_cpu_per_op_us(rounds, "cpu_ns"),
        server_cpu_us_per_op=_cpu_per_op_us(rounds, "server_cpu_ns"),
        ops_per_s_by_round=tuple(r.ops_per_s for r in rounds),
        cpu_us_per_op_by_round=tuple(
            None if r.cpu_ns is None or not r.ops else r.cpu_ns / r.ops / 1e3 for r in rounds
        ),
        wait_us_per_op_by_round=tuple(
            None if r.wait_ns is None or not r.ops else r.wait_ns / r.ops / 1e3 for r in rounds
        ),
        probe_us_by_round=tuple(None if r.probe_ns is None else r.probe_ns / 1e3 for r in rounds),
    )
