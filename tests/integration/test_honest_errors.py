"""Errors that tell an operator what happened: text and ``in_doubt`` agree, a missing index is
named with its namespace, set and bin, a timeout names its limits, a background task whose
records failed says so, and ``is_connected`` follows the cluster.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster, EmbeddedServer

from ._flavor import Flavor

BOOM = b"function boom(rec)\n  error('kaboom')\nend\n"


async def test_a_udf_error_does_not_claim_to_be_in_doubt(fl: Flavor, set_name: str) -> None:
    module = f"{set_name}_boom.lua"
    await fl.run(fl.db.udf_register(BOOM, name=module))
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key(1).put({"a": 1}))
    with pytest.raises(errors.UdfError, match="kaboom") as raised:
        await fl.run(s.key(1).udf(module.removesuffix(".lua"), "boom"))
    assert not raised.value.in_doubt
    assert "doubt" not in str(raised.value).lower()
    await fl.run(fl.db.udf_remove(module))


async def test_a_query_without_an_index_names_bin_namespace_and_set(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key(1).put({"unindexed": 1}))
    with pytest.raises(errors.IndexNotFoundError) as raised:
        await fl.run(s.query().where_index("unindexed").equals(1).collect())
    text = str(raised.value)
    assert "'unindexed'" in text or '"unindexed"' in text
    assert "test" in text and set_name in text
    assert raised.value.result_code == 201


async def test_a_background_task_with_failed_records_raises(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"score": 1.5} for i in range(20)}))
    task = await fl.run(s.query().background().add("score", 1000).execute())
    with pytest.raises(errors.BackgroundTaskError, match="20 of 20 records") as raised:
        await fl.run(task.wait(timeout=30))
    assert (raised.value.succeeded, raised.value.failed) == (0, 20)
    progress = await fl.run(task.progress())
    assert progress["failed"] == 20


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded cluster")
def test_a_timeout_names_its_limits() -> None:
    with (
        EmbeddedCluster(nodes=1, replication_factor=1) as cluster,
        af_sync.connect(cluster.seeds, total_timeout=0.3, max_retries=0) as db,
    ):
        k = db.namespace("test").set("slow").key(1)
        k.put({"a": 1})
        cluster.nodes[0].pause()
        try:
            with pytest.raises(errors.TimeoutError) as raised:
                k.get()
        finally:
            cluster.nodes[0].resume()
    text = str(raised.value)
    assert "total timeout 300 ms" in text
    assert "attempt" in text


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded server")
def test_is_connected_follows_the_cluster() -> None:
    server = EmbeddedServer()
    db = af_sync.connect(server.seeds, total_timeout=0.3)
    try:
        assert db.is_connected
        server.stop()
        end = time.monotonic() + 15
        while db.is_connected and time.monotonic() < end:
            time.sleep(0.1)
        assert not db.is_connected
        with pytest.raises(errors.ConnectionError):
            db.namespace("test").set("gone").key(1).get()
    finally:
        db.close()


async def _until(fl: Flavor, holds: Callable[[], bool]) -> None:
    """Wait until ``holds()``; a guard against a hang, not a measure of time."""
    for _ in range(600):
        if holds():
            return
        await fl.sleep(0.05)
    pytest.fail("the state never came")


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded server")
async def test_is_connected_turns_false_when_the_only_node_stops_answering(fl: Flavor) -> None:
    with EmbeddedCluster(nodes=1, replication_factor=1) as cluster:
        node = cluster.nodes[0]
        async with fl.connect(cluster.seeds, total_timeout=0.3, max_retries=0) as db:
            key = db.namespace("test").set("gone").key(1)
            await fl.run(key.put({"a": 1}))
            node.kill(keep_data=True)
            with pytest.raises((errors.ConnectionError, errors.TimeoutError)):
                await fl.run(key.get())
            await _until(fl, lambda: not db.is_connected)
            # not because the tend dropped the node (that takes several failed tends)
            assert db.node_names() == [node.name]
            node.restart()
            await _until(fl, lambda: db.is_connected)
            assert (await fl.run(key.get()))["a"] == 1
