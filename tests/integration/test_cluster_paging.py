"""Paging, resume tokens, streams, indexes and background queries on a 3-node embedded cluster
(replication factor 2): every record exactly once, across nodes and across the loss of a node
mid-scan.

The single-node tests are collected here again with ``seeds`` pointing at the cluster.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest

import aerospike_fluent as af
from aerospike_fluent import _native as n
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

from ._flavor import Flavor
from .test_aggregate import (
    test_an_index_filter_selects_the_records_streamed,
    test_count_and_sum_reduce_over_every_node,
    test_group_by_over_an_index_range,
)
from .test_arrow import (
    test_a_whole_table_widens_to_what_later_batches_hold,
    test_missing_bins_are_nulls_and_ints_among_floats_are_floats,
)
from .test_background import (
    test_a_background_udf_runs_on_each_record,
    test_a_udf_that_is_not_registered_fails_its_task_naming_the_module,
    test_background_operations_reach_every_selected_record,
)
from .test_fluent_query import (
    test_pages_resume,
    test_stream_close_early,
    test_stream_collect_count_first,
)
from .test_indexes import (
    test_a_context_index_queries_the_value_at_a_path,
    test_an_expression_index,
    test_geo_within_and_contains,
)
from .test_resume import (
    N,
    loaded,
    test_a_finished_stream_gives_a_token_that_resumes_to_nothing,
    test_a_stream_broken_off_resumes_after_what_it_returned,
    test_an_index_stream_broken_off_resumes_after_what_it_returned,
    test_index_query_pages_yield_every_record_once,
    test_pages_of_any_size_yield_every_record_once,
)

__all__ = [
    "loaded",
    "test_a_background_udf_runs_on_each_record",
    "test_a_context_index_queries_the_value_at_a_path",
    "test_a_finished_stream_gives_a_token_that_resumes_to_nothing",
    "test_a_stream_broken_off_resumes_after_what_it_returned",
    "test_a_udf_that_is_not_registered_fails_its_task_naming_the_module",
    "test_a_whole_table_widens_to_what_later_batches_hold",
    "test_an_expression_index",
    "test_an_index_filter_selects_the_records_streamed",
    "test_an_index_stream_broken_off_resumes_after_what_it_returned",
    "test_background_operations_reach_every_selected_record",
    "test_count_and_sum_reduce_over_every_node",
    "test_geo_within_and_contains",
    "test_group_by_over_an_index_range",
    "test_index_query_pages_yield_every_record_once",
    "test_missing_bins_are_nulls_and_ints_among_floats_are_floats",
    "test_pages_of_any_size_yield_every_record_once",
    "test_pages_resume",
    "test_stream_close_early",
    "test_stream_collect_count_first",
]


@pytest.fixture(scope="module")
def cluster() -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(nodes=3, replication_factor=2) as c:
        yield c


@pytest.fixture
def seeds(cluster: EmbeddedCluster) -> str:
    return cluster.seeds


def test_records_are_spread_over_every_node(seeds: str, loaded: str) -> None:
    with af_sync.connect(seeds) as db:
        assert len(db.node_names()) == 3
        assert db.namespace("test").set(loaded).query().count() == N


def _drain(
    db: af.Client[af.Sync], set_name: str, token: bytes | None, chunk: int, indexed: bool = False
) -> tuple[list[int], bytes | None]:
    """Records of a stream from `token` until it ends or fails; the token after a failure."""
    s = db.namespace("test").set(set_name)
    q = s.query().chunk_size(chunk)
    if indexed:
        q = q.where_index("v").between(-N, N)
    got: list[int] = []
    with (q.resume(token) if token else q).stream() as stream:
        try:
            for r in stream:
                got.append(r["i"])
        except errors.AerospikeError:
            return got, stream.resume_token()
    return got, None


@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize("keep_data", [False, True])
def test_a_node_lost_mid_read_skips_nothing(
    aerospike_cluster: EmbeddedCluster, set_name: str, keep_data: bool, indexed: bool
) -> None:
    # A scan, or an index query (continued after the (bval, digest) of each partition's last
    # record delivered).
    c = aerospike_cluster
    with af_sync.connect(c.seeds) as db:
        s = db.namespace("test").set(set_name)
        s.put_many({i: {"i": i, "v": (i * 37) % N - N // 2} for i in range(N)}).raise_on_error()
        q = s.query().chunk_size(16)
        if indexed:
            s.create_index("v", "numeric", name=f"{set_name}_v")
            q = q.where_index("v").between(-N, N)
        seen: list[int] = []
        with q.stream() as stream:
            for r in stream:
                seen.append(r["i"])
                if len(seen) == 100:
                    c.nodes[1].kill(keep_data=keep_data)
            token: bytes | None = stream.resume_token() if len(seen) < N else None
        rounds = 0
        while token is not None and rounds < 20:
            rounds += 1
            got, token = _drain(db, set_name, token, 16, indexed)
            seen += got
        assert sorted(seen) == list(range(N))


@pytest.mark.anyio
async def test_streams_and_pages_see_a_node_added_and_removed(
    aerospike_cluster: EmbeddedCluster, set_name: str, anyio_backend: str
) -> None:
    c = aerospike_cluster
    async with af.connect(c.seeds) as db:
        s = db.namespace("test").set(set_name)
        (await s.put_many({i: {"i": i} for i in range(300)})).raise_on_error()
        page = await s.query().page(100)
        seen = [r["i"] for r in page]
        c.add_node()
        c.nodes[0].remove()
        while page.token is not None:
            page = await s.query().resume(page.token).page(100)
            seen += [r["i"] for r in page]
        assert sorted(seen) == list(range(300))
        assert [n.status for n in c.nodes] == ["removed", "up", "up", "up"]


async def test_cluster_flavors_write_and_read_through_every_node(
    fl: Flavor, cluster: EmbeddedCluster, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    for node in cluster.nodes:
        node.reset_stats()
    for i in range(60):
        await fl.run(s.key(i).put({"i": i}))
    rows = await fl.run(s.keys(range(60)).get())
    assert [row.bins["i"] for row in rows] == list(range(60))
    writes = [n.stats()["write"] for n in cluster.nodes]
    assert all(w > 0 for w in writes), writes
    assert sum(writes) == 60


@pytest.mark.parametrize("keep_data", [False, True])
def test_batches_and_single_keys_follow_a_killed_master(
    aerospike_cluster: EmbeddedCluster, set_name: str, keep_data: bool
) -> None:
    c = aerospike_cluster
    with af_sync.connect(c.seeds, tend_interval=0.2) as db:
        s = db.namespace("test").set(set_name)
        s.put_many({i: {"i": i} for i in range(3000)}).raise_on_error()
        for node in c.nodes:
            node.reset_stats()
        c.nodes[0].kill(keep_data=keep_data)
        # No wait for the client to notice: the retries go to the new owners.
        rows = s.keys(range(3000)).timeout(5, retries=5).get()
        assert [(row.bins or {}).get("i") for row in rows] == list(range(3000))
        # Batch writes are not retried: they wait for the client to notice the loss (the reads
        # above, over the wire path, route by the nodes' own partition tables and need not).
        deadline = time.monotonic() + 5
        while len(db.node_names()) > 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        s.put_many({i: {"i": -i} for i in range(3000)}).raise_on_error()
        for i in range(0, 3000, 97):
            rec = s.key(i).timeout(5, retries=5).get()
            assert rec is not None and rec["i"] == -i
        assert c.nodes[0].stats()["batch"] == 0
        live = [n for n in c.nodes if n.status == "up"]
        assert sum(n.stats()["records"] for n in live) == 2 * 3000


async def test_info_all_answers_per_node(fl: Flavor, cluster: EmbeddedCluster) -> None:
    answers = await fl.run(fl.db.info_all("node\ncluster-size"))
    names = sorted(n.name for n in cluster.nodes)
    assert sorted(answers) == names
    for name, answer in answers.items():
        assert answer == {"node": name, "cluster-size": "3"}


@pytest.mark.parametrize("limit", [1, 5, 64])
def test_max_records_is_one_limit_across_the_nodes(seeds: str, loaded: str, limit: int) -> None:
    # every node streams at once: the records past the limit must not reach the stream
    client = n.connect_blocking(n.ClientConfig(seeds))
    try:
        for _ in range(5):
            stream = client.query("test", loaded, None, None, None, limit, None, 100)
            got: list[n.Record] = []
            while (chunk := stream.next_chunk_blocking()) is not None:
                got.extend(chunk)
            assert len(got) == limit
    finally:
        client.close()


@pytest.mark.anyio
async def test_a_node_that_stops_answering_leaves_the_other_nodes_served(
    aerospike_cluster: EmbeddedCluster, set_name: str
) -> None:
    # The first call on a fresh client waits for the partition table; a node that does not
    # answer must not hold up the calls that the other nodes serve.
    async with af.connect(aerospike_cluster.seeds) as db:
        s = db.namespace("test").set(set_name)
        aerospike_cluster.nodes[1].fault_delay(5000)
        try:
            served = 0
            for i in range(30):
                with contextlib.suppress(errors.AerospikeError):
                    await s.key(i).timeout(0.8).put({"i": i})
                    served += 1
            assert served >= 10  # about two thirds of the keys live on the two other nodes
        finally:
            aerospike_cluster.nodes[1].clear_faults()


def test_a_table_of_every_node_has_the_bins_of_every_node(seeds: str, set_name: str) -> None:
    # Each node's records come in batches of their own; a bin that only records on other
    # nodes than the first batch's hold is still a column of the table.
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        s.put_many({i: {"i": i, f"only{i}": i} for i in range(30)}).raise_on_error()
        t = s.query().to_arrow()
        assert t.num_rows == 30 and t.num_columns == 31
        for row in pa.table(t).to_pylist():
            assert row[f"only{row['i']}"] == row["i"]
            assert sum(v is not None for v in row.values()) == 2
        # batches keep the first batch's columns
        with pytest.raises(errors.ArrowSchemaError, match="is in no column"):
            list(s.query().arrow_batches())
