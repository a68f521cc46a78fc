"""What counting calls costs: ``python -m benchmarks.metrics_cost [--quick]``.

Clients connected with ``metrics=True`` (the default) and ``metrics=False`` run each workload
in turns (see :mod:`benchmarks.feature_cost`). Writes ``results/metrics.{md,json}``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks.feature_cost import RESULTS, compare, write


def _counted_as_configured(clients: dict[str, tuple[Any, Any]]) -> None:
    counted = sum(db.metrics().count() for db in clients["on"])
    uncounted = sum(db.metrics().count() for db in clients["off"])
    assert counted > 0 and uncounted == 0, "the clients did not count as configured"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.metrics_cost", description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int)
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    ops = 500 if args.quick else 5_000
    rounds = args.rounds or (3 if args.quick else 7)
    setups = {"off": ({"metrics": False}, None), "on": ({"metrics": True}, None)}
    table = compare(setups, ops=ops, rounds=rounds, check=_counted_as_configured)
    write(args.out, "metrics", "Metrics on and off", table, rounds, ops)
    return 0


if __name__ == "__main__":
    sys.exit(main())
