"""``aerospike-fluent get / put / delete``: one record, printed with its metadata."""

from __future__ import annotations

import json

import aerospike_fluent as af

from ._cli import cli


def test_put_writes_json_values_and_prints_the_record(
    seeds: str, sdb: af.SyncClient, set_name: str
) -> None:
    done = cli(
        seeds,
        "put",
        f"test.{set_name}",
        "7",
        "name=Ann",
        "age=42",
        'tags=["a",1]',
        "ratio=0.5",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown == {
        "namespace": "test",
        "set": set_name,
        "key": 7,
        "generation": 1,
        "ttl": None,
        "bins": {"name": "Ann", "age": 42, "tags": ["a", 1], "ratio": 0.5},
    }
    record = sdb.namespace("test").set(set_name).key(7).get()
    assert record is not None and record.bins == shown["bins"]


def test_get_prints_the_bins_and_metadata(seeds: str, sdb: af.SyncClient, set_name: str) -> None:
    sdb.namespace("test").set(set_name).key("ann").put(
        {"name": "Ann", "blob": b"\x01\x02"}, ttl=5000
    )
    done = cli(seeds, "get", f"test.{set_name}", "ann")
    assert done.returncode == 0, done.stderr
    rows = {
        c[0]: c[1]
        for line in done.stdout.splitlines()
        if line.startswith("│")
        for c in [[x.strip() for x in line.strip("│").split("│")]]
    }
    assert rows == {"name": "Ann", "blob": "0x0102"}
    assert "generation 1, ttl " in done.stdout
    ttl = int(done.stdout.split("ttl ")[1].split(" s")[0].replace(",", ""))
    assert 0 < ttl <= 5000


def test_key_types(seeds: str, sdb: af.SyncClient, set_name: str) -> None:
    records = sdb.namespace("test").set(set_name)
    records.key("12").put({"kind": "str"})
    records.key(12).put({"kind": "int"})
    records.key(b"\x0c").put({"kind": "bytes"})
    for args, kind in ([[], "int"], [["--key-type", "str"], "str"], [["--key-type", "int"], "int"]):
        done = cli(seeds, "get", f"test.{set_name}", "12", "--json", *args)
        assert json.loads(done.stdout)["bins"]["kind"] == kind
    done = cli(seeds, "get", f"test.{set_name}", "0c", "--json", "--key-type", "bytes")
    assert json.loads(done.stdout)["bins"]["kind"] == "bytes"
    bad = cli(seeds, "get", f"test.{set_name}", "zz", "--key-type", "int")
    assert bad.returncode == 1 and "key 'zz' is not an integer" in bad.stderr


def test_delete_removes_the_record_and_says_so(
    seeds: str, sdb: af.SyncClient, set_name: str
) -> None:
    records = sdb.namespace("test").set(set_name)
    records.key(1).put({"a": 1})
    done = cli(seeds, "delete", f"test.{set_name}", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"deleted 1 from test.{set_name}"
    assert records.key(1).get() is None
    again = cli(seeds, "delete", f"test.{set_name}", "1")
    assert again.returncode == 1 and "no record 1" in again.stderr


def test_a_missing_record_exits_1(seeds: str, set_name: str) -> None:
    done = cli(seeds, "get", f"test.{set_name}", "nobody")
    assert done.returncode == 1
    assert done.stdout == "" and f"no record 'nobody' in test.{set_name}" in done.stderr


def test_bad_input_is_refused_before_writing(seeds: str, sdb: af.SyncClient, set_name: str) -> None:
    for args, message in (
        (["put", f"test.{set_name}", "1", "novalue"], "'novalue' is not BIN=VALUE"),
        (["put", f"test.{set_name}", "1"], "give at least one BIN=VALUE"),
        (["put", "nope.s", "1", "a=1"], "unknown namespace 'nope'"),
        (["get", "test.", "1"], "is not NS or NS.SET"),
        (["get", ".users", "1"], "is not NS or NS.SET"),
    ):
        done = cli(seeds, *args)
        assert done.returncode == 1, args
        assert message in done.stderr
    assert sdb.namespace("test").set(set_name).key(1).get() is None
