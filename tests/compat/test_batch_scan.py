"""Batch, scan, query, index, truncate and info commands of the official client."""

from __future__ import annotations

import time
from typing import Any

import pytest
from aerospike import exception as ex
from aerospike import predicates as p
from aerospike_helpers import expressions as xp  # type: ignore[import-untyped]
from aerospike_helpers.batch import records as br  # type: ignore[import-untyped]
from aerospike_helpers.operations import operations as op  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat


def seed(client: Any, set_name: str, n: int) -> None:
    for i in range(n):
        client.put(("test", set_name, i), {"i": i, "g": f"g{i % 3}"})


def test_batch_read_write_operate_remove(client: Any, set_name: str) -> None:
    seed(client, set_name, 5)
    keys = [("test", set_name, i) for i in range(6)]
    res = client.batch_read(keys).batch_records
    assert [r.result for r in res] == [0, 0, 0, 0, 0, 2]
    assert res[3].record[2] == {"i": 3, "g": "g0"}

    writes = br.BatchRecords(
        [
            br.Write(("test", set_name, 10), [op.write("i", 10)]),
            br.Read(("test", set_name, 1), [op.read("i")]),
            br.Remove(("test", set_name, 2)),
        ]
    )
    client.batch_write(writes)
    assert [r.result for r in writes.batch_records] == [0, 0, 0]
    assert writes.batch_records[1].record[2] == {"i": 1}

    ops = client.batch_operate(
        [("test", set_name, 0), ("test", set_name, 1)], [op.increment("i", 100), op.read("i")]
    )
    assert sorted(r.record[2]["i"] for r in ops.batch_records) == [100, 101]

    removed = client.batch_remove([("test", set_name, 0), ("test", set_name, 99)])
    assert [r.result for r in removed.batch_records] == [0, 2]


def test_scan_projection_and_partitions(client: Any, set_name: str) -> None:
    seed(client, set_name, 40)
    scan = client.scan("test", set_name)
    scan.select("i")
    results = scan.results()
    assert sorted(r[2]["i"] for r in results) == list(range(40))
    assert all(set(r[2]) == {"i"} for r in results)

    # Partition pagination: max_records pages resumed until done, every record once.
    query = client.query("test", set_name)
    query.paginate()
    query.max_records = 15
    seen: list[int] = []
    for _ in range(20):
        page = query.results()
        seen.extend(r[2]["i"] for r in page)
        assert len(page) <= 15
        if query.is_done():
            break
    assert sorted(seen) == list(range(40))

    half = client.query("test", set_name).results(
        policy={"partition_filter": {"begin": 0, "count": 2048}}
    )
    other = client.query("test", set_name).results(
        policy={"partition_filter": {"begin": 2048, "count": 2048}}
    )
    assert len(half) + len(other) == 40


def test_query_with_secondary_index(client: Any, set_name: str) -> None:
    seed(client, set_name, 30)
    client.index_integer_create("test", set_name, "i", set_name + "_i")
    client.index_string_create("test", set_name, "g", set_name + "_g")
    try:
        q = client.query("test", set_name)
        q.where(p.between("i", 5, 9))
        assert sorted(r[2]["i"] for r in q.results()) == [5, 6, 7, 8, 9]
        q = client.query("test", set_name)
        q.select("i")
        q.where(p.equals("g", "g1"))
        got = q.results()
        assert len(got) == 10
        assert all(r[2]["i"] % 3 == 1 for r in got)
        client.index_integer_create("test", set_name, "i", set_name + "_i")  # same: a no-op
        with pytest.raises(ex.IndexFoundError):
            client.index_integer_create("test", set_name, "g", set_name + "_i")
    finally:
        client.index_remove("test", set_name + "_i")
        client.index_remove("test", set_name + "_g")


def test_truncate(client: Any, set_name: str) -> None:
    seed(client, set_name, 10)
    client.put(("test", set_name + "_keep", 1), {"a": 1})
    time.sleep(0.002)  # truncating to now keeps what was written in the current millisecond
    client.truncate("test", set_name, 0)
    assert client.scan("test", set_name).results() == []
    assert len(client.scan("test", set_name + "_keep").results()) == 1


def test_info_all(client: Any) -> None:
    answers = client.info_all("namespaces")
    assert len(answers) == len(client.get_nodes())  # one answer per node
    for err, text in answers.values():
        assert err is None
        assert "test" in text.split("\t")[-1].strip().split(";")
    build = next(iter(client.info_all("build").values()))[1]
    assert build.strip().split("\t")[-1].startswith("8.")


def test_a_scan_naming_bins_skips_records_with_none_of_them(client: Any, set_name: str) -> None:
    for i in range(6):
        client.put(("test", set_name, i), {"name": f"n{i}", "age": i} if i else {"age": 0})
    scan = client.scan("test", set_name)
    scan.select("name")
    named = [bins for _, _, bins in scan.results()]
    assert sorted(b["name"] for b in named) == [f"n{i}" for i in range(1, 6)]
    everything = client.scan("test", set_name).results()
    assert len(everything) == 6
    index = f"{set_name}_age"
    client.index_integer_create("test", set_name, "age", index)
    try:
        for _ in range(50):
            try:
                q = client.query("test", set_name)
                q.select("name")
                q.where(p.between("age", 0, 10))
                got = q.results()
                break
            except ex.IndexNotFound:
                time.sleep(0.1)
        assert sorted(bins["name"] for _, _, bins in got) == [f"n{i}" for i in range(1, 6)]
    finally:
        client.index_remove("test", index)


def test_a_scan_with_a_mistyped_filter_is_refused_before_any_record(
    client: Any, set_name: str
) -> None:
    mistyped = {"expressions": xp.Eq(xp.IntBin("age"), "text").compile()}
    for name in (set_name, f"{set_name}_empty"):
        with pytest.raises(ex.InvalidRequest):
            client.scan("test", name).results(policy=mistyped)
    client.put(("test", set_name, 1), {"age": 1})
    with pytest.raises(ex.InvalidRequest):
        client.query("test", set_name).results(policy=mistyped)
