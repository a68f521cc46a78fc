"""The server: ``--host`` / ``AEROSPIKE_HOST``, else the embedded server in its own process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER_BIN = ROOT / "target" / "release" / "embedded-server"
LISTENING = re.compile(r"listening on (\S+):(\d+)")


@dataclass
class Server:
    host: str
    port: int
    kind: str
    proc: subprocess.Popen[str] | None = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def build(log: Callable[[str], None]) -> None:
    """``cargo build --release`` of the embedded server and the Rust ceiling (failures logged)."""
    cmd = ["cargo", "build", "--release", "--quiet", "-p", "server", "-p", "bench"]
    log("building: " + " ".join(cmd))
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        log("  cargo build failed (continuing with what exists):\n" + done.stderr[-2000:])


def _spawn(cmd: list[str], kind: str, timeout: float = 60.0) -> Server:
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    )
    found: list[tuple[str, int]] = []
    seen: list[str] = []

    def watch() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            m = LISTENING.search(line)
            if m and not found:
                found.append((m.group(1), int(m.group(2))))
            elif not found:
                seen.append(line.rstrip())
        # keep draining so the server never blocks on a full pipe

    reader = threading.Thread(target=watch, daemon=True)
    reader.start()
    while not found and proc.poll() is None and timeout > 0:
        reader.join(0.1)
        timeout -= 0.1
    if not found:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"{kind} did not start: " + " | ".join(seen[-5:]))
    return Server(found[0][0], found[0][1], kind, proc)


def start(host: str | None, log: Callable[[str], None]) -> Server:
    host = host or os.environ.get("AEROSPIKE_HOST")
    if host:
        name, _, port = host.rpartition(":")
        return Server(name or "127.0.0.1", int(port or 3000), f"external {host}")
    errors = []
    if SERVER_BIN.exists():
        try:
            return _spawn([str(SERVER_BIN), "--port", "0"], "embedded-server (release binary)")
        except RuntimeError as e:
            errors.append(str(e))
    module = [sys.executable, "-m", "aerospike_fluent.server", "--port", "0"]
    try:
        return _spawn(module, "python -m aerospike_fluent.server")
    except RuntimeError as e:
        errors.append(str(e))
    raise RuntimeError("no server: " + "; ".join(errors))
