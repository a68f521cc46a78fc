"""The raw Rust ceiling: ``crates/bench`` (the ``aerospike`` crate on Tokio) driven over a pipe.

The binary times each round itself, so the pipe costs nothing in the figures.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.adapters.base import Kind, Skip, Target

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "target" / "release" / "bench-ceiling"


class RustCeiling:
    """Speaks the line protocol documented in ``crates/bench/src/main.rs``."""

    kind: ClassVar[Kind] = "external"
    name: ClassVar[str] = "raw Rust (aerospike crate)"
    package: ClassVar[str] = "crates/bench"

    def __init__(self, target: Target, workers: int = 1, conns: int = 64) -> None:
        self.t = target
        self.workers = workers
        self.conns = conns
        self.proc: subprocess.Popen[str] | None = None

    def connect(self) -> None:
        if not BINARY.exists():
            raise Skip(f"{BINARY.relative_to(ROOT)} not built (cargo build --release -p bench)")
        args = [str(BINARY), "--host", self.t.seed]
        args += ["--workers", str(self.workers), "--conns", str(self.conns)]
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        ready = self._read()
        if not ready.get("ok"):
            raise Skip(f"bench-ceiling: {ready.get('error')}")

    @property
    def pid(self) -> int | None:
        """The binary's process id while it runs."""
        return self.proc.pid if self.proc is not None else None

    def _read(self) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            return {"ok": False, "error": f"exited with {self.proc.wait()}"}
        reply: dict[str, Any] = json.loads(line)
        return reply

    def command(self, cmd: str, **fields: object) -> dict[str, Any]:
        """Send one command; raise RuntimeError with the binary's message on failure."""
        if self.proc is None or self.proc.stdin is None:
            raise RuntimeError("bench-ceiling is not running")
        args = " ".join(f"{k}={v}" for k, v in fields.items())
        self.proc.stdin.write(f"{cmd} {args}\n")
        self.proc.stdin.flush()
        reply = self._read()
        if not reply.get("ok"):
            raise RuntimeError(str(reply.get("error")))
        return reply

    def setup(self) -> None:
        self.command("setup", prefix=self.t.prefix, keys=self.t.keys)

    def run(self, op: str, ops: int, conc: int, size: int, low: int, high: int) -> dict[str, Any]:
        return self.command(
            "run",
            workload=op,
            ops=ops,
            prefix=self.t.prefix,
            keys=self.t.keys,
            conc=conc,
            size=size,
            set=self.t.scan_set if op in ("scan", "query") else "bench",
            low=low,
            high=high,
        )

    def close(self) -> None:
        if self.proc is None:
            return
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc = None
