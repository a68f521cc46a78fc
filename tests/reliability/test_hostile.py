"""The embedded server survives hostile clients (fuzzed frames, half-open connections, slowloris,
huge declared lengths) while a real client keeps working, with bounded memory."""

from __future__ import annotations

import random
import socket
import struct
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedServer

from ._util import rss_mb, settle

pytestmark = pytest.mark.timeout(60)


def _proto(ptype: int, body: bytes, length: int | None = None) -> bytes:
    n = len(body) if length is None else length
    return struct.pack(">Q", (2 << 56) | (ptype << 48) | n) + body


def _valid_get() -> bytes:
    """An AS_MSG read of test/s/<digest> (a real request to mutate)."""
    fields = b""
    for ftype, data in ((0, b"test"), (1, b"s"), (4, bytes(range(20)))):
        fields += struct.pack(">IB", len(data) + 1, ftype) + data
    header = bytes([22, 1 | 2, 0, 0, 0, 0]) + bytes(12) + struct.pack(">HH", 3, 0)
    return _proto(3, header + fields)


def _raw(server: EmbeddedServer, wait: float = 0.5) -> socket.socket:
    s = socket.create_connection((server.host, server.port), timeout=2)
    s.settimeout(wait)
    return s


def _check(db: af_sync.SyncClient, n: int) -> None:
    rec = db.namespace("test").set("h").key("canary").timeout(5).get()
    assert rec is not None and rec["n"] == n


@pytest.fixture
def canary(server: EmbeddedServer) -> Iterator[af_sync.SyncClient]:
    with af_sync.connect(server.seeds) as db:
        db.namespace("test").set("h").key("canary").put({"n": 1})
        yield db


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.builds(
            lambda flips, cut: (flips, cut),
            st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)), max_size=6),
            st.integers(0, 200),
        ),
    )
)
def test_fuzzed_frames(
    server: EmbeddedServer,
    canary: af_sync.SyncClient,
    data: bytes | tuple[list[tuple[int, int]], int],
) -> None:
    if isinstance(data, tuple):  # a mutated valid request
        flips, cut = data
        frame = bytearray(_valid_get())
        for at, value in flips:
            frame[at % len(frame)] = value
        payload = bytes(frame[: max(cut, 8)] if cut < len(frame) else frame)
    else:
        payload = data
    with _raw(server, 0.02) as s:
        try:
            s.sendall(payload)
            s.recv(4096)
        except OSError:
            pass  # the server may close on garbage or wait for more: both are fine
    assert server.running
    _check(canary, 1)


def test_fuzz_then_the_client_still_works(
    server: EmbeddedServer, canary: af_sync.SyncClient
) -> None:
    canary_conns = server.stats()["connections_open"]
    rnd = random.Random(1)
    valid = _valid_get()
    for i in range(200):
        frame = bytearray(valid)
        for _ in range(rnd.randint(1, 4)):
            frame[rnd.randrange(len(frame))] = rnd.randrange(256)
        payload = bytes(frame) if i % 3 else rnd.randbytes(rnd.randint(1, 64))
        with _raw(server, 0.02) as s:
            try:
                s.sendall(payload)
                s.recv(4096)
            except OSError:
                pass
        if i % 50 == 0:
            _check(canary, 1)
    _check(canary, 1)
    assert settle(lambda: server.stats()["connections_open"] <= canary_conns)


def test_half_open_connections(server: EmbeddedServer, canary: af_sync.SyncClient) -> None:
    canary_conns = server.stats()["connections_open"]
    socks = []
    try:
        for i in range(100):
            s = _raw(server)
            # a header promising a body that never comes, or half a header, or nothing
            s.sendall([_proto(3, b"", 500), b"\x02\x03", b""][i % 3])
            socks.append(s)
        _check(canary, 1)
        canary.namespace("test").set("h").key("canary").put({"n": 2})
        _check(canary, 2)
    finally:
        for s in socks:
            s.close()
    assert settle(lambda: server.stats()["connections_open"] <= canary_conns)


def test_slowloris(server: EmbeddedServer, canary: af_sync.SyncClient) -> None:
    request = _valid_get()
    stop = threading.Event()

    def drip() -> None:
        with _raw(server) as s:
            for b in request[:-1]:  # never completes the request
                if stop.wait(0.02):
                    return
                s.sendall(bytes([b]))

    threads = [threading.Thread(target=drip, daemon=True) for _ in range(5)]
    for t in threads:
        t.start()
    try:
        for n in range(2, 12):
            canary.namespace("test").set("h").key("canary").put({"n": n})
            _check(canary, n)
            time.sleep(0.05)
    finally:
        stop.set()
        for t in threads:
            t.join(5)
    assert not any(t.is_alive() for t in threads)


def test_huge_declared_length_keeps_serving(
    server: EmbeddedServer, canary: af_sync.SyncClient
) -> None:
    socks = []
    try:
        for ptype in (1, 3, 4):
            s = _raw(server)
            s.sendall(_proto(ptype, b"\x00" * 16, 2**48 - 1))  # beyond any frame limit
            socks.append(s)
            s = _raw(server)
            s.sendall(_proto(ptype, b"\x00" * 16, 64 * 1024 * 1024))  # 64 MiB, never sent
            socks.append(s)
        _check(canary, 1)
    finally:
        for s in socks:
            s.close()
    _check(canary, 1)


def test_huge_declared_lengths_do_not_pin_memory(
    server: EmbeddedServer, canary: af_sync.SyncClient
) -> None:
    before = rss_mb()
    socks = []
    try:
        for _ in range(4):
            s = _raw(server)
            s.sendall(_proto(3, b"\x00" * 16, 100 * 1024 * 1024))
            socks.append(s)
        _check(canary, 1)
        time.sleep(0.5)
        grown = rss_mb() - before
    finally:
        for s in socks:
            s.close()
    assert grown < 64, f"RSS grew by {grown:.0f} MiB for 64 bytes actually sent"
