"""Running the ``aerospike-fluent`` command line as a subprocess of this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The checkout: ``python -m aerospike_fluent`` run from here imports its package."""


def cli_env(seeds: str | None) -> dict[str, str]:
    """The environment of a run: ``AEROSPIKE_HOST`` set to ``seeds`` (or unset), wide tables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("AEROSPIKE_HOST", "AEROSPIKE_FLUENT_CONFIG")
    }
    if seeds is not None:
        env["AEROSPIKE_HOST"] = seeds
    env["COLUMNS"] = "200"
    return env


def cli(
    seeds: str | None, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m aerospike_fluent ARGS`` against ``seeds``; return what it did."""
    return subprocess.run(
        [sys.executable, "-m", "aerospike_fluent", *args],
        cwd=ROOT,
        env=cli_env(seeds),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def cli_process(seeds: str | None, *args: str) -> subprocess.Popen[str]:
    """Start ``python -m aerospike_fluent ARGS`` in the background (stdout and stderr piped)."""
    return subprocess.Popen(
        [sys.executable, "-m", "aerospike_fluent", *args],
        cwd=ROOT,
        env=cli_env(seeds),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
