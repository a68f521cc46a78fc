"""The benchmark's round arithmetic: medians, and CPU per operation."""

from __future__ import annotations

import os

import pytest

from benchmarks.cpu import process_cpu_ns
from benchmarks.stats import Round, median_of, summarize


def _round(cpu_ns: int | None, server_cpu_ns: int | None, ops: int = 4) -> Round:
    r = summarize([10, 20, 30, 40][:ops], elapsed_ns=1_000, records=0)
    return Round(r.ops, 0, r.elapsed_ns, r.mean_ns, r.p50_ns, r.p99_ns, cpu_ns, server_cpu_ns)


def test_cpu_per_op_is_the_median_over_rounds_in_microseconds() -> None:
    res = median_of([_round(4_000, 8_000), _round(12_000, 4_000), _round(40_000, 2_000)])
    assert res.cpu_us_per_op == 3.0  # 1, 3 and 10 µs per op
    assert res.server_cpu_us_per_op == 1.0  # 2, 1 and 0.5


def test_cpu_per_op_is_unknown_unless_every_round_measured_it() -> None:
    res = median_of([_round(4_000, None), _round(None, None)])
    assert res.cpu_us_per_op is None
    assert res.server_cpu_us_per_op is None


def test_process_cpu_of_a_missing_process_is_unknown() -> None:
    assert process_cpu_ns(None) is None
    assert process_cpu_ns(2**31 - 1) is None  # above any pid Linux hands out


def test_process_cpu_counts_this_process() -> None:
    if not os.path.exists(f"/proc/{os.getpid()}/task"):
        pytest.skip("no /proc")
    spent = process_cpu_ns(os.getpid())
    assert spent is not None and spent > 0
