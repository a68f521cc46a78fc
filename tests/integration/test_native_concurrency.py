"""Threads, cancellation, event-loop refusal and fork safety of the native bridge."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from aerospike_fluent import _bridge
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
        n.connect_blocking(
            n.ClientConfig("127.0.0.1:1", connect_timeout_ms=200, total_timeout_ms=500)
        )


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
