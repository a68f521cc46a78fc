"""close() ends what is in flight: blocking calls on other threads and query streams."""

from __future__ import annotations

import threading

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
