"""The server's command line: a busy port is one line on stderr and exit status 1."""

from __future__ import annotations

import socket
import subprocess
import sys


def test_a_busy_port_is_one_line_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "aerospike_fluent.server", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Address already in use" in lines[0] and "Traceback" not in done.stderr
