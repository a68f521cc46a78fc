"""Helpers shared by the reliability tests: fd and memory probes, a tiny op counter."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import aerospike_fluent as af
from aerospike_fluent import _native
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


def rss_mb() -> float:
    """Resident set size of this process in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


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


def fds_back_to(baseline: int, slack: int = 2, seconds: float = 5.0) -> int:
    """Wait (bounded) for the fd count to come back near ``baseline``; return the final count."""
    settle(lambda: open_fds() <= baseline + slack, seconds)
    return open_fds()


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
