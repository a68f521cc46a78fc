"""Load: 10,000 concurrent tasks on one client, and a tiny connection pool under pressure."""

from __future__ import annotations

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._util import fds_back_to, rss_mb, warm_loop

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

TASKS = 10_000


async def _all(n: int, job: object) -> list[object]:
    results: list[object] = [None] * n

    async def one(i: int) -> None:
        try:
            results[i] = await job(i)  # type: ignore[operator]
        except errors.AerospikeError as exc:
            results[i] = exc

    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(one, i)
    return results


async def test_ten_thousand_concurrent_tasks(
    server: EmbeddedServer, seeds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await warm_loop(seeds)  # the runtimes' own fds exist from here on
    fds_before = await fds_back_to(0, slack=10_000)
    async with af.connect(seeds, total_timeout=20) as db:
        s = db.namespace("test").set("load")
        with anyio.fail_after(60):
            puts = await _all(TASKS, lambda i: s.key(i).put({"i": i, "s": f"v{i}"}))
            # the same round three times, one result list alive at a time: the first sets the
            # peak, which the next two must not raise (the peak, not the current size: freed
            # memory goes back to the system between rounds, or not)
            gets = await _all(TASKS, lambda i: s.key(i).get())
            del gets
            rss_after_first = rss_mb("VmHWM")
            gets = await _all(TASKS, lambda i: s.key(i).get())
            del gets
            gets = await _all(TASKS, lambda i: s.key(i).get())
            rss_after_second = rss_mb("VmHWM")
        failures = [r for r in (*puts, *gets) if isinstance(r, BaseException)]
        assert failures == []
        for i, rec in enumerate(gets):
            assert isinstance(rec, af.Record) and rec["i"] == i and rec["s"] == f"v{i}"
        assert server.stats()["records"] == TASKS
        assert server.stats()["connections_open"] <= 256 + 4  # the pool bound held
        pooled = server.stats()["connections_open"]
        with capsys.disabled():
            print(
                f"\n[load] {4 * TASKS} ops, peak rss {rss_after_first:.0f} -> "
                f"{rss_after_second:.0f} MiB, fds before connect {fds_before}, pooled {pooled}"
            )
        # more rounds of the same 10k tasks must not keep growing memory
        assert rss_after_second - rss_after_first < 64
    fds_after = await fds_back_to(fds_before)
    assert fds_after <= fds_before + 2, f"fd leak: {fds_before} -> {fds_after}"


async def test_small_pool_gives_backpressure_not_a_hang(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds, max_conns_per_node=2, total_timeout=20) as db:
        s = db.namespace("test").set("pool")
        connected = server.stats()["connections_total"]  # seed, tend and cluster-map ones
        server.fault_delay(5, count=None)
        with anyio.fail_after(30):
            results = await _all(500, lambda i: s.key(i).put({"i": i}))
        server.clear_faults()
        assert [r for r in results if isinstance(r, BaseException)] == []
        # the puts never opened more than the pool's 2 connections
        assert server.stats()["connections_total"] - connected <= 2


async def test_small_pool_with_short_deadline_fails_with_a_typed_error(
    server: EmbeddedServer, seeds: str
) -> None:
    async with af.connect(seeds, max_conns_per_node=1) as db:
        s = db.namespace("test").set("pool")
        server.fault_delay(100)
        with anyio.fail_after(20):
            results = await _all(50, lambda i: s.key(i).timeout(0.25, retries=0).get())
        server.clear_faults()
        errs = [r for r in results if isinstance(r, BaseException)]
        assert errs, "a pool of one and 50 requests of 100 ms cannot all make a 250 ms deadline"
        assert all(isinstance(e, errors.TimeoutError | errors.ConnectionError) for e in errs)
        # and the client is fine afterwards
        await s.key("after").put({"ok": 1})
        got = await s.key("after").get()
        assert got is not None and got["ok"] == 1
