"""Timeouts and retries behave as documented, proven with the embedded server's faults."""

from __future__ import annotations

import time

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import _bridge, _native, errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedServer

from ._util import settle

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]

KEY_BUSY = 14


def _wait_count(server: EmbeddedServer, kind: str, n: int) -> int:
    """Wait (bounded) until the server counted ``n`` requests of ``kind``, then a little longer
    so that a request beyond ``n`` would show up too."""
    settle(lambda: server.stats()[kind] >= n, 5.0)
    time.sleep(0.3)
    return server.stats()[kind]


async def test_timed_out_write_reports_in_doubt(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        await rec.put({"n": 1})
        server.fault_delay(400, count=1)
        with anyio.fail_after(5):
            with pytest.raises(errors.TimeoutError) as info:
                await rec.timeout(0.1, retries=0).put({"n": 2})
        assert info.value.in_doubt is True
        assert isinstance(info.value, TimeoutError)  # also the builtin
        assert info.value.key is not None and info.value.key[2] == "k"
        # The server did apply it after the client gave up: that is what "in doubt" means.
        assert _wait_count(server, "write", 2) == 2
        got = await rec.get()
        assert got is not None and got["n"] == 2


def test_timed_out_write_reports_in_doubt_sync(server: EmbeddedServer, seeds: str) -> None:
    with af_sync.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        server.fault_delay(400, count=1)
        with pytest.raises(errors.TimeoutError) as info:
            rec.timeout(0.1, retries=0).put({"n": 2})
        assert info.value.in_doubt is True


async def test_timed_out_read_is_not_in_doubt(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        server.fault_delay(400)
        with pytest.raises(errors.TimeoutError) as info:
            await rec.timeout(0.1, retries=0).get()
        assert info.value.in_doubt is False
        server.clear_faults()


async def test_read_retries_after_a_dropped_connection(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        await rec.put({"n": 7})
        server.reset_stats()
        server.fault_drop(0)  # the next request's connection is closed without an answer
        got = await rec.get()
        assert got is not None and got["n"] == 7
        assert server.stats()["read"] == 1  # the dropped attempt never executed


async def test_read_attempts_are_one_plus_max_retries(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        await rec.put({"n": 1})
        server.reset_stats()
        server.fault_delay(300)
        with anyio.fail_after(10):
            with pytest.raises(errors.TimeoutError):
                await rec.timeout(5, socket=0.05, retries=2).get()
        assert _wait_count(server, "read", 3) == 3
        server.clear_faults()


async def test_total_timeout_bounds_all_retries(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        server.reset_stats()
        server.fault_delay(200)
        with anyio.fail_after(5):  # 1000 retries of 50 ms would be 50 s: the total must cut it
            with pytest.raises(errors.TimeoutError):
                await rec.timeout(0.3, socket=0.05, retries=1000).get()
        server.clear_faults()
        assert server.stats()["read"] < 50


async def test_client_wide_limits_apply(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds, total_timeout=0.1, max_retries=0) as db:
        rec = db.namespace("test").set("t").key("k")
        server.fault_delay(400)
        with anyio.fail_after(5):
            with pytest.raises(errors.TimeoutError):
                await rec.get()
        server.clear_faults()


async def test_write_is_not_retried_after_a_drop(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        await rec.put({"n": 1})
        server.reset_stats()
        server.fault_drop(0)
        # retries=5 applies to reads; a write is not idempotent and must not be resent
        with pytest.raises((errors.TimeoutError, errors.ConnectionError)) as info:
            await rec.timeout(2, retries=5).put({"n": 2})
        assert info.value.in_doubt is True  # the request had been sent
        assert server.stats()["write"] == 0
        got = await rec.get()
        assert got is not None and got["n"] == 1


async def test_operate_is_not_retried_after_a_drop(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        await rec.put({"n": 1})
        server.reset_stats()
        server.fault_drop(0)
        with pytest.raises((errors.TimeoutError, errors.ConnectionError)):
            await rec.add("n", 1).execute()
        assert server.stats()["operate"] == 0
        got = await rec.get()
        assert got is not None and got["n"] == 1


async def test_write_is_retried_when_asked(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        key: _native.Key = ("test", "t", "k", None)
        policy = _native.Policy(retry_writes=True, max_retries=2)
        server.reset_stats()
        server.fault_drop(0)
        await _bridge.wait(lambda done: db.native.put(done, key, {"n": 3}, policy))
        assert server.stats()["write"] == 1
        got = await db.namespace("test").set("t").key("k").get()
        assert got is not None and got["n"] == 3


async def test_transient_server_code_is_retried(server: EmbeddedServer, seeds: str) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        await rec.put({"n": 1})
        server.fault_fail(KEY_BUSY, 1)
        got = await rec.timeout(2, retries=2).get()
        assert got is not None and got["n"] == 1


async def test_transient_code_past_the_budget_names_the_cause(
    server: EmbeddedServer, seeds: str
) -> None:
    async with af.connect(seeds) as db:
        rec = db.namespace("test").set("t").key("k")
        server.fault_fail(KEY_BUSY, 10)
        with pytest.raises(errors.AerospikeError) as info:
            await rec.timeout(2, retries=1).get()
        server.clear_faults()
        assert isinstance(info.value, errors.KeyBusyError | errors.TimeoutError)
        assert info.value.result_code in (KEY_BUSY, -11, 9)
