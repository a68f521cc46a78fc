"""CPU time used by the client and the server during a round (Linux ``/proc``; else None)."""

from __future__ import annotations

import os


def process_cpu_ns(pid: int | None) -> int | None:
    """CPU time so far of every live thread of process ``pid``; None if it cannot be read.

    ``schedstat`` counts nanoseconds (``stat`` counts 10 ms ticks, too coarse for a round).
    """
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
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # the thread ended meanwhile
    return total
