"""No acknowledged write is lost on a 3-node cluster (replication factor 2) whose nodes are
killed (with or without their data), restarted, isolated from the others and paused, while
async writers (asyncio and trio) write unique keys.

One fault at a time, each healed before the next, as an operator's runbook would: losing both
copies of a partition (two nodes gone without their data) loses data on a real cluster too. Only
unique keys are written: after a split, a key written on both sides keeps one version (highest
generation), as on a real cluster.
"""

from __future__ import annotations

import random
import threading
import time

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

from ._util import Tally

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

WRITERS = 16
DEADLINE_S = 14.0
SET = "cluster_soak"


def _payload(writer: str, seq: int) -> dict[str, object]:
    return {"w": writer, "seq": seq}


class Ledger:
    """What each writer was told."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.acked: list[str] = []
        self.not_applied: list[str] = []
        self.untyped: list[BaseException] = []

    def record(self, key: str, exc: BaseException | None) -> None:
        if exc is None:
            self.tally.acknowledged += 1
            self.acked.append(key)
        elif not isinstance(exc, errors.AerospikeError):
            self.untyped.append(exc)
        else:
            self.tally.failed += 1
            self.tally.error(exc)
            if exc.in_doubt:
                self.tally.in_doubt += 1
            else:
                self.not_applied.append(key)


def _chaos(cluster: EmbeddedCluster, stop: threading.Event, seed: int, done: list[str]) -> None:
    """Kill/restart, isolate/heal and pause/resume nodes in turn until ``stop``."""
    rnd = random.Random(seed)
    step = 0
    while not stop.wait(0.4):
        node = cluster.nodes[rnd.randrange(3)]
        kind = ("kill", "isolate", "pause")[step % 3]
        step += 1
        if kind == "kill":
            node.kill(keep_data=rnd.random() < 0.5)
            stop.wait(0.8)
            node.restart()
        elif kind == "isolate":
            node.isolate()
            stop.wait(0.8)
            node.heal()
        else:
            node.pause()
            stop.wait(0.5)
            node.resume()
        done.append(kind)


async def _writer(db: af.AsyncClient, writer: str, ledger: Ledger, deadline: float) -> None:
    s = db.namespace("test").set(SET)
    seq = 0
    while time.monotonic() < deadline:
        key = f"{writer}/{seq}"
        try:
            await s.key(key).timeout(0.5, retries=2).put(_payload(writer, seq))
        except Exception as exc:  # recorded; checked below
            ledger.record(key, exc)
        else:
            ledger.record(key, None)
        seq += 1


def _verify(seeds: str, ledger: Ledger) -> tuple[int, list[str]]:
    """Read every write back; return (lost, problems)."""
    problems: list[str] = []
    lost = 0
    with af_sync.connect(seeds, total_timeout=5) as db:
        s = db.namespace("test").set(SET)
        for i in range(0, len(ledger.acked), 500):
            chunk = ledger.acked[i : i + 500]
            for key, row in zip(chunk, s.keys(chunk).get(), strict=True):
                writer, seq = key.split("/")
                if row.record is None or dict(row.record.bins) != _payload(writer, int(seq)):
                    lost += 1
                    problems.append(f"lost {key}: {row.record!r}")
        applied = s.keys(ledger.not_applied).get() if ledger.not_applied else []
        for key, row in zip(ledger.not_applied, applied, strict=True):
            if row.record is not None:
                problems.append(f"{key} failed without in_doubt yet was applied")
    return lost, problems


async def test_no_acknowledged_write_is_lost_on_a_cluster(
    anyio_backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = Ledger()
    stop = threading.Event()
    steps: list[str] = []
    with EmbeddedCluster(nodes=3, replication_factor=2) as cluster:
        chaos = threading.Thread(target=_chaos, args=(cluster, stop, 19, steps), daemon=True)
        deadline = time.monotonic() + DEADLINE_S
        async with af.connect(cluster.seeds, tend_interval=0.2) as db:
            chaos.start()
            with anyio.fail_after(DEADLINE_S + 30):
                async with anyio.create_task_group() as tg:
                    for i in range(WRITERS):
                        tg.start_soon(_writer, db, f"{anyio_backend}{i}", ledger, deadline)
            stop.set()
            await anyio.to_thread.run_sync(chaos.join, 15)
        assert not chaos.is_alive(), "the chaos thread hung"
        assert [n.status for n in cluster.nodes] == ["up", "up", "up"]
        lost, problems = await anyio.to_thread.run_sync(_verify, cluster.seeds, ledger)
    tally = ledger.tally
    tally.lost = lost
    with capsys.disabled():
        print(
            f"\n[cluster soak {anyio_backend}] acknowledged={tally.acknowledged} "
            f"failed={tally.failed} in_doubt={tally.in_doubt} lost={tally.lost} "
            f"faults={ {k: steps.count(k) for k in ('kill', 'isolate', 'pause')} } "
            f"errors={tally.errors}"
        )
    assert not ledger.untyped, f"untyped errors: {ledger.untyped[:5]!r}"
    assert problems == []
    assert lost == 0
    assert {"kill", "isolate", "pause"} <= set(steps), steps
    assert tally.acknowledged > 10 * tally.failed
