"""The command line's file output: complete, interrupted, failed; and values as JSON text."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import click
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pa_csv  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
import pytest

from aerospike_fluent.cli import files
from aerospike_fluent.cli.files import Output, as_text, format_of
from aerospike_fluent.cli.output import cell, plain
from aerospike_fluent.cli.targets import Target, target, user_key

ROWS = pa.table({"id": [1, 2], "name": ["a", "b"]})


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_a_file_appears_only_when_complete(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"out.{fmt}"
    output = Output(fmt, str(path))
    output.write(ROWS)
    assert [p.name for p in tmp_path.iterdir()] == [f".out.{fmt}.partial"]
    output.finish()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    assert output.rows == 2


def test_an_interrupt_before_any_row_leaves_no_file(tmp_path: Path) -> None:
    output = Output("parquet", str(tmp_path / "out.parquet"))
    assert output.interrupted() is False
    assert list(tmp_path.iterdir()) == []


def test_an_interrupt_keeps_the_rows_written_in_a_valid_file(tmp_path: Path) -> None:
    path = tmp_path / "out.parquet"
    output = Output("parquet", str(path))
    output.write(ROWS)
    output.write(ROWS)
    assert output.interrupted() is True
    assert pq.read_table(path).num_rows == 4
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_ctrl_c_during_a_write_comes_once_the_rows_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "out.jsonl"
    output = Output("jsonl", str(path))
    write = files._JsonLines.write

    def write_then_press_ctrl_c(self: files._JsonLines, table: pa.Table) -> None:
        write(self, table)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(files._JsonLines, "write", write_then_press_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        output.write(ROWS)
    assert output.rows == 2
    assert output.interrupted() is True
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == [1, 2]


def test_a_failed_query_leaves_no_file(tmp_path: Path) -> None:
    output = Output("csv", str(tmp_path / "out.csv"))
    output.write(ROWS)
    output.abandon()
    assert list(tmp_path.iterdir()) == []


def test_no_rows_make_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "out.parquet"
    Output("parquet", str(path)).finish()
    assert pq.read_table(path).num_rows == 0


def test_nested_and_binary_columns_become_text_for_csv(tmp_path: Path) -> None:
    table = pa.table(
        {
            "tags": pa.array([["x", "y"], None]),
            "m": pa.array([[("k", 1)], []], pa.map_(pa.string(), pa.int64())),
            "b": pa.array([b"\x00\x01", b""]),
            "n": [1, 2],
        }
    )
    text = as_text(table)
    assert text.to_pylist() == [
        {"tags": '["x", "y"]', "m": '{"k": 1}', "b": "AAE=", "n": 1},
        {"tags": None, "m": "{}", "b": "", "n": 2},
    ]
    path = tmp_path / "nested.csv"
    output = Output("csv", str(path))
    output.write(table)
    output.finish()
    assert json.loads(pa_csv.read_csv(path).column("tags")[0].as_py()) == ["x", "y"]


def test_values_as_json_and_cells() -> None:
    assert plain({1: b"\xff", "l": (1, None)}) == {"1": "/w==", "l": [1, None]}
    assert cell(b"\x01\xab") == "0x01ab"
    assert cell({"a": [1]}) == '{"a": [1]}'
    assert cell("x" * 100, width=10) == "x" * 9 + "…"
    assert cell(None) == ""


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("a.CSV", "csv"), ("a.ndjson", "jsonl"), ("a.jsonl", "jsonl"), ("a.pq", "parquet")],
)
def test_the_suffix_tells_the_format(name: str, fmt: str) -> None:
    assert format_of(name) == fmt


def test_names_and_keys_typed_on_the_command_line() -> None:
    assert target("test") == Target("test", None)
    assert target("test.users.2024") == Target("test", "users.2024")
    assert str(target("test.users")) == "test.users"
    with pytest.raises(click.ClickException, match="names no set"):
        target("test", need_set=True)
    with pytest.raises(click.ClickException, match=r"not NS or NS\.SET"):
        target(".users")
    assert user_key("42", "auto") == 42
    assert user_key("-7", "auto") == -7
    assert user_key("4x", "auto") == "4x"
    assert user_key("42", "str") == "42"
    assert user_key("0x0aff", "bytes") == b"\x0a\xff"
    with pytest.raises(click.ClickException, match="not hex bytes"):
        user_key("zz", "bytes")
