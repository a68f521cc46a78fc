"""The bank test: concurrent transfers between accounts with ``run_transaction`` keep the total
constant, apply every transfer that returned exactly once (on both of its accounts) and none
that failed without being in doubt, and leave no account locked; on one node, and on a 3-node
cluster (replication factor 2) with a node killed and restarted mid-run.

Each transfer appends ``[id, delta]`` to the ``log`` of both accounts it moves money between, so
the ledger of every account can be checked against its balance and against what each transfer
was told.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter
from typing import Any

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster, EmbeddedServer

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.timeout(120),
    pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded servers"),
]

ACCOUNTS = 12
OPENING = 1000
TELLERS = 8
SET = "bank"


class Outcomes:
    """What each transfer was told: returned, failed (not applied), or in doubt."""

    def __init__(self) -> None:
        self.returned: list[str] = []
        self.failed: dict[str, BaseException] = {}
        self.in_doubt: list[str] = []
        self.errors: Counter[str] = Counter()
        self.untyped: list[BaseException] = []

    def record(self, tid: str, exc: BaseException | None) -> None:
        if exc is None:
            self.returned.append(tid)
            return
        if not isinstance(exc, errors.AerospikeError):
            self.untyped.append(exc)
            return
        self.errors[type(exc).__name__] += 1
        if exc.in_doubt:
            self.in_doubt.append(tid)
        else:
            self.failed[tid] = exc


async def _teller(db: af.AsyncClient, name: str, outcomes: Outcomes, until: float) -> None:
    rnd = random.Random(name)
    n = 0
    while time.monotonic() < until:
        a, b = rnd.sample(range(ACCOUNTS), 2)
        amount = rnd.randint(1, 50)
        tid = f"{name}-{n}"
        n += 1

        async def move(
            tx: af.Transaction[af.Async],
            a: int = a,
            b: int = b,
            amount: int = amount,
            tid: str = tid,
        ) -> None:
            s = tx.namespace("test").set(SET)
            src = await s.key(a).get()
            await s.key(b).get()
            assert src is not None
            take = min(amount, int(src.bins["v"]))
            await s.key(a).add("v", -take).bin("log").list.append([tid, -take]).execute()
            await s.key(b).add("v", take).bin("log").list.append([tid, take]).execute()

        try:
            await db.run_transaction(move, attempts=30, backoff=0.002, max_backoff=0.1, timeout=3)
        except Exception as exc:  # recorded and checked below
            outcomes.record(tid, exc)
        else:
            outcomes.record(tid, None)


def _unlocked(seeds: str) -> bool:
    """Whether every account takes a plain write (none is held by a transaction)."""
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(SET)
        try:
            for i in range(ACCOUNTS):
                s.key(i).touch()
        except errors.AerospikeError:
            return False
    return True


def _check(seeds: str, outcomes: Outcomes) -> list[str]:
    """The invariants; every broken one as a line."""
    problems: list[str] = []
    deadline = time.monotonic() + 30
    while not _unlocked(seeds):
        if time.monotonic() > deadline:
            return ["an account is still locked 30 s after the run"]
        time.sleep(0.5)
    with af_sync.connect(seeds) as db:
        rows = db.namespace("test").set(SET).keys(range(ACCOUNTS)).get().records
    total = 0
    seen: Counter[str] = Counter()
    legs: dict[str, int] = {}
    for i, rec in enumerate(rows):
        assert rec is not None, f"account {i} is gone"
        balance, log = int(rec.bins["v"]), rec.bins["log"]
        total += balance
        if balance != OPENING + sum(delta for _, delta in log):
            problems.append(f"account {i}: balance {balance} does not match its log")
        for tid, delta in log:
            seen[tid] += 1
            legs[tid] = legs.get(tid, 0) + delta
    if total != ACCOUNTS * OPENING:
        problems.append(f"total {total} != {ACCOUNTS * OPENING}")
    problems += [f"{t} half-applied or repeated ({n} legs)" for t, n in seen.items() if n != 2]
    problems += [f"{t} legs do not cancel" for t, d in legs.items() if d != 0]
    problems += [
        f"{t} returned but applied {seen[t]} times" for t in outcomes.returned if seen[t] != 2
    ]
    problems += [
        f"{t} failed ({e!r}) yet was applied" for t, e in outcomes.failed.items() if seen[t]
    ]
    return problems


def _open_accounts(seeds: str) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(SET)
        for i in range(ACCOUNTS):
            s.key(i).put({"v": OPENING, "log": []})


async def _run(seeds: str, seconds: float, outcomes: Outcomes) -> None:
    until = time.monotonic() + seconds
    async with af.connect(seeds, tend_interval=0.2) as db:
        with anyio.fail_after(seconds + 60):
            async with anyio.create_task_group() as tg:
                for i in range(TELLERS):
                    tg.start_soon(_teller, db, f"t{i}", outcomes, until)


def _report(where: str, outcomes: Outcomes, capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print(
            f"\n[bank {where}] returned={len(outcomes.returned)} failed={len(outcomes.failed)}"
            f" in_doubt={len(outcomes.in_doubt)} errors={dict(outcomes.errors)}"
        )


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_total_holds_on_one_node(
    anyio_backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    outcomes = Outcomes()
    with EmbeddedServer(edition="enterprise", strong_consistency=["test"]) as server:
        await anyio.to_thread.run_sync(_open_accounts, server.seeds)
        await _run(server.seeds, 4.0, outcomes)
        problems = await anyio.to_thread.run_sync(_check, server.seeds, outcomes)
    _report("one node", outcomes, capsys)
    assert not outcomes.untyped, outcomes.untyped[:3]
    assert problems == []
    assert len(outcomes.returned) > 50


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_total_holds_when_a_node_dies_mid_run(
    anyio_backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    outcomes = Outcomes()
    with EmbeddedCluster(
        nodes=3, replication_factor=2, edition="enterprise", strong_consistency=["test"]
    ) as cluster:
        await anyio.to_thread.run_sync(_open_accounts, cluster.seeds)

        def fault(node: Any = cluster.nodes[1]) -> None:
            time.sleep(1.5)
            node.kill()
            time.sleep(1.5)
            node.restart()

        chaos = threading.Thread(target=fault, daemon=True)
        chaos.start()
        await _run(cluster.seeds, 5.0, outcomes)
        await anyio.to_thread.run_sync(chaos.join, 10)
        assert [n.status for n in cluster.nodes] == ["up", "up", "up"]
        problems = await anyio.to_thread.run_sync(_check, cluster.seeds, outcomes)
    _report("3 nodes, one killed", outcomes, capsys)
    assert not outcomes.untyped, outcomes.untyped[:3]
    assert problems == []
    assert len(outcomes.returned) > 50
