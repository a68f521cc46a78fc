"""Ctrl-C: an interrupted ``query`` leaves a valid partial file, never a corrupt one (and no
file when no row was read: ``tests/unit/test_cli_files.py``); an interrupted ``import`` says
how far it got.

Each runs on a two-node cluster whose second node holds its reply back, so the first node's
part is done and the command is still running when the signal comes.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
import pytest

from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

from ._cli import cli_process

ROWS = 2000
WAIT = 60.0


def _wait_for_rows(proc: subprocess.Popen[str], partial: Path, fmt: str) -> None:
    """Wait until the hidden file holds rows: a Parquet row group past the 4-byte header, or a
    CSV line past the header line."""
    deadline = time.monotonic() + WAIT
    while not _has_rows(partial, fmt):
        if proc.poll() is not None:
            pytest.fail(f"the query ended before it was interrupted: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"no rows were written within {WAIT} s")
        time.sleep(0.05)


def _has_rows(partial: Path, fmt: str) -> bool:
    if not partial.exists():
        return False
    if fmt == "parquet":
        return partial.stat().st_size > 4
    return partial.read_bytes().count(b"\n") >= 2


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_ctrl_c_keeps_the_rows_read_in_a_valid_file(tmp_path: Path, fmt: str) -> None:
    with EmbeddedCluster(2, 1) as cluster, af_sync.connect(cluster.seeds) as db:
        records = db.namespace("test").set("interrupted")
        rows = pa.table({"id": list(range(ROWS)), "n": [i * 3 for i in range(ROWS)]})
        records.put_arrow(rows, key="id", send_key=True).raise_on_error()
        cluster.nodes[1].fault_delay(int(WAIT * 1000), 1)
        out = tmp_path / f"rows.{fmt}"
        proc = cli_process(
            cluster.seeds,
            "query",
            "test.interrupted",
            "--key",
            "id",
            "-o",
            str(out),
            "--batch-rows",
            "50",
        )
        partial = tmp_path / f".rows.{fmt}.partial"
        _wait_for_rows(proc, partial, fmt)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=WAIT)
        assert proc.returncode == 130, stderr
        assert not partial.exists()
        if fmt == "parquet":
            got = pq.read_table(out)
        else:
            import pyarrow.csv as pa_csv  # type: ignore[import-untyped, unused-ignore]

            got = pa_csv.read_csv(out)
        assert 0 < got.num_rows < ROWS
        assert f"holds the {got.num_rows:,} record(s) read so far" in stderr
        assert all(row["n"] == row["id"] * 3 for row in got.to_pylist())
        assert len(set(got.column("id").to_pylist())) == got.num_rows


def test_ctrl_c_stops_an_import_saying_how_far_it_got(tmp_path: Path) -> None:
    source = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"id": list(range(ROWS)), "n": list(range(ROWS))}), source)
    with EmbeddedCluster(2, 1) as cluster:
        cluster.nodes[1].fault_delay(int(WAIT * 1000), 1)
        first = cluster.nodes[0]
        proc = cli_process(cluster.seeds, "import", "test.cut", str(source), "--key", "id")
        deadline = time.monotonic() + WAIT
        while first.stats()["records"] == 0:  # the first node took its part of a batch
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=WAIT)
    assert proc.returncode == 130, stderr
    assert stderr.startswith("interrupted: ")
    assert f"row(s) of {source} were written to test.cut" in stderr
