"""What client-wide policies cost: ``python -m benchmarks.policy_cost [--quick]``.

The same workloads (see :mod:`benchmarks.feature_cost`) on a client with no policy, on one
connected with a policy (send_key, a default TTL, per-family timeouts), and on a view of a
plain client with that policy (``db.with_policy``). Writes ``results/policy.{md,json}``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks.feature_cost import RESULTS, compare, write


def _policy() -> Any:
    import aerospike_fluent as af

    return af.Policy(
        send_key=True,
        ttl=3600,
        max_retries=1,
        read={"total_timeout": 0.5},
        write={"total_timeout": 2.0},
        batch={"total_timeout": 3.0},
    )


def _applied(clients: dict[str, tuple[Any, Any]]) -> None:
    for mode in ("client", "view"):
        for db in clients[mode]:
            assert db.policy.resolved().send_key is True, mode
    rec = clients["view"][0].namespace("test").set("m").key("k").get()
    assert rec is not None and 0 < rec.ttl <= 3600, "the policy's TTL did not apply"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.policy_cost", description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int)
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    ops = 500 if args.quick else 5_000
    rounds = args.rounds or (3 if args.quick else 7)
    policy = _policy()
    setups = {
        "none": ({}, None),
        "client": ({"policy": policy}, None),
        "view": ({}, lambda db: db.with_policy(policy)),
    }
    table = compare(setups, ops=ops, rounds=rounds, check=_applied)
    write(
        args.out, "policy", "Client-wide policy: none, on the client, on a view", table, rounds, ops
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
