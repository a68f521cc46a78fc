"""Helpers shared by the reliability tests: fd and memory probes, a tiny op counter."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

import aerospike_fluent as af
from aerospike_fluent import _native
from aerospike_fluent._native import Completer
from aerospike_fluent.server import EmbeddedServer


def seeds_of(server: EmbeddedServer) -> str:
    """The seed string of an in-process embedded server."""
    return f"{server.host}:{server.port}"


async def warm_loop(seeds: str) -> None:
    """Make enough calls on the running loop for it to build its own runtime (asyncio), so
    that the runtime's descriptors are part of an fd baseline taken afterwards."""
    async with af.connect(seeds) as db:
        key = db.namespace("test").set("warm").key("warm")
        for _ in range(_native.LOOP_RUNTIME_AFTER):
            await key.exists()


def open_fds() -> int:
    """Number of file descriptors this process has open."""
    return len(os.listdir("/proc/self/fd"))


def rss_mb(field: str = "VmRSS") -> float:
    """Resident set size of this process in MiB (``VmHWM``: its peak so far)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def settle(check: Callable[[], bool], seconds: float = 5.0) -> bool:
    """Poll ``check`` (after a GC) until it holds or ``seconds`` pass; return its last value."""
    deadline = time.monotonic() + seconds
    while True:
        gc.collect()
        if check():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


async def fds_back_to(baseline: int, slack: int = 2, seconds: float = 5.0) -> int:
    """Wait (bounded) for the fd count to come back near ``baseline``; return the final count.

    Waits by sleeping on the event loop, not by blocking it: what a loop's own runtime still
    has to close (a pool connecting in the background when its client closed) needs the loop.
    """
    deadline = time.monotonic() + seconds
    while True:
        gc.collect()
        if open_fds() <= baseline + slack or time.monotonic() > deadline:
            return open_fds()
        await anyio.sleep(0.05)


@dataclass
class Tally:
    """Outcome counts of a soak."""

    acknowledged: int = 0
    failed: int = 0
    in_doubt: int = 0
    lost: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, exc: BaseException) -> None:
        name = type(exc).__name__
        self.errors[name] = self.errors.get(name, 0) + 1


async def seven_calls(k: af.KeyRef[af.Async]) -> None:
    """put, get, exists, operate, touch, delete and get on one key, checking every answer."""
    await k.put({"n": 1, "s": "x"})
    rec = await k.get()
    assert rec is not None and rec["n"] == 1 and rec["s"] == "x"
    assert await k.exists()
    got = await k.add("n", 2).read("n").execute()
    assert got is not None and got["n"] == 3
    await k.touch()
    assert await k.delete()
    assert await k.get() is None


async def times_out_before_a_slow_reply(server: EmbeddedServer, k: af.KeyRef[af.Async]) -> None:
    """A 0.3 s timeout fires while the server holds the reply for 5 s."""
    await k.put({"n": 1})
    server.fault_delay(5000, count=1)
    started = time.monotonic()
    try:
        await k.timeout(0.3, retries=0).get()
        raise AssertionError("no TimeoutError")
    except af.errors.TimeoutError:
        pass
    finally:
        server.clear_faults()
    # the loop's periodic tick drives the timer: well before the 5 s reply
    assert time.monotonic() - started < 3


async def until_on_loop(s: af.RecordSet[af.Async], completer: Callable[[], Completer]) -> None:
    """Make calls until the client's pool on the loop's (or trio run's) runtime is used.

    ``completer`` gives the running loop's completer (a trio run makes its own at its first
    call, so it is asked only after one).
    """
    for i in range(5000):
        before = completer().loop_ops_started if i else 0
        await s.key(f"warm{i % 10}").exists()
        if i and completer().loop_ops_started > before:
            return
        await anyio.sleep(0.001)
    raise AssertionError("no call ever ran on the loop's runtime")
