"""Cancellation (during connect, an operation, a half-consumed stream) and close while in flight."""

from __future__ import annotations

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._util import fds_back_to, open_fds, settle, warm_loop

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def _put(s: af.RecordSet[af.Async], i: int) -> None:
    await s.key(i).put({"n": i})


async def _baseline(seeds: str) -> int:
    """The fd count once the runtimes exist and a client has come and gone."""
    await warm_loop(seeds)
    return await fds_back_to(0, slack=10_000)


async def test_cancel_during_connect_leaks_nothing(server: EmbeddedServer, seeds: str) -> None:
    base = await _baseline(seeds)
    server.fault_pause_accept(True)
    for _ in range(5):
        with anyio.move_on_after(0.1) as scope:
            await af.connect(seeds)
        assert scope.cancelled_caught
    server.fault_pause_accept(False)
    fds = await fds_back_to(base)
    assert fds <= base + 2, f"fd leak after cancelled connects: {base} -> {fds}"
    async with af.connect(seeds) as db:
        await db.namespace("test").set("c").key("k").put({"n": 1})
    assert settle(lambda: server.stats()["connections_open"] == 0)


async def test_connect_to_a_server_that_does_not_answer_fails_typed(
    server: EmbeddedServer, seeds: str
) -> None:
    server.fault_pause_accept(True)
    with anyio.fail_after(15):
        with pytest.raises(errors.AerospikeError) as info:
            await af.connect(seeds, connect_timeout=0.3)
    server.fault_pause_accept(False)
    assert isinstance(info.value, errors.ConnectionError | errors.TimeoutError)


async def test_cancelled_operation_leaves_no_stale_reply(
    server: EmbeddedServer, seeds: str
) -> None:
    async with af.connect(seeds, max_conns_per_node=1) as db:
        s = db.namespace("test").set("c")
        await s.key("a").put({"who": "a"})
        await s.key("b").put({"who": "b"})
        for _ in range(5):
            server.fault_delay(300, count=1)
            with anyio.move_on_after(0.05) as scope:
                await s.key("a").get()
            assert scope.cancelled_caught
            # one pooled connection: a reply left on it would be read by the next request
            with anyio.fail_after(10):
                got = await s.key("b").get()
            assert got is not None and got["who"] == "b"


async def test_cancelled_write_then_client_usable(server: EmbeddedServer, seeds: str) -> None:
    base = await _baseline(seeds)
    async with af.connect(seeds) as db:
        s = db.namespace("test").set("c")
        server.fault_delay(500, count=20)
        with anyio.move_on_after(0.1):
            async with anyio.create_task_group() as tg:
                for i in range(20):
                    tg.start_soon(_put, s, i)
        server.clear_faults()
        with anyio.fail_after(10):
            await s.key("after").put({"n": 1})
            got = await s.key("after").get()
        assert got is not None and got["n"] == 1
    fds = await fds_back_to(base)
    assert fds <= base + 2, f"fd leak: {base} -> {fds}"


async def test_half_consumed_streams_release_their_connections(
    server: EmbeddedServer, seeds: str
) -> None:
    async with af.connect(seeds, max_conns_per_node=2) as db:
        s = db.namespace("test").set("c")
        async with anyio.create_task_group() as tg:
            for i in range(300):
                tg.start_soon(_put, s, i)
        for round_ in range(10):
            seen = 0
            with anyio.fail_after(10):
                if round_ % 2:
                    # cancelled while waiting for the next chunk
                    server.fault_delay(200, count=1)
                    with anyio.move_on_after(0.05):
                        async for _ in s.query().chunk_size(10).stream():
                            seen += 1
                else:
                    # abandoned by the consumer after a few records
                    async with s.query().chunk_size(10).stream() as stream:
                        async for _ in stream:
                            seen += 1
                            if seen == 15:
                                break
            server.clear_faults()
        # with a pool of 2, leaked query connections would starve these
        with anyio.fail_after(10):
            n = await s.query().count()
            got = await s.key(7).get()
        assert n == 300
        assert got is not None and got["n"] == 7


async def test_abandoned_streams_leave_the_client_usable(
    server: EmbeddedServer, seeds: str
) -> None:
    async with af.connect(seeds) as db:  # default pool: the leak above does not starve it yet
        s = db.namespace("test").set("c")
        async with anyio.create_task_group() as tg:
            for i in range(100):
                tg.start_soon(_put, s, i)
        for _ in range(5):
            with anyio.fail_after(10):
                async with s.query().chunk_size(10).stream() as stream:
                    async for _ in stream:
                        break
                with anyio.move_on_after(0.02):
                    async for _ in s.query().chunk_size(10).stream():
                        await anyio.sleep(0.01)
        with anyio.fail_after(10):
            assert await s.query().count() == 100
            got = await s.key(7).get()
        assert got is not None and got["n"] == 7


async def test_close_with_operations_in_flight_never_hangs(
    server: EmbeddedServer, seeds: str
) -> None:
    db = await af.connect(seeds)
    s = db.namespace("test").set("c")
    server.fault_delay(1000, count=5)
    outcomes: list[object] = []

    async def op(i: int) -> None:
        try:
            await s.key(i).timeout(5).put({"n": i})
            outcomes.append("ok")
        except errors.AerospikeError as exc:
            outcomes.append(exc)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            for i in range(5):
                tg.start_soon(op, i)
            await anyio.sleep(0.1)
            db.close()
    assert len(outcomes) == 5
    with pytest.raises(errors.ClientClosedError):
        await s.key("x").get()
    assert not db.is_connected


async def test_close_fails_in_flight_operations_with_client_closed(
    server: EmbeddedServer, seeds: str
) -> None:
    db = await af.connect(seeds)
    s = db.namespace("test").set("c")
    server.fault_delay(3000, count=3)
    outcomes: list[object] = []

    async def op(i: int) -> None:
        try:
            await s.key(i).timeout(8).put({"n": i})
            outcomes.append("ok")
        except errors.AerospikeError as exc:
            outcomes.append(exc)

    try:
        with anyio.fail_after(1.5):  # far below the 3 s delay: close must end them
            async with anyio.create_task_group() as tg:
                for i in range(3):
                    tg.start_soon(op, i)
                await anyio.sleep(0.1)
                db.close()
    finally:
        server.clear_faults()
    assert len(outcomes) == 3
    assert all(isinstance(o, errors.ClientClosedError) for o in outcomes)


async def test_fd_count_is_stable_over_connect_close_cycles(seeds: str) -> None:
    base = await _baseline(seeds)
    for _ in range(10):
        async with af.connect(seeds) as db:
            await db.namespace("test").set("c").key("k").put({"n": 1})
    fds = await fds_back_to(base)
    assert fds <= base + 2, f"fd leak over connect/close: {base} -> {fds} (open {open_fds()})"
