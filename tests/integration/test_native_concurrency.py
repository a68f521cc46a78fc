"""Threads, cancellation, event-loop refusal and fork safety of the native bridge."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from aerospike_fluent import _aio, _bridge
from aerospike_fluent import _native as n


@pytest.fixture(scope="module")
def server() -> Iterator[n.EmbeddedServer]:
    s = n.EmbeddedServer()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def client(server: n.EmbeddedServer) -> Iterator[n.Client]:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
    yield c
    c.close()


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_eight_threads_blocking_get_put(client: n.Client) -> None:
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        try:
            for i in range(200):
                k = ("test", "threads", f"{t}-{i}", None)
                client.put_blocking(k, {"t": t, "i": i}, None)
                rec = client.get_blocking(k, None, False, None)
                assert rec is not None and rec.bins == {"t": t, "i": i}
        except BaseException as e:  # collected and re-raised in the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    for t in range(8):
        assert client.exists_blocking(("test", "threads", f"{t}-199", None), None)


@pytest.mark.anyio
async def test_many_in_flight(client: n.Client) -> None:
    results: dict[int, Any] = {}

    async def one(i: int) -> None:
        k = ("test", "inflight", i, None)
        await _bridge.wait(lambda done: client.put(done, k, {"i": i}, None))
        rec = await _bridge.wait(lambda done: client.get(done, k, None, False, None))
        results[i] = rec["i"]

    async with anyio.create_task_group() as tg:
        for i in range(200):
            tg.start_soon(one, i)
    assert results == {i: i for i in range(200)}


@pytest.mark.anyio
async def test_async_error_is_typed(client: n.Client, anyio_backend: str) -> None:
    k = ("test", "aerr", anyio_backend, None)
    await _bridge.wait(lambda done: client.put(done, k, {"a": 1}, n.Policy(exists=4)))
    with pytest.raises(n.RecordExistsError) as info:
        await _bridge.wait(lambda done: client.put(done, k, {"a": 1}, n.Policy(exists=4)))
    assert info.value.key is not None and info.value.key[2] == anyio_backend


@pytest.mark.anyio
async def test_cancel_aborts_native_task(server: n.EmbeddedServer, client: n.Client) -> None:
    k = ("test", "cancel", "k", None)
    await _bridge.wait(lambda done: client.put(done, k, {"a": 1}, None))
    handles: list[n.Pending] = []
    calls: list[Any] = []

    def start(done: n.Done) -> n.Pending:
        # The awaiting side is cancelled before the reply: the spy must never run.
        def spy(result: Any, error: BaseException | None) -> None:
            calls.append((result, error))

        p = client.get(spy, k, None, False, n.Policy(total_timeout_ms=10_000))
        handles.append(p)
        return p

    server.fault_delay(1500, 1)
    try:
        with anyio.move_on_after(0.2) as scope:
            await _bridge.wait(start)
        assert scope.cancelled_caught
        (pending,) = handles
        assert pending.cancel() is False  # already cancelled by the bridge
        assert "cancelled" in repr(pending)
        await anyio.sleep(2.0)
        assert calls == []  # done never ran
    finally:
        server.clear_faults()
    rec = await _bridge.wait(lambda done: client.get(done, k, None, False, None))
    assert rec["a"] == 1


def test_blocking_refused_inside_asyncio_loop(client: n.Client) -> None:
    async def main() -> None:
        with pytest.raises(n.ClientError, match="event loop"):
            client.get_blocking(("test", "s", "k", None), None, False, None)

    asyncio.run(main())


def test_blocking_refused_inside_trio(client: n.Client) -> None:
    async def main() -> None:
        with pytest.raises(n.ClientError, match="event loop"):
            client.exists_blocking(("test", "s", "k", None), None)

    anyio.run(main, backend="trio")


def test_import_does_not_touch_event_loop_policy() -> None:
    before = asyncio.get_event_loop_policy()
    import importlib

    importlib.reload(_bridge)
    assert asyncio.get_event_loop_policy() is before
    assert type(before).__module__.startswith("asyncio")


def test_closed_client_raises(server: n.EmbeddedServer) -> None:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
    c.close()
    assert not c.is_connected
    with pytest.raises(n.ClientClosedError):
        c.get_blocking(("test", "s", "k", None), None, False, None)


def test_connect_refused_is_connection_error() -> None:
    with pytest.raises((n.ConnectionError, n.TimeoutError, n.ClientError)):
        n.connect_blocking(n.ClientConfig("127.0.0.1:1", connect_timeout_ms=200))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_child_reconnects(server: n.EmbeddedServer, client: n.Client) -> None:
    client.put_blocking(("test", "fork", "k", None), {"a": 1}, None)
    pid = os.fork()
    if pid == 0:  # child: the inherited client is refused, a new one works
        code = 1
        try:
            try:
                client.get_blocking(("test", "fork", "k", None), None, False, None)
            except n.ClientClosedError:
                c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
                rec = c.get_blocking(("test", "fork", "k", None), None, False, None)
                code = 0 if rec is not None and rec["a"] == 1 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert client.exists_blocking(("test", "fork", "k", None), None)


def test_set_worker_threads_validates() -> None:
    with pytest.raises(n.InvalidArgumentError):
        n.set_worker_threads(0)
    with pytest.raises(n.ClientError, match="already running"):
        n.set_worker_threads(2)


# ------------------------------------------------------------- coalesced submissions (asyncio)
def _put(client: n.Client, k: Any, bins: dict[str, Any], policy: n.Policy | None) -> Any:
    return _bridge.wait(lambda done: client.put(done, k, bins, policy))


def test_coalesced_ops_each_get_their_own_outcome(client: n.Client) -> None:
    """Ops started in one loop iteration share a flush; results and errors stay per caller."""
    create = n.Policy(exists=4)

    async def main() -> list[Any]:
        await _put(client, ("test", "co", "taken", None), {"a": 0}, None)
        coros = []
        for i in range(40):
            if i % 3 == 0:  # fails: the record exists
                coros.append(_put(client, ("test", "co", "taken", None), {"a": i}, create))
            else:
                coros.append(_put(client, ("test", "co", i, None), {"a": i}, None))
        return await asyncio.gather(*coros, return_exceptions=True)

    results = asyncio.run(main())
    for i, r in enumerate(results):
        if i % 3 == 0:
            assert isinstance(r, n.RecordExistsError), (i, r)
        else:
            assert r is None, (i, r)
            rec = client.get_blocking(("test", "co", i, None), None, False, None)
            assert rec is not None and rec["a"] == i
    taken = client.get_blocking(("test", "co", "taken", None), None, False, None)
    assert taken is not None and taken["a"] == 0


def test_coalesced_argument_error_stays_with_its_caller(client: n.Client) -> None:
    async def main() -> list[Any]:
        good = [_put(client, ("test", "co-arg", i, None), {"a": i}, None) for i in range(5)]
        bad = _put(client, ("test", "co-arg", "x", None), {"a": object()}, None)
        return await asyncio.gather(*good[:2], bad, *good[2:], return_exceptions=True)

    results = asyncio.run(main())
    assert isinstance(results[2], (TypeError, n.ClientError)), results[2]
    assert [r for i, r in enumerate(results) if i != 2] == [None] * 5
    for i in range(5):
        assert client.exists_blocking(("test", "co-arg", i, None), None)


def test_cancel_one_op_of_a_coalesced_group(server: n.EmbeddedServer, client: n.Client) -> None:
    """Cancel one op of a coalesced group before its flush, and another after it: neither
    completes (no outcome is delivered, the queued write never reaches the server); the rest do.
    """
    for i in range(6):
        client.put_blocking(("test", "co-cancel", i, None), {"a": i}, None)
    slow = n.Policy(total_timeout_ms=10_000)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        completer = _aio.completer(loop)
        assert completer is not None

        def put(i: int, value: int) -> tuple[asyncio.Future[Any], n.Pending]:
            fut = loop.create_future()
            return fut, client.put(
                (completer, fut), ("test", "co-cancel", i, None), {"a": value}, slow
            )

        # one loop iteration: six writes queued, the flush scheduled but not run
        ops = [put(i, 100 + i) for i in range(6)]
        before_flush = ops[0]
        assert before_flush[1].cancel() is True
        assert "cancelled" in repr(before_flush[1])
        await asyncio.gather(*(f for f, _ in ops[1:]))

        server.fault_delay(1500, 1)
        after_flush = put(5, 500)
        await asyncio.sleep(0.3)  # flushed, sent, its reply held by the server
        assert after_flush[1].cancel() is True
        await asyncio.sleep(1.8)
        assert not before_flush[0].done() and not after_flush[0].done()

    try:
        asyncio.run(main())
    finally:
        server.clear_faults()
    got = [client.get_blocking(("test", "co-cancel", i, None), None, False, None) for i in range(5)]
    assert [r["a"] if r is not None else None for r in got] == [0, 101, 102, 103, 104]


def test_queued_ops_go_out_when_the_completer_is_dropped_unflushed(client: n.Client) -> None:
    """A flush that never runs (loop closed first) does not lose the queued writes."""
    never: list[Any] = []  # a scheduler whose callbacks never run, like a closed loop's
    completer = n.Completer(never.append)

    async def main(c: n.Completer) -> None:
        loop = asyncio.get_running_loop()
        for i in range(5):
            client.put((c, loop.create_future()), ("test", "co-drop", i, None), {"a": i}, None)

    asyncio.run(main(completer))
    assert len(never) == 1  # one flush scheduled for the five
    never.clear()  # drops the bound `flush`, the last reference but ours
    del completer  # Drop spawns the five writes
    for _ in range(50):
        if all(client.exists_blocking(("test", "co-drop", i, None), None) for i in range(5)):
            break
        threading.Event().wait(0.1)
    assert all(client.exists_blocking(("test", "co-drop", i, None), None) for i in range(5))
