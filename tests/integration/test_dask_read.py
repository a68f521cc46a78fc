"""``af.dask.read_set``: a set read by Dask worker processes, one task per partition range.

The cluster is a ``LocalCluster`` of worker processes; each task connects its own client to
the session's server over TCP (the embedded one, or ``AEROSPIKE_HOST``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest
from dask.distributed import Client, LocalCluster, get_task_stream

import aerospike_fluent as af
import aerospike_fluent.dask as afd
from aerospike_fluent import F, errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent._exec import Sync

from .conftest import RUN

N = 3000
SET = f"dask_{RUN}"


@pytest.fixture(scope="module")
def seeds(server_address: tuple[str, int]) -> str:
    host, port = server_address
    return f"{host}:{port}"


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Client]:
    with (
        LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,  # type: ignore[no-untyped-call]
    ):
        yield client


@pytest.fixture(scope="module")
def records(seeds: str) -> Iterator[af.RecordSet[Sync]]:
    rows = {
        i: {"n": i, "group": i % 7, "name": f"r{i}", "score": i / 4}
        | ({"extra": [i, i + 1]} if i % 10 == 0 else {})
        for i in range(N)
    }
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(SET)
        s.put_many(rows, send_key=True).raise_on_error()
        yield s


def rows_by_key(table: Any) -> list[dict[str, Any]]:
    return sorted(table.to_pylist(), key=lambda r: r["key"])


def computed(ddf: Any) -> Any:
    """The Dask result as a pyarrow table (its dtypes are Arrow-backed)."""
    return pa.Table.from_pandas(ddf.compute(), preserve_index=False)


def test_the_parts_are_the_one_process_read(
    dask_client: Client, seeds: str, records: af.RecordSet[Sync]
) -> None:
    ddf = afd.read_set(seeds, "test", SET, partitions=4, key=True)
    assert ddf.npartitions == 4
    with get_task_stream(dask_client) as ts:
        got = computed(ddf)
    ran = [t for t in ts.data if "aerospike-read" in str(t["key"])]
    assert len(ran) == 4
    assert {t["worker"] for t in ran} <= set(dask_client.scheduler_info()["workers"])

    expected = records.query().to_arrow(key=True).to_pyarrow()
    assert got.num_rows == N
    assert sorted(got.column("key").to_pylist()) == list(range(N))  # each record once
    assert {f.name: f.type for f in got.schema} == {f.name: f.type for f in expected.schema}
    assert rows_by_key(got) == rows_by_key(expected)


def test_each_task_reads_its_range(seeds: str, records: af.RecordSet[Sync]) -> None:
    ddf: Any = afd.read_set(seeds, "test", SET, partitions=3, bins=["n"])
    sizes = ddf.map_partitions(len).compute().tolist()
    assert sizes == [records.query().partitions(b, c).count() for b, c in af.partition_ranges(3)]


@pytest.mark.parametrize("where", [F.bin("group") == 3, "$.group == 3"], ids=["exp", "ael"])
def test_where_filters_on_the_servers(
    dask_client: Client, seeds: str, records: af.RecordSet[Sync], where: Any
) -> None:
    got = computed(afd.read_set(seeds, "test", SET, partitions=3, where=where, key=True))
    assert sorted(got.column("key").to_pylist()) == [i for i in range(N) if i % 7 == 3]
    assert set(got.column("group").to_pylist()) == {3}


def test_bins_selects_columns(dask_client: Client, seeds: str, records: af.RecordSet[Sync]) -> None:
    ddf: Any = afd.read_set(seeds, "test", SET, partitions=2, bins=["name", "n"])
    assert list(ddf.columns) == ["name", "n"]
    df = ddf.compute()
    assert sorted(df["n"].tolist()) == list(range(N))
    assert set(df["name"]) == {f"r{i}" for i in range(N)}


def test_a_schema_fixes_the_columns(
    dask_client: Client, seeds: str, records: af.RecordSet[Sync]
) -> None:
    schema = pa.schema([("n", pa.int32()), ("score", pa.float64())])
    ddf = afd.read_set(seeds, "test", SET, partitions=2, schema=schema)
    got = computed(ddf)
    assert got.schema.names == ["n", "score"]
    assert got.schema.field("n").type == pa.int32()
    assert sorted(got.column("n").to_pylist()) == list(range(N))


@pytest.mark.parametrize("n", [0, 5000])
def test_partitions_out_of_range(seeds: str, n: int) -> None:
    with pytest.raises(errors.InvalidArgumentError, match=f"partition ranges {n} "):
        afd.read_set(seeds, "test", SET, partitions=n)


def test_partitions_not_an_int(seeds: str) -> None:
    with pytest.raises(errors.InvalidTypeError, match="partition ranges must be int"):
        afd.read_set(seeds, "test", SET, partitions=2.5)  # type: ignore[arg-type]


def test_an_unknown_namespace_is_named_before_any_task(dask_client: Client, seeds: str) -> None:
    with (
        get_task_stream(dask_client) as ts,
        pytest.raises(errors.NamespaceNotFoundError, match="nosuch"),
    ):
        afd.read_set(seeds, "nosuch", SET, partitions=4)
    assert ts.data == []


def test_bad_filter_and_seeds_refused(seeds: str) -> None:
    with pytest.raises(errors.AelSyntaxError):
        afd.read_set(seeds, "test", SET, where="$.group ==")
    with pytest.raises(errors.InvalidTypeError, match="where="):
        afd.read_set(seeds, "test", SET, where=3)  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidArgumentError, match="embedded:// would start one per"):
        afd.read_set("embedded://", "test", SET)


def test_options_that_do_not_pickle_are_refused(seeds: str) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="total_timeout= does not pickle"):
        afd.read_set(seeds, "test", SET, total_timeout=lambda: 1)


def test_af_dask_loads_on_first_use() -> None:
    assert af.dask is afd


def test_meta_names_the_columns(
    dask_client: Client, seeds: str, records: af.RecordSet[Sync]
) -> None:
    import pandas as pd

    meta = pd.DataFrame(
        {"n": pd.Series([], dtype="int64"), "score": pd.Series([], dtype="float64")}
    )
    got = computed(afd.read_set(seeds, "test", SET, partitions=2, bins=["n", "score"], meta=meta))
    assert got.schema.names == ["n", "score"]
    assert sorted(got.column("n").to_pylist()) == list(range(N))


def test_a_range_is_brought_to_the_sample_columns() -> None:
    schema = pa.schema([("a", pa.float64()), ("b", pa.string())])
    t = afd.conform(pa.table({"a": [1, 2]}), schema, (0, 10))
    assert t.schema == schema
    assert t.to_pylist() == [{"a": 1.0, "b": None}, {"a": 2.0, "b": None}]


def test_a_bin_the_sample_did_not_show_is_named() -> None:
    schema = pa.schema([("a", pa.int64())])
    with pytest.raises(errors.ArrowSchemaError, match=r"'c' in partitions 5-14 .*schema="):
        afd.conform(pa.table({"a": [1], "c": [2]}), schema, (5, 10))
    with pytest.raises(errors.ArrowSchemaError, match="bin 'a' in partitions 0-9: string"):
        afd.conform(pa.table({"a": ["x"]}), schema, (0, 10))
