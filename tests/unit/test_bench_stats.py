"""The benchmark's round arithmetic: medians, each round, and CPU per operation."""

from __future__ import annotations

import os

import pytest

from benchmarks import report
from benchmarks.cpu import probe_ns, process_cpu_ns, process_wait_ns
from benchmarks.stats import Result, Round, median_of, summarize
from benchmarks.targets import check
from benchmarks.workloads import Workload


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


def _timed(elapsed_ns: int, cpu_ns: int | None) -> Round:
    return Round(4, 0, elapsed_ns, 10.0, 10.0, 10.0, cpu_ns, None)


def test_each_round_is_kept_in_the_order_run() -> None:
    res = median_of([_timed(1_000_000, 8_000), _timed(4_000_000, 4_000), _timed(2_000_000, None)])
    assert res.ops_per_s_by_round == (4_000.0, 1_000.0, 2_000.0)
    assert res.cpu_us_per_op_by_round == (2.0, 1.0, None)
    assert res.ops_per_s == 2_000.0


def test_the_auto_batch_lead_is_judged_by_its_lowest_round() -> None:
    w = Workload("c50_get", "get", 4, "async", 50, throughput=True)
    ours = median_of([_timed(1_000_000, 4_000), _timed(1_000_000, 4_000)])  # 4,000 ops/s twice
    sdk = median_of([_timed(4_000_000, 40_000), _timed(1_500_000, 40_000)])  # 1,000 then 2,667
    rust = median_of([_timed(1_000_000, 8_000), _timed(1_000_000, 8_000)])
    row: dict[str, Result | str] = {"ours-autobatch": ours, "sdk-async": sdk, "rust": rust}
    got = {t["target"]: t for t in check([w], {"c50_get": row}, {})}
    lowest = got["c50_get: auto_batch >= 2x sdk fast in its lowest round"]
    assert lowest["measured"] == pytest.approx(1.5) and lowest["ok"] is False
    assert got["c50_get: builder with auto_batch (opt-in) >= 2x sdk fast"]["ok"] is True  # median
    cpu = got["c50_get: auto_batch CPU per op <= raw Rust's"]
    assert cpu["measured"] == 0.5 and cpu["ok"] is True


def test_the_builders_cpu_is_judged_by_its_highest_round_and_shown_by_round() -> None:
    w = Workload("c50_get", "get", 4, "async", 50, throughput=True)
    ours = median_of([_timed(1_000_000, 60_000), _timed(1_000_000, 100_000)])  # 15, 25 µs
    sdk = median_of([_timed(1_000_000, 80_000), _timed(1_000_000, 80_000)])  # 20, 20 µs
    rust = median_of([_timed(1_000_000, 40_000), _timed(1_000_000, 40_000)])  # 10, 10 µs
    floor = median_of([_timed(1_000_000, 20_000), _timed(1_000_000, 20_000)])  # 5, 5 µs
    row: dict[str, Result | str] = {"ours-async": ours, "sdk-async": sdk, "rust": rust}
    got = {t["target"]: t for t in check([w], {"c50_get": row}, {})}
    highest = got["c50_get: builder CPU per op < sdk fast's in its highest round"]
    assert highest["measured"] == pytest.approx(1.25) and highest["ok"] is False
    row["ours-floor"] = floor
    results = {cid: r.to_dict() for cid, r in row.items() if isinstance(r, Result)}
    lines = report._by_round(results, {})
    over_sdk = "ours-async CPU per op over sdk-async's, by round: 0.75, 1.25 (below it in 1 of 2)"
    assert over_sdk in lines
    assert "... over raw Rust's plus the floor's, by round: 1.00, 1.67" in lines


def test_process_cpu_of_a_missing_process_is_unknown() -> None:
    assert process_cpu_ns(None) is None
    assert process_cpu_ns(2**31 - 1) is None  # above any pid Linux hands out


def test_process_cpu_counts_this_process() -> None:
    if not os.path.exists(f"/proc/{os.getpid()}/task"):
        pytest.skip("no /proc")
    spent = process_cpu_ns(os.getpid())
    assert spent is not None and spent > 0


def test_each_round_keeps_its_wait_for_a_cpu_and_its_machine_probe() -> None:
    rounds = [
        Round(4, 0, 1_000, 10.0, 10.0, 10.0, 8_000, None, wait_ns=2_000, probe_ns=1_100_000),
        Round(4, 0, 1_000, 10.0, 10.0, 10.0, 8_000, None, wait_ns=None, probe_ns=None),
    ]
    res = median_of(rounds)
    assert res.wait_us_per_op_by_round == (0.5, None)
    assert res.probe_us_by_round == (1_100.0, None)


def test_this_process_waited_for_a_cpu_no_less_than_zero_and_no_more_than_it_lived() -> None:
    before = process_wait_ns(os.getpid())
    assert before is not None and before >= 0
    sum(range(200_000))
    after = process_wait_ns(os.getpid())
    assert after is not None and after >= before
    assert process_wait_ns(2**31 - 1) is None


def test_the_machine_probe_takes_cpu_time() -> None:
    assert probe_ns() > 0
