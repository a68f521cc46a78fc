"""Blocking calls: run on the calling thread, and stay interruptible on the main thread."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable

import pytest

import aerospike_fluent as af
from aerospike_fluent import _native as n

pytestmark = pytest.mark.timeout(60)


def _patient(seconds: float) -> n.CallDefaults:
    return af.Policy(total_timeout=seconds)._call_defaults()


def test_ctrl_c_interrupts_a_blocking_call_on_the_main_thread(server: n.EmbeddedServer) -> None:
    assert threading.current_thread() is threading.main_thread()
    config = n.ClientConfig(f"{server.host}:{server.port}", defaults=_patient(20))
    c = n.connect_blocking(config)
    try:
        server.fault_delay(10_000, count=1)
        previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        start = time.monotonic()
        try:
            with pytest.raises(KeyboardInterrupt):
                c.put_blocking(("test", "blocking", "k", None), {"n": 1}, None)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        assert time.monotonic() - start < 8  # well before the 10 s server delay
        server.clear_faults()
        # the client keeps working after the interrupted call
        c.put_blocking(("test", "blocking", "k2", None), {"n": 2}, None)
        rec = c.get_blocking(("test", "blocking", "k2", None), None, False, None)
        assert rec is not None and rec.bins == {"n": 2}
    finally:
        c.close()


def _put_then_get(c: n.Client, k: n.Key, i: int) -> None:
    c.put_blocking(k, {"i": i}, None)
    rec = c.get_blocking(k, None, False, None)
    assert rec is not None and rec.bins == {"i": i}


def test_blocking_calls_from_many_threads(server: n.EmbeddedServer) -> None:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(200):
                _put_then_get(c, ("test", "blocking", f"t{t}-{i}", None), i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(50)
    c.close()
    assert errors == []


def _settle(check: Callable[[], bool], within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_idle_sync_client_closes_its_caller_driven_pool(server: n.EmbeddedServer) -> None:
    # Blocking single-record calls run on a runtime that only the blocked caller drives; its
    # background work (tend, the close below) must still progress while no call runs.
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
    c.put_blocking(("test", "blocking", "idle", None), {"n": 1}, None)
    assert server.stats()["connections_open"] >= 2
    c.close()
    assert _settle(lambda: server.stats()["connections_open"] == 0)


def test_idle_sync_client_survives_a_server_restart(server: n.EmbeddedServer) -> None:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}", defaults=_patient(5)))
    try:
        c.put_blocking(("test", "blocking", "r", None), {"n": 1}, None)
        server.restart()
        time.sleep(1.5)  # idle: at least one tend interval on the restarted server
        c.put_blocking(("test", "blocking", "r", None), {"n": 2}, None)
        rec = c.get_blocking(("test", "blocking", "r", None), None, False, None)
        assert rec is not None and rec.bins == {"n": 2}
    finally:
        c.close()


def _rows(n: int) -> list[tuple[object, ...]]:
    return [("read", ("test", "pipe", f"k{i}", None), None, False, None) for i in range(n)]


def test_large_read_batch_is_pipelined_and_keeps_request_order(server: n.EmbeddedServer) -> None:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
    try:
        for i in range(1000):
            if i % 7:
                c.put_blocking(("test", "pipe", f"k{i}", None), {"i": i}, None)
        server.reset_stats()
        rows = c.batch_blocking(_rows(1000), None)
        # parts of 250 rows, requested at once (one native call)
        assert server.stats()["batch"] == 4
        assert [r.key[2] for r in rows] == [f"k{i}" for i in range(1000)]
        for i, row in enumerate(rows):
            if i % 7:
                assert row.result_code == 0 and row.record is not None
                assert row.record.bins == {"i": i}
            else:
                assert row.record is None and row.result_code == 2  # not found
    finally:
        c.close()


def test_batch_rows_of_several_sets_and_shapes_each_read_their_own_record(
    server: n.EmbeddedServer,
) -> None:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
    try:
        for set_name in ("pa", "pb"):
            for i in range(3):
                c.put_blocking(("test", set_name, f"k{i}", None), {"s": set_name, "i": i}, None)
        other_set = "".join(["p", "b"])  # equal to "pb", another object
        rows: list[tuple[object, ...]] = [
            ("read", ("test", "pa", "k0", None), None, False, None),
            ("read", ("test", other_set, "k0", None), None, False, None),
            ("read", ("test", "pa", "k1", None), None, True, None),
            ("read", ("test", "pb", "k1", None), ["i"], False, None),
            ("read", ("test", "pa", "k2", None), None, False, n.Policy()),
            ("read", ("test", "pb", "k9", None), None, False, None),
        ]
        got = c.batch_blocking(rows, None)
        bins = [r.record.bins if r.record is not None else None for r in got]
        assert bins == [
            {"s": "pa", "i": 0},
            {"s": "pb", "i": 0},
            {},
            {"i": 1},
            {"s": "pa", "i": 2},
            None,
        ]
        assert [r.key[1] for r in got] == ["pa", "pb", "pa", "pb", "pa", "pb"]
    finally:
        c.close()


def test_small_and_writing_batches_stay_one_request(server: n.EmbeddedServer) -> None:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
    try:
        server.reset_stats()
        c.batch_blocking(_rows(399), None)
        writes = [("write", ("test", "pipe", "w", None), [("write", "n", 1)], None)]
        c.batch_blocking(_rows(1000) + writes, None)
        assert server.stats()["batch"] == 2
    finally:
        c.close()


def test_close_fails_a_pipelined_batch_in_flight(server: n.EmbeddedServer) -> None:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}", defaults=_patient(20)))
    server.fault_delay(10_000, count=2)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            c.batch_blocking(_rows(1000), None)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    t = threading.Thread(target=read)
    t.start()
    time.sleep(0.3)
    start = time.monotonic()
    c.close()
    t.join(30)
    server.clear_faults()
    assert len(outcome) == 1 and isinstance(outcome[0], n.ClientClosedError), outcome
    assert time.monotonic() - start < 8  # not after the 10 s delay


@pytest.mark.parametrize("spin_wait_us", [0, 200, 10_000])
def test_blocking_calls_answer_alike_whatever_the_spin_budget(
    server: n.EmbeddedServer, spin_wait_us: int
) -> None:
    seeds = f"{server.host}:{server.port}"
    c = n.connect_blocking(n.ClientConfig(seeds, spin_wait_us=spin_wait_us))
    try:
        for i in range(50):
            k = ("test", "spin", f"{spin_wait_us}-{i}", None)
            _put_then_get(c, k, i)
            assert c.exists_blocking(k, None)
        assert c.get_blocking(("test", "spin", "absent", None), None, False, None) is None
    finally:
        c.close()


def test_replies_slower_than_the_spin_budget_still_arrive(server: n.EmbeddedServer) -> None:
    # 20 replies 5 ms late with a 50 µs budget: every spin misses (the client backs off after
    # 8), each call then sleeps until its reply, and spinning resumes once replies are fast.
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}", spin_wait_us=50))
    try:
        k = ("test", "spin", "slow", None)
        c.put_blocking(k, {"n": 0}, None)
        server.fault_delay(5, count=20)
        for i in range(20):
            c.put_blocking(k, {"n": i}, None)
        server.clear_faults()
        for _ in range(100):
            rec = c.get_blocking(k, None, False, None)
            assert rec is not None and rec.bins == {"n": 19}
    finally:
        c.close()


def test_spin_budget_is_checked() -> None:
    with pytest.raises(n.InvalidArgumentError, match="spin_wait_us"):
        n.ClientConfig("h:1", spin_wait_us=10_001)
