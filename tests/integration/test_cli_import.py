"""``aerospike-fluent import``: CSV, JSON lines and Parquet files through ``put_arrow``, the
summary of rows written and refused, ``--dry-run``, and the round trip back out with ``query``."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pa_csv  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
import pytest

import aerospike_fluent as af

from ._cli import cli

SOURCE = pa.table(
    {
        "id": pa.array(range(1, 201), pa.int64()),
        "name": [f"user {i}" for i in range(1, 201)],
        "age": pa.array([i % 90 for i in range(1, 201)], pa.int64()),
        "score": [i * 0.5 for i in range(1, 201)],
        "tags": [[f"t{i % 3}", "x"] for i in range(1, 201)],
    }
)


def _write(path: Path, table: pa.Table) -> None:
    if path.suffix == ".csv":
        pa_csv.write_csv(table, path)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in table.to_pylist()))
    else:
        pq.write_table(table, path)


def test_import_then_query_parquet_gives_the_source_back(
    seeds: str, set_name: str, tmp_path: Path
) -> None:
    source, back = tmp_path / "users.parquet", tmp_path / "back.parquet"
    pq.write_table(SOURCE, source)
    done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"200 row(s) of {source} written to test.{set_name}; 0 refused"
    ]
    out = cli(seeds, "query", f"test.{set_name}", "--key", "id", "-o", str(back))
    assert out.returncode == 0, out.stderr
    assert pq.read_table(back).sort_by("id").equals(SOURCE)


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_text_files_become_records(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path, suffix: str
) -> None:
    flat = SOURCE.drop_columns(["tags"])
    source = tmp_path / f"users.{suffix}"
    _write(source, flat)
    done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id")
    assert done.returncode == 0, done.stderr
    records = sdb.namespace("test").set(set_name)
    assert records.query().count() == 200
    record = records.key(7).get()
    assert record is not None
    assert record.bins == {"name": "user 7", "age": 7, "score": 3.5}


def test_dates_and_times_in_csv_keep_their_text(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "days.csv"
    source.write_text("id,day,at,t\n1,2024-01-02,2024-01-02T03:04:05,10:11:12\n")
    done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id")
    assert done.returncode == 0, done.stderr
    record = sdb.namespace("test").set(set_name).key(1).get()
    assert record is not None
    assert record.bins == {"day": "2024-01-02", "at": "2024-01-02T03:04:05", "t": "10:11:12"}


def test_dates_and_times_in_json_lines_keep_their_text(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "days.jsonl"
    row = {"id": 1, "at": "2024-01-02T03:04:05", "seen": {"on": "2024-01-02"}, "n": 3}
    source.write_text(json.dumps(row) + "\n")
    done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id")
    assert done.returncode == 0, done.stderr
    record = sdb.namespace("test").set(set_name).key(1).get()
    assert record is not None
    assert record.bins == {"at": "2024-01-02T03:04:05", "seen": {"on": "2024-01-02"}, "n": 3}


def test_a_dry_run_reads_every_row_and_writes_none(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "users.parquet"
    pq.write_table(SOURCE, source)
    done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "dry run: 200 row(s)" in done.stdout
    assert "bins name, age, score, tags" in done.stdout
    assert sdb.namespace("test").set(set_name).query().count() == 0


def test_refused_rows_are_counted_with_their_first_reasons(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    records = sdb.namespace("test").set(set_name)
    for i in (3, 4, 5, 6, 7, 8, 9):
        records.key(i).put({"name": "already here"})
    source = tmp_path / "users.csv"
    _write(source, SOURCE.drop_columns(["tags"]).slice(0, 20))
    done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id", "--mode", "insert")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == f"13 row(s) of {source} written to test.{set_name}; 7 refused"
    assert len([line for line in lines if "RecordExistsError" in line]) == 5
    assert lines[-1] == "  ... and 2 more"
    assert records.key(3).get()["name"] == "already here"  # type: ignore[index]
    assert records.key(10).get()["name"] == "user 10"  # type: ignore[index]


def test_an_unreadable_file_fails_naming_it(seeds: str, set_name: str, tmp_path: Path) -> None:
    missing = tmp_path / "missing.csv"
    done = cli(seeds, "import", f"test.{set_name}", str(missing), "--key", "id")
    assert done.returncode == 1
    assert f"cannot read {missing} as csv" in done.stderr
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"not parquet at all")
    done = cli(seeds, "import", f"test.{set_name}", str(garbage), "--key", "id")
    assert done.returncode == 1
    assert f"cannot read {garbage} as parquet" in done.stderr


def test_a_wrong_key_column_fails_naming_the_columns(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "users.parquet"
    pq.write_table(SOURCE, source)
    done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "user_id")
    assert done.returncode == 1
    assert "no column 'user_id'" in done.stderr and "id, name, age, score, tags" in done.stderr
    assert sdb.namespace("test").set(set_name).query().count() == 0


def test_a_null_key_stops_the_import_saying_where(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "holes.csv"
    source.write_text("id,name\n1,a\n,b\n")
    dry = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id", "--dry-run")
    assert dry.returncode == 1
    assert "key column 'id' is null at row 1" in dry.stderr
    assert sdb.namespace("test").set(set_name).query().count() == 0
    done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id")
    assert done.returncode == 1
    assert "key column 'id' is null at row 1" in done.stderr


def test_a_column_that_cannot_be_a_bin_is_refused_before_writing(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "long.csv"
    source.write_text("id,a_name_longer_than_fifteen\n1,a\n")
    for extra in ([], ["--dry-run"]):
        done = cli(seeds, "import", f"test.{set_name}", str(source), "--key", "id", *extra)
        assert done.returncode == 1
        assert "column 'a_name_longer_than_fifteen' cannot be a bin" in done.stderr
    assert sdb.namespace("test").set(set_name).query().count() == 0


def test_a_set_is_required(seeds: str, tmp_path: Path) -> None:
    source = tmp_path / "users.parquet"
    pq.write_table(SOURCE, source)
    done = cli(seeds, "import", "test", str(source), "--key", "id")
    assert done.returncode == 1
    assert "'test' names no set" in done.stderr
