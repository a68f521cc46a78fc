"""Workloads run against several client setups in turns, the order swapped every round, so the
ratios between setups come from one interleaved run (shared cores swing absolute times)."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Measure = Callable[[], int]
"""One timed run: does the work, returns how many operations it did."""

Samples = dict[str, dict[str, list[tuple[float, float, int]]]]


def timed(run: Measure) -> tuple[float, float, int]:
    """Wall seconds, process CPU seconds and operations of one call of ``run``."""
    cpu0, t0 = time.process_time(), time.perf_counter()
    n = run()
    return time.perf_counter() - t0, time.process_time() - cpu0, n


def run_rounds(
    work: Mapping[str, Callable[..., Measure]],
    clients: Mapping[str, Sequence[Any]],
    rounds: int,
) -> Samples:
    """Per workload and setup, one ``timed`` sample per round (after a warm-up run)."""
    modes = list(clients)
    samples: Samples = {w: {m: [] for m in modes} for w in work}
    for r in range(rounds):
        for wname, make in work.items():
            for mode in modes if r % 2 == 0 else reversed(modes):
                run = make(*clients[mode])
                run()
                samples[wname][mode].append(timed(run))
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    return samples


def medians(samples: Samples) -> dict[str, dict[str, dict[str, float]]]:
    """Per workload and setup: median µs and CPU µs per operation."""
    return {
        wname: {
            mode: {
                "us_per_op": statistics.median(w / n for w, _, n in runs) * 1e6,
                "cpu_us_per_op": statistics.median(c / n for _, c, n in runs) * 1e6,
            }
            for mode, runs in by_mode.items()
        }
        for wname, by_mode in samples.items()
    }
