"""``max_conns_per_node`` is one budget for the whole client.

One client drives blocking calls from threads, two asyncio loops and a trio loop at once:
single-record verbs, operate chains, batches of 450 keys and scans. A sampler counts, the whole
time, the sockets this process holds open to the server (from the operating system's table);
they never go past the limit. The server's own count is reported too: it keeps a socket until
it has read the client's close, so when the client closes one connection to open another it
can count both for a moment.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import trio

import aerospike_fluent as af
from aerospike_fluent._exec import AsyncExecutor, SyncExecutor
from aerospike_fluent.server import EmbeddedServer

pytestmark = pytest.mark.timeout(120)

ROUNDS = 40
KEYS = 450


SAMPLER = r"""
import os, select, socket, struct, sys, time

pid, port = int(sys.argv[1]), int(sys.argv[2])
# sock_diag over netlink: the kernel lists only sockets in these states (not the thousands in
# TIME_WAIT a test run leaves behind): established, syn-sent/recv, fin-wait, close-wait,
# last-ack, closing.
STATES = sum(1 << s for s in (1, 2, 3, 4, 5, 8, 9, 11))
REQUEST = struct.pack("=LHHLL", 16 + 56, 20, 0x301, 1, 0) + struct.pack(
    "=BBBxL48x", socket.AF_INET, socket.IPPROTO_TCP, 0, STATES
)


def sockets() -> list[tuple[int, int, int]]:
    # (local port, remote port, inode) of every such TCP socket
    nl = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 4)  # NETLINK_SOCK_DIAG
    try:
        nl.send(REQUEST)
        out = []
        while True:
            data = nl.recv(1 << 16)
            at = 0
            while at + 16 <= len(data):
                length, kind = struct.unpack_from("=LH", data, at)
                if kind == 3 or length < 16:  # NLMSG_DONE
                    return out
                body = at + 16
                sport, dport = struct.unpack_from("!HH", data, body + 4)
                (inode,) = struct.unpack_from("=L", data, body + 68)
                out.append((sport, dport, inode))
                at += (length + 3) & ~3
    finally:
        nl.close()


most_client = most_server = samples = 0
while not select.select([sys.stdin], [], [], 0)[0]:
    mine = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            mine.add(int(target[8:-1]))
    client = server = 0
    for sport, dport, inode in sockets():
        if inode in mine and dport == port:
            client += 1
        elif inode in mine and sport == port:
            server += 1
    most_client, most_server = max(most_client, client), max(most_server, server)
    samples += 1
    time.sleep(0.0005)
print(most_client, most_server, samples, flush=True)
"""


class Sampler:
    """In a process of its own (the GIL would slow it down here): the most TCP sockets this
    process held open to the server at any sample, and the most the server held open from it,
    read from the operating system's tables (Linux ``/proc``)."""

    def __init__(self, server: EmbeddedServer) -> None:
        self.port = server.port
        self.most = self.most_at_server = self.samples = 0

    def __enter__(self) -> Sampler:
        args = [sys.executable, "-c", SAMPLER, str(os.getpid()), str(self.port)]
        self._proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        time.sleep(0.2)  # it is sampling before the work starts
        return self

    def __exit__(self, *exc: object) -> None:
        out, _ = self._proc.communicate("stop\n", timeout=30)
        self.most, self.most_at_server, self.samples = map(int, out.split())


def _clients(native: Any) -> tuple[af.Client[af.Async], af.Client[af.Sync]]:
    return af.Client(native, AsyncExecutor(native)), af.Client(native, SyncExecutor(native))


async def _async_work(db: af.Client[af.Async], tag: str) -> int:
    s = db.namespace("test").set("budget")
    done = 0
    for r in range(ROUNDS):
        calls = [s.key(f"{tag}{i}").put({"n": i, "l": [r]}) for i in range(32)]
        await asyncio.gather(*calls)
        await asyncio.gather(*(s.key(f"{tag}{i}").get() for i in range(32)))
        await asyncio.gather(
            *(s.key(f"{tag}{i}").add("n", 1).bin("l").list.append(r).execute() for i in range(8))
        )
        rows = await s.keys([f"k{i}" for i in range(KEYS)]).get()
        assert len(rows) == KEYS
        if r % 8 == 0:
            assert len([x async for x in s.query()]) >= KEYS
        done += 1
    return done


async def _trio_work(db: af.Client[af.Async]) -> int:
    s = db.namespace("test").set("budget")
    done = 0
    for r in range(ROUNDS):
        async with trio.open_nursery() as n:
            for i in range(16):
                n.start_soon(s.key(f"t{i}").put, {"n": r})
        async with trio.open_nursery() as n:
            for i in range(16):
                n.start_soon(s.key(f"t{i}").get)
        if r % 8 == 0:
            assert len([x async for x in s.query()]) >= KEYS
        done += 1
    return done


def _sync_work(db: af.Client[af.Sync]) -> int:
    s = db.namespace("test").set("budget")
    for r in range(ROUNDS * 4):
        s.key(f"s{r % 20}").put({"n": r})
        assert s.key(f"s{r % 20}").get() is not None
        s.key(f"s{r % 20}").add("n", 1).execute()
        assert s.key(f"s{r % 20}").exists()
    rows = s.keys([f"k{i}" for i in range(KEYS)]).get()
    return len(rows)


def _in_thread(fn: Callable[[], int], results: list[int], errors: list[BaseException]) -> None:
    try:
        results.append(fn())
    except BaseException as e:
        errors.append(e)


@pytest.mark.parametrize("limit", [16, 64])
def test_the_server_never_sees_more_than_max_conns_per_node(limit: int) -> None:
    with EmbeddedServer() as server:

        async def connect() -> Any:
            db = await af.connect(server.seeds, max_conns_per_node=limit, total_timeout=20)
            return db.native

        native = asyncio.run(connect())
        adb, sdb = _clients(native)
        s = sdb.namespace("test").set("budget")
        s.put_many({f"k{i}": {"i": i} for i in range(KEYS)}).raise_on_error()
        results: list[int] = []
        errors: list[BaseException] = []
        work: list[Callable[[], int]] = [
            lambda: asyncio.run(_async_work(adb, "a")),
            lambda: asyncio.run(_async_work(adb, "b")),
            lambda: trio.run(_trio_work, adb),
            lambda: _sync_work(sdb),
            lambda: _sync_work(sdb),
        ]
        with Sampler(server) as sampler:
            threads = [threading.Thread(target=_in_thread, args=(w, results, errors)) for w in work]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        native.close()
        assert not errors, errors
        assert sorted(results) == sorted([ROUNDS, ROUNDS, ROUNDS, KEYS, KEYS])
        assert sampler.samples > 100
        print(
            f"limit {limit}: at most {sampler.most} connections held, "
            f"{sampler.most_at_server} counted by the server ({sampler.samples} samples)"
        )
        assert sampler.most <= limit, f"the client held {sampler.most} connections"
        # the budget was used, not left idle: several paths held connections at once
        assert sampler.most > limit // 4


def _settle(check: Callable[[], bool], within: float = 10.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


def test_min_conns_per_node_are_opened_up_front_and_kept() -> None:
    with EmbeddedServer() as server, af.sync.connect(server.seeds, min_conns_per_node=12) as db:
        wire = db.native.wire_connections
        # no call made: the connections that serve gets and puts are opened and waiting
        assert _settle(lambda: sum(wire().values()) == 12)
        assert server.stats()["connections_open"] >= 12
        s = db.namespace("test").set("warm")
        for i in range(20):
            s.key(i).put({"i": i})
        # blocking calls run on a runtime of their own, which opens its own connection
        assert 12 <= sum(wire().values()) <= 13


def test_idle_connections_are_closed_after_idle_timeout_ms() -> None:
    async def burst() -> tuple[int, int, int]:
        async with af.connect(server.seeds, idle_timeout=0.3, min_conns_per_node=2) as db:
            s = db.namespace("test").set("reap")
            await asyncio.gather(*(s.key(i).put({"i": i}) for i in range(200)))
            opened = sum(db.native.wire_connections().values())
            await asyncio.sleep(0)
            settled = await asyncio.to_thread(
                _settle, lambda: sum(db.native.wire_connections().values()) == 2
            )
            # a call after the reaping opens what it needs again
            assert await s.key(1).get() is not None
            return opened, int(settled), sum(db.native.wire_connections().values())

    with EmbeddedServer() as server:
        opened, settled, after = asyncio.run(burst())
    assert opened > 2, "the burst used several connections"
    assert settled, "idle connections were not closed down to min_conns_per_node"
    assert after >= 1
