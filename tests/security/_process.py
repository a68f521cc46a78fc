"""The embedded server of the installed (development) build in a child process: a hostile frame
that crashed it fails one test instead of killing the test run, and its memory can be read."""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable

from . import _wire as w


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``python -m aerospike_fluent.server`` on a free port, stopped by :meth:`close`."""

    def __init__(self, preexec_fn: Callable[[], None] | None = None) -> None:
        self.host = "127.0.0.1"
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aerospike_fluent.server", "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=preexec_fn,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection((self.host, self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the server process did not start") from None
                time.sleep(0.05)

    def status_mb(self, key: str) -> float:
        """A memory line of ``/proc/<pid>/status`` (``VmRSS``, ``VmHWM`` = peak) in MiB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError(f"no {key} in /proc/{self.proc.pid}/status")

    def cpu_seconds(self) -> float:
        """User plus system CPU time the process has used."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def info(self, text: str, timeout: float = 30) -> str:
        with socket.create_connection((self.host, self.port), timeout=timeout) as s:
            s.sendall(w.proto(w.PROTO_INFO, text.encode()))
            return w.read_frame(s)[1].decode()

    def serving(self) -> bool:
        """Whether the process is alive and answers an info request."""
        if self.proc.poll() is not None:
            return False
        try:
            return self.info("build", timeout=10).startswith("build\t")
        except OSError:
            return False

    def request(self, frame: bytes, timeout: float = 60) -> w.Reply:
        return w.request(self.host, self.port, frame, timeout)

    def put_udf(self, filename: str, source: str) -> None:
        content = base64.b64encode(source.encode()).decode()
        answer = self.info(
            f"udf-put:filename={filename};content={content};content-len={len(source)};udf-type=LUA;"
        )
        assert answer.rstrip().endswith("ok"), answer

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
