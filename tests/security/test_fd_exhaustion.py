"""Out of file descriptors, the server's accept loop waits between tries instead of spinning a
core on the connections left in the backlog, and serves again once descriptors free up."""

from __future__ import annotations

import os
import resource
import socket
import time

import pytest

from ._process import ServerProcess

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc"),
]

FD_LIMIT = 64


def _low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_out_of_descriptors_the_accept_loop_does_not_spin() -> None:
    srv = ServerProcess(preexec_fn=_low_fd_limit)
    socks: list[socket.socket] = []
    try:
        for _ in range(2 * FD_LIMIT):  # the listen backlog keeps taking what accept cannot
            socks.append(socket.create_connection((srv.host, srv.port), timeout=5))
        deadline = time.monotonic() + 30
        while _open_fds(srv.proc.pid) < FD_LIMIT - 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _open_fds(srv.proc.pid) >= FD_LIMIT - 1, "the server never ran out of descriptors"
        cpu, wall = srv.cpu_seconds(), time.monotonic()
        time.sleep(2.0)
        share = (srv.cpu_seconds() - cpu) / (time.monotonic() - wall)
        assert share < 0.25, f"the server used {share:.0%} of a core while out of descriptors"
    finally:
        for s in socks:
            s.close()
    try:
        assert srv.serving()
    finally:
        srv.close()
