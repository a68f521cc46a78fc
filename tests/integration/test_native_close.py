"""close() ends what is in flight: blocking calls on other threads and query streams."""

from __future__ import annotations

import threading

import anyio
import pytest

from aerospike_fluent import _native as n

pytestmark = pytest.mark.timeout(60)


def _connect(server: n.EmbeddedServer) -> n.Client:
    return n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))


def test_close_fails_blocking_calls_in_flight(server: n.EmbeddedServer) -> None:
    c = _connect(server)
    server.fault_delay(5000, count=2)
    outcomes: list[BaseException | None] = []
    started = threading.Barrier(3)

    def put(i: int) -> None:
        started.wait()
        try:
            c.put_blocking(("test", "close", i, None), {"n": i}, None)
            outcomes.append(None)
        except BaseException as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=put, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    started.wait()
    threading.Event().wait(0.2)  # let both requests reach the (delayed) server
    c.close()
    for t in threads:
        t.join(30)
    server.clear_faults()
    assert len(outcomes) == 2
    assert all(isinstance(o, n.ClientClosedError) for o in outcomes), outcomes


def test_close_ends_query_streams(server: n.EmbeddedServer) -> None:
    c = _connect(server)
    for i in range(50):
        c.put_blocking(("test", "close", i, None), {"n": i}, None)
    stream = c.query("test", "close", None, None, None, 0, None, 10)
    first = stream.next_chunk_blocking()
    assert first
    c.close()
    with pytest.raises(n.ClientClosedError):
        stream.next_chunk_blocking()


@pytest.mark.parametrize(("write", "in_doubt"), [(True, True), (False, False)])
def test_calls_cut_by_close_are_in_doubt_only_when_they_write(
    server: n.EmbeddedServer, write: bool, in_doubt: bool
) -> None:
    c = _connect(server)
    key = ("test", "close", "doubt", None)
    c.put_blocking(key, {"n": 0}, None)
    server.fault_delay(5000, count=1)
    outcome: list[BaseException | None] = []

    def call() -> None:
        try:
            if write:
                c.put_blocking(key, {"n": 1}, None)
            else:
                c.get_blocking(key, None, False, None)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    t = threading.Thread(target=call)
    t.start()
    threading.Event().wait(0.3)  # the request reached the (delayed) server
    c.close()
    t.join(30)
    server.clear_faults()
    assert len(outcome) == 1 and isinstance(outcome[0], n.ClientClosedError), outcome
    assert outcome[0].in_doubt is in_doubt


async def _cut_async(server: n.EmbeddedServer, write: bool) -> BaseException:
    import aerospike_fluent as af

    async with af.connect(f"{server.host}:{server.port}") as db:
        k = db.namespace("test").set("close").key("adoubt")
        await k.put({"n": 0})
        server.fault_delay(5000, count=1)
        caught: list[BaseException] = []

        async def call() -> None:
            try:
                await (k.put({"n": 1}) if write else k.get())
            except BaseException as exc:
                caught.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            await anyio.sleep(0.3)
            db.close()
        server.clear_faults()
        return caught[0]


@pytest.mark.anyio
@pytest.mark.parametrize(("write", "in_doubt"), [(True, True), (False, False)])
async def test_async_calls_cut_by_close_are_in_doubt_only_when_they_write(
    server: n.EmbeddedServer, write: bool, in_doubt: bool
) -> None:
    exc = await _cut_async(server, write)
    assert isinstance(exc, n.ClientClosedError), exc
    assert exc.in_doubt is in_doubt
