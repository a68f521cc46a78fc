"""No acknowledged write is lost while the server drops connections, delays replies and restarts.

Concurrent writers (async tasks on one async client, threads on one sync client) each write
unique keys and keep overwriting one "latest" key. A chaos thread injects faults and restarts the
server (``restart()`` keeps the data). Afterwards every acknowledged write must read back intact,
every failure must have been a typed :class:`AerospikeError`, and a failure that was *not* in
doubt must not have been applied. Bounded in count and in time.
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
from aerospike_fluent.server import EmbeddedServer

from ._util import Tally

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

ASYNC_WRITERS = 6
THREAD_WRITERS = 3
WRITES_EACH = 250
DEADLINE_S = 12.0
CHAOS_STEPS = 400


def _payload(writer: str, seq: int) -> dict[str, object]:
    return {"w": writer, "seq": seq, "blob": f"{writer}:{seq}:" + "x" * (seq % 50)}


class Ledger:
    """What each writer was told, shared by tasks and threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tally = Tally()
        self.acked: list[tuple[str, int]] = []
        self.not_applied: list[tuple[str, int]] = []  # failed, not in doubt
        self.latest_acked: dict[str, int] = {}
        self.untyped: list[BaseException] = []

    def ok(self, writer: str, seq: int) -> None:
        with self.lock:
            self.tally.acknowledged += 1
            self.acked.append((writer, seq))

    def ok_latest(self, writer: str, seq: int) -> None:
        with self.lock:
            self.latest_acked[writer] = max(self.latest_acked.get(writer, -1), seq)

    def failed(self, writer: str, seq: int, exc: BaseException) -> None:
        with self.lock:
            if not isinstance(exc, errors.AerospikeError):
                self.untyped.append(exc)
                return
            self.tally.failed += 1
            self.tally.error(exc)
            if exc.in_doubt:
                self.tally.in_doubt += 1
            else:
                self.not_applied.append((writer, seq))


def _chaos(server: EmbeddedServer, stop: threading.Event, seed: int, done: list[str]) -> None:
    rnd = random.Random(seed)
    for step in range(CHAOS_STEPS):
        if stop.wait(0.03):
            break
        done.append(("drop", "delay", "restart", "clear")[step % 4])
        kind = step % 4
        if kind == 0:
            server.fault_drop(rnd.randint(0, 20))
        elif kind == 1:
            server.fault_delay(rnd.choice((50, 150, 400)), count=rnd.randint(1, 5))
        elif kind == 2:
            server.restart()
        else:
            server.clear_faults()
    server.clear_faults()


def _write(ledger: Ledger, writer: str, seq: int, latest: bool, exc: BaseException | None) -> None:
    if latest:
        if exc is None:
            ledger.ok_latest(writer, seq)
        elif not isinstance(exc, errors.AerospikeError):
            ledger.failed(writer, seq, exc)
    elif exc is None:
        ledger.ok(writer, seq)
    else:
        ledger.failed(writer, seq, exc)


def _thread_writer(db: af.SyncClient, writer: str, ledger: Ledger, deadline: float) -> None:
    s = db.namespace("test").set("soak")
    for seq in range(WRITES_EACH):
        if time.monotonic() > deadline:
            break
        for latest, key in ((False, f"{writer}/{seq}"), (True, f"{writer}/latest")):
            try:
                s.key(key).timeout(0.3, retries=1).put(_payload(writer, seq))
            except Exception as exc:  # recorded; checked below
                _write(ledger, writer, seq, latest, exc)
            else:
                _write(ledger, writer, seq, latest, None)


async def _async_writer(db: af.AsyncClient, writer: str, ledger: Ledger, deadline: float) -> None:
    s = db.namespace("test").set("soak")
    for seq in range(WRITES_EACH):
        if time.monotonic() > deadline:
            break
        for latest, key in ((False, f"{writer}/{seq}"), (True, f"{writer}/latest")):
            try:
                await s.key(key).timeout(0.3, retries=1).put(_payload(writer, seq))
            except Exception as exc:  # recorded; checked below
                _write(ledger, writer, seq, latest, exc)
            else:
                _write(ledger, writer, seq, latest, None)


def _join(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.join(DEADLINE_S + 15)


def _verify(seeds: str, ledger: Ledger) -> tuple[int, list[str]]:
    """Read every write back; return (lost, problems)."""
    problems: list[str] = []
    lost = 0
    with af_sync.connect(seeds, total_timeout=5) as db:
        s = db.namespace("test").set("soak")
        acked = sorted(ledger.acked)
        for i in range(0, len(acked), 200):
            chunk = acked[i : i + 200]
            rows = s.keys([f"{w}/{q}" for w, q in chunk]).get()
            for (writer, seq), row in zip(chunk, rows, strict=True):
                rec = row.record
                if rec is None or dict(rec.bins) != _payload(writer, seq):
                    lost += 1
                    problems.append(f"lost {writer}/{seq}: {rec!r}")
        for writer, last in ledger.latest_acked.items():
            rec = s.key(f"{writer}/latest").get()
            # overwrites: the stored one is the last acknowledged or a later (in-doubt) one
            if rec is None or int(rec["seq"]) < last:
                lost += 1
                problems.append(f"{writer}/latest went back: {rec!r} < seq {last}")
        for writer, seq in ledger.not_applied:
            if s.key(f"{writer}/{seq}").get() is not None:
                problems.append(f"{writer}/{seq} failed without in_doubt yet was applied")
    return lost, problems


async def test_no_acknowledged_write_is_lost(
    server: EmbeddedServer, seeds: str, anyio_backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = Ledger()
    stop = threading.Event()
    deadline = time.monotonic() + DEADLINE_S
    steps: list[str] = []
    chaos = threading.Thread(target=_chaos, args=(server, stop, 8, steps), daemon=True)
    sdb = await anyio.to_thread.run_sync(lambda: af_sync.connect(seeds, tend_interval=0.25))
    with sdb:
        threads = [
            threading.Thread(
                target=_thread_writer, args=(sdb, f"t{i}", ledger, deadline), daemon=True
            )
            for i in range(THREAD_WRITERS)
        ]
        async with af.connect(seeds, tend_interval=0.25) as db:
            chaos.start()
            for t in threads:
                t.start()
            with anyio.fail_after(DEADLINE_S + 20):
                async with anyio.create_task_group() as tg:
                    for i in range(ASYNC_WRITERS):
                        tg.start_soon(_async_writer, db, f"a{anyio_backend}{i}", ledger, deadline)
                await anyio.to_thread.run_sync(_join, threads)
            stop.set()
            restarts = steps.count("restart")
            await anyio.to_thread.run_sync(chaos.join, 10)
    assert not any(t.is_alive() for t in threads), "a writer thread hung"
    server.clear_faults()
    lost, problems = await anyio.to_thread.run_sync(_verify, seeds, ledger)
    tally = ledger.tally
    tally.lost = lost
    with capsys.disabled():
        print(
            f"\n[soak {anyio_backend}] acknowledged={tally.acknowledged} failed={tally.failed} "
            f"in_doubt={tally.in_doubt} lost={tally.lost} restarts={restarts} "
            f"errors={tally.errors}"
        )
    assert not ledger.untyped, f"untyped errors: {ledger.untyped[:5]!r}"
    assert problems == []
    assert lost == 0
    # The chaos must actually have bitten, and most writes must still have gone through.
    assert tally.failed > 0
    assert restarts >= 2
    assert tally.acknowledged > tally.failed
