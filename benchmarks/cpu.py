"""CPU time used by the client and the server during a round (Linux ``/proc``; else None)."""

from __future__ import annotations

import hashlib
import os
import time


def process_cpu_ns(pid: int | None) -> int | None:
    """CPU time so far of every live thread of process ``pid``; None if it cannot be read.

    ``schedstat`` counts nanoseconds (``stat`` counts 10 ms ticks, too coarse for a round).
    """
    return _schedstat_sum(pid, 0)


def process_wait_ns(pid: int | None) -> int | None:
    """Time so far the threads of process ``pid`` were runnable but waited for a CPU."""
    return _schedstat_sum(pid, 1)


PROBE_BLOCKS = 4_000


def probe_ns() -> int:
    """Thread CPU time of a fixed piece of work (hashing): how fast the machine runs now.

    The same instructions every time, so a slower probe means the machine ran them slower
    (a neighbour on the host, a shared core), not that anything did more work.
    """
    start = time.thread_time_ns()
    block = b"probe" * 13
    for _ in range(PROBE_BLOCKS):
        block = hashlib.blake2b(block).digest()
    return time.thread_time_ns() - start


def _schedstat_sum(pid: int | None, field: int) -> int | None:
    if pid is None:
        return None
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    total = 0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[field])
        except (OSError, ValueError, IndexError):
            continue  # the thread ended meanwhile
    return total
