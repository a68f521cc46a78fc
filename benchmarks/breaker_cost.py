"""What the circuit breaker costs: ``python -m benchmarks.breaker_cost [--quick]``.

Clients connected with ``max_error_rate=0`` (off) and the default ``max_error_rate=100`` (on)
run each workload in turns (see :mod:`benchmarks.feature_cost`); on a healthy server nothing is
refused, so the difference is the check before each lease. Writes
``results/breaker.{md,json}``.
"""

from __future__ import annotations

import sys
from typing import Any

from benchmarks.feature_cost import compare, options, write


def _nothing_refused(clients: dict[str, tuple[Any, Any]]) -> None:
    refused = sum(
        n.breaker_refusals for pair in clients.values() for db in pair for n in db.metrics().nodes
    )
    assert refused == 0, "a healthy server's node was refused"


def main(argv: list[str] | None = None) -> int:
    args = options("breaker_cost", __doc__, argv)
    ops = 500 if args.quick else 5_000
    rounds = args.rounds or (3 if args.quick else 7)
    setups = {"off": ({"max_error_rate": 0}, None), "on": ({"max_error_rate": 100}, None)}
    table = compare(setups, ops=ops, rounds=rounds, check=_nothing_refused)
    write(args.out, "breaker", "Circuit breaker on and off", table, rounds, ops)
    return 0


if __name__ == "__main__":
    sys.exit(main())
