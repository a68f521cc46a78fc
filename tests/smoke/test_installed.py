"""Smoke suite for an installed wheel (``.ci/wheel-smoke``): copied out of the source tree and
run in a fresh virtualenv with no Rust toolchain, so it exercises the package as a user gets it.
Runs in the repository's suite too (against the development build)."""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync


def test_the_package_is_what_pip_installed() -> None:
    assert af.__version__ == importlib.metadata.version("aerospike-fluent")
    assert af.__version__ == af._native.__version__
    package = Path(af.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "_native.pyi").is_file()


def test_sync_round_trip_on_the_embedded_server() -> None:
    with af_sync.connect("embedded://") as db:
        users = db.namespace("test").set("smoke")
        users.key("ann").put({"name": "Ann", "age": 30})
        rec = users.key("ann").add("age", 1).read("age").execute()
        assert rec is not None and rec["age"] == 31
        assert [r["name"] for r in users.query()] == ["Ann"]
        assert db.metrics().count("put") == 1
        # a call of the second table of native methods (registered apart, at load)
        assert db.info("build")["build"].count(".") == 3


def test_asyncio_round_trip() -> None:
    async def main() -> list[int]:
        async with af.connect("embedded://") as db:
            s = db.namespace("test").set("smoke")
            await asyncio.gather(*(s.key(i).put({"i": i}) for i in range(50)))
            rows = await s.keys(list(range(50))).get()
            return sorted(r.record["i"] for r in rows if r.record is not None)

    assert asyncio.run(main()) == list(range(50))


def test_trio_round_trip() -> None:
    trio = pytest.importorskip("trio")

    async def main() -> int:
        async with af.connect("embedded://") as db:
            s = db.namespace("test").set("smoke")
            await s.key("t").put({"n": 1})
            rec = await s.key("t").get()
            assert rec is not None
            return int(rec["n"])

    assert trio.run(main) == 1


def test_arrow_when_pyarrow_is_installed() -> None:
    pa = pytest.importorskip("pyarrow")
    with af_sync.connect("embedded://") as db:
        s = db.namespace("test").set("smoke_arrow")
        for i in range(20):
            s.key(i).put({"i": i, "s": f"v{i}"})
        table = pa.table(s.query().to_arrow())
    assert table.num_rows == 20
    assert sorted(table.column("i").to_pylist()) == list(range(20))


def test_the_command_line_runs_or_names_its_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aerospike_fluent", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    if all(importlib.util.find_spec(name) for name in ("click", "rich", "pyarrow")):
        assert done.returncode == 0, done.stderr
        assert "query" in done.stdout and "import" in done.stdout
    else:
        assert done.returncode == 2
        assert "pip install 'aerospike-fluent[cli]'" in done.stderr
