"""Background queries: operations or a record UDF applied on the servers to every record a
query selects, with a task to follow; on one node and on a 3-node cluster."""

from __future__ import annotations

import os
from typing import Any

import pytest

from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedCluster

from ._flavor import Flavor

BUMP = b"""
function bump(rec, bin, n)
  rec[bin] = (rec[bin] or 0) + n
  aerospike:update(rec)
end
"""


async def test_background_operations_reach_every_selected_record(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"age": i} for i in range(40)}))
    q = s.query().where("$.age >= 30")
    task = await fl.run(q.background().add("age", 100).set_bins({"old": True}).execute())
    assert task.task_id > 0
    assert await fl.run(task.wait(timeout=30)) == "complete"
    assert await fl.run(task.status()) == "complete"
    progress = await fl.run(task.progress())
    assert progress["complete"] is True and progress["succeeded"] == 10
    assert progress["percent"] == 100
    ages = sorted(r["age"] for r in await fl.run(s.query().collect()))
    assert ages == [*range(30), *range(130, 140)]
    assert await fl.run(s.query().where("$.old == true").count()) == 10


async def test_a_background_udf_runs_on_each_record(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    module = f"{set_name}.lua"
    await fl.run(fl.db.udf_register(BUMP, name=module))
    await fl.run(s.put_many({i: {"n": i} for i in range(20)}))
    task = await fl.run(s.query().background_udf(set_name, "bump", "n", 1000))
    assert await fl.run(task.wait(timeout=30)) == "complete"
    assert sorted(r["n"] for r in await fl.run(s.query().collect())) == list(range(1000, 1020))
    await fl.run(fl.db.udf_remove(module))


async def test_background_input_is_checked_before_sending(fl: Flavor, set_name: str) -> None:
    q = fl.db.namespace("test").set(set_name).query()
    with pytest.raises(errors.InvalidArgumentError, match="needs operations"):
        await fl.run(q.background().execute())
    with pytest.raises(errors.InvalidArgumentError, match="module"):
        await fl.run(q.background_udf("", "f"))


CRATE_ROAD = pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_FLUENT_CRATE_RECORDS")),
    reason="the crate's road words its own errors",
)


@CRATE_ROAD
async def test_an_unknown_namespace_is_named(fl: Flavor, set_name: str) -> None:
    q = fl.db.namespace("no_such_ns").set(set_name).query()
    with pytest.raises(errors.NamespaceNotFoundError) as raised:
        await fl.run(q.background().add("n", 1).execute())
    assert '"no_such_ns"' in str(raised.value) and set_name in str(raised.value)
    assert raised.value.result_code == 20


@CRATE_ROAD
async def test_a_missing_index_is_named(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key(1).put({"no_such_index": 1}))  # a real node skips a set it lacks
    q = s.query().where_index("no_such_index").equals(1)
    with pytest.raises(errors.IndexNotFoundError, match="no_such_index") as raised:
        await fl.run(q.background().add("n", 1).execute())
    assert "background operations" in str(raised.value)


async def test_a_read_in_a_background_chain_is_refused_before_sending(
    fl: Flavor, set_name: str
) -> None:
    q = fl.db.namespace("test").set(set_name).query()
    with pytest.raises(errors.InvalidArgumentError, match="must all write"):
        await fl.run(q.background().add("n", 1).read("n").execute())


async def test_a_udf_that_is_not_registered_fails_its_task_naming_the_module(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"n": i} for i in range(5)}))
    task = await fl.run(s.query().background_udf(f"{set_name}_missing", "bump", "n", 1))
    with pytest.raises(errors.BackgroundTaskError, match="5 of 5 records") as raised:
        await fl.run(task.wait(timeout=30))
    assert f"{set_name}_missing.bump" in str(raised.value)
    assert (raised.value.succeeded, raised.value.failed) == (0, 5)
    assert sorted(r["n"] for r in await fl.run(s.query().collect())) == list(range(5))


@CRATE_ROAD
@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded cluster")
async def test_a_node_down_at_start_is_named_and_the_others_run_the_job(fl: Flavor) -> None:
    with EmbeddedCluster(nodes=3, replication_factor=1) as cluster:
        # No tend in the test's time: the client still lists the node that goes down.
        async with fl.connect(cluster.seeds, tend_interval=600) as db:
            s = db.namespace("test").set("bg_down")
            await fl.run(s.put_many({i: {"n": i} for i in range(60)}))
            down = cluster.nodes[2]
            down.kill()
            with pytest.raises(errors.ConnectionError) as raised:
                await fl.run(s.query().background().add("n", 1000).execute())
            text = str(raised.value)
            assert down.name in text and "could not be reached" in text
            took = [node.name for node in cluster.nodes[:2]]
            assert all(name in text for name in took), text
            for _ in range(600):  # a guard against a hang, not a measure of time
                live = await _readable(fl, s, 60)
                if live and all(n >= 1000 for n in live):
                    break
                await fl.sleep(0.05)
            assert live and all(n >= 1000 for n in live), live
            assert len(live) < 60  # the records of the node that is down stay out of reach


async def _readable(fl: Flavor, s: Any, count: int) -> list[int]:
    """The bin ``n`` of each record of keys ``0..count`` a node that is up serves."""
    out = []
    for i in range(count):
        try:
            record = await fl.run(s.key(i).get())
        except (errors.ConnectionError, errors.TimeoutError):
            continue
        if record is not None:  # None: its partition moved to a node that has no copy
            out.append(record["n"])
    return out


async def test_a_client_without_wire_connections_runs_background_jobs_through_the_crate(
    fl: Flavor, seeds: str, set_name: str
) -> None:
    module = f"{set_name}.lua"
    await fl.run(fl.db.udf_register(BUMP, name=module))
    # Under 8 connections per node the client keeps none of its own: the crate serves all.
    async with fl.connect(seeds, max_conns_per_node=4) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.put_many({i: {"n": i} for i in range(10)}))
        ops = await fl.run(s.query().where("$.n >= 5").background().add("n", 100).execute())
        assert await fl.run(ops.wait(timeout=30)) == "complete"
        udf = await fl.run(s.query().background_udf(set_name, "bump", "n", 1000))
        assert await fl.run(udf.wait(timeout=30)) == "complete"
        assert sum(node.bytes_sent for node in db.metrics().nodes) == 0
        found = sorted(r["n"] for r in await fl.run(s.query().collect()))
    assert found == [*range(1000, 1005), *range(1105, 1110)]
    await fl.run(fl.db.udf_remove(module))
