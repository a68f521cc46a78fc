"""``aerospike-fluent query``: a table in the terminal, CSV / JSON lines / Parquet files equal
to ``to_arrow()``, and clear failures for a bad filter or an unknown namespace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pa_csv  # type: ignore[import-untyped, unused-ignore]
import pyarrow.json as pa_json  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
import pytest

import aerospike_fluent as af

from ._cli import cli

ROWS = 40


@pytest.fixture
def people(sdb: af.SyncClient, set_name: str) -> str:
    records = sdb.namespace("test").set(set_name)
    table = pa.table(
        {
            "id": list(range(ROWS)),
            "name": [f"person {i}" for i in range(ROWS)],
            "age": [i * 2 for i in range(ROWS)],
            "score": [i / 4 for i in range(ROWS)],
        }
    )
    records.put_arrow(table, key="id", send_key=True).raise_on_error()
    return f"test.{set_name}"


def _expected(sdb: af.SyncClient, target: str, **options: Any) -> pa.Table:
    ns, set_name = target.split(".")
    data = sdb.namespace(ns).set(set_name).query().to_arrow(key="id", **options)
    return pa.table(data).sort_by("id")


def test_a_terminal_query_prints_a_table_of_the_records(seeds: str, people: str) -> None:
    done = cli(seeds, "query", people, "--where", "$.age >= 70", "--key", "id")
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if "name" in line)
    assert [c.strip() for c in header.strip("┃ ").split("┃")] == ["id", "name", "age", "score"]
    assert "person 39" in done.stdout and "person 35" in done.stdout
    assert "person 34" not in done.stdout
    assert "5 record(s)" in done.stderr


def test_a_terminal_table_stops_at_a_thousand_rows_without_a_limit(
    seeds: str, sdb: af.SyncClient, set_name: str
) -> None:
    rows = pa.table({"id": list(range(1200)), "v": list(range(1200))})
    sdb.namespace("test").set(set_name).put_arrow(rows, key="id").raise_on_error()
    done = cli(seeds, "query", f"test.{set_name}")
    assert done.returncode == 0, done.stderr
    assert sum(1 for line in done.stdout.splitlines() if line.startswith("│")) == 1000
    assert "1,000 record(s): the first 1,000; --limit N for more" in done.stderr
    more = cli(seeds, "query", f"test.{set_name}", "--limit", "1100")
    assert sum(1 for line in more.stdout.splitlines() if line.startswith("│")) == 1100
    assert more.stderr.strip() == "1,100 record(s)"


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
def test_a_file_holds_what_to_arrow_returns(
    seeds: str, people: str, sdb: af.SyncClient, tmp_path: Path, suffix: str
) -> None:
    out = tmp_path / f"people.{suffix}"
    done = cli(seeds, "query", people, "--key", "id", "--output", str(out), "--batch-rows", "7")
    assert done.returncode == 0, done.stderr
    assert f"{ROWS} record(s) written to {out}" in done.stderr
    expected = _expected(sdb, people)
    if suffix == "csv":
        got = pa_csv.read_csv(out)
    elif suffix == "jsonl":
        got = pa_json.read_json(out)
    else:
        got = pq.read_table(out)
    assert got.sort_by("id").equals(expected)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


def test_csv_goes_to_stdout_without_an_output_file(
    seeds: str, people: str, sdb: af.SyncClient
) -> None:
    done = cli(
        seeds,
        "query",
        people,
        "--format",
        "csv",
        "--key",
        "id",
        "--bins",
        "name,age",
        "--where",
        "$.age < 10",
    )
    assert done.returncode == 0, done.stderr
    got = pa_csv.read_csv(pa.py_buffer(done.stdout.encode())).sort_by("id")
    assert got.column_names == ["id", "name", "age"]
    assert got.column("id").to_pylist() == [0, 1, 2, 3, 4]
    assert got.column("name").to_pylist() == [f"person {i}" for i in range(5)]


def test_limit_and_metadata_columns(seeds: str, people: str) -> None:
    done = cli(seeds, "query", people, "--format", "jsonl", "--limit", "3", "--meta")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 3
    assert all(r["generation"] == 1 and r["ttl"] is None for r in rows)
    assert all(set(r) == {"generation", "ttl", "name", "age", "score"} for r in rows)


def test_nested_values_and_bytes_become_json_text_in_csv(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    records = sdb.namespace("test").set(set_name)
    records.key(1).put({"tags": ["a", "b"], "prefs": {"lang": "fr"}, "blob": b"\x00\xff"})
    out = tmp_path / "nested.csv"
    done = cli(seeds, "query", f"test.{set_name}", "-o", str(out))
    assert done.returncode == 0, done.stderr
    row = pa_csv.read_csv(out).to_pylist()[0]
    assert json.loads(row["tags"]) == ["a", "b"]
    assert json.loads(row["prefs"]) == {"lang": "fr"}
    assert row["blob"] == "AP8="


def test_a_bin_of_several_types_needs_mixed_types(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    records = sdb.namespace("test").set(set_name)
    for i in range(10):
        records.key(i).put({"v": i if i % 2 else f"text {i}"})
    out = tmp_path / "mixed.parquet"
    done = cli(seeds, "query", f"test.{set_name}", "-o", str(out), "--batch-rows", "100")
    assert done.returncode == 1
    assert "bin 'v' holds both" in done.stderr and "--mixed-types makes" in done.stderr
    assert list(tmp_path.iterdir()) == []
    done = cli(seeds, "query", f"test.{set_name}", "-o", str(out), "--mixed-types")
    assert done.returncode == 0, done.stderr
    assert sorted(pq.read_table(out).column("v").to_pylist()) == sorted(
        str(i) if i % 2 else f"text {i}" for i in range(10)
    )


def test_no_records_is_success_with_an_empty_file(
    seeds: str, set_name: str, tmp_path: Path
) -> None:
    out = tmp_path / "none.parquet"
    done = cli(seeds, "query", f"test.{set_name}", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out).num_rows == 0
    shown = cli(seeds, "query", f"test.{set_name}")
    assert shown.returncode == 0 and shown.stdout == ""
    assert "no records" in shown.stderr


def test_a_bad_filter_fails_naming_it(seeds: str, people: str) -> None:
    done = cli(seeds, "query", people, "--where", "$.age >>> 3")
    assert done.returncode == 1
    assert "bad --where filter '$.age >>> 3'" in done.stderr
    assert done.stdout == ""


def test_an_unknown_namespace_fails_naming_the_served_ones(seeds: str, tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    done = cli(seeds, "query", "no_such_ns.users", "-o", str(out))
    assert done.returncode == 1
    assert "unknown namespace 'no_such_ns'" in done.stderr and "test" in done.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--format", "parquet"], 1, "parquet is written to a file"),
        (["-o", "x.txt"], 1, "cannot tell the format of 'x.txt'"),
        (["--format", "table", "-o", "x.csv"], 1, "a table is for the terminal"),
        (["--limit", "0"], 2, "Invalid value for '--limit'"),
        (["--format", "xml"], 2, "Invalid value for '--format'"),
    ],
)
def test_bad_output_options_fail_before_reading(
    seeds: str, people: str, args: list[str], code: int, message: str
) -> None:
    done = cli(seeds, "query", people, *args)
    assert done.returncode == code
    assert message in done.stderr
    assert done.stdout == ""
