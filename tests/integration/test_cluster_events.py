"""What an operator sees of a cluster changing, on a 3-node embedded cluster: ``db.nodes()``,
the cluster counters of ``db.metrics()``, and records on the ``aerospike_fluent.cluster`` logger
when a node leaves and joins again; calls addressed to each node counted under its name.
"""

from __future__ import annotations

import logging

import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster, EmbeddedServer

from ._cluster import ON_EMBEDDED_CLUSTER, PARTITIONS, settle

pytestmark = ON_EMBEDDED_CLUSTER


def test_nodes_show_address_partitions_and_connections(cluster: EmbeddedCluster) -> None:
    with af_sync.connect(cluster.seeds) as db:
        db.namespace("test").set("n").key(1).put({"a": 1})
        nodes = db.nodes()
    assert [n.name for n in nodes] == sorted(n.name for n in cluster.nodes)
    addresses = {n.name: f"{n.host}:{n.port}" for n in cluster.nodes}
    for node in nodes:
        assert node.active
        assert node.address == addresses[node.name]
        assert node.connections >= 1
        held = node.partitions["test"]
        assert held.masters > 0 and held.replicas > 0
    assert sum(n.partitions["test"].masters for n in nodes) == PARTITIONS
    assert sum(n.partitions["test"].replicas for n in nodes) == PARTITIONS


@pytest.mark.anyio
async def test_async_nodes_match_sync(cluster: EmbeddedCluster) -> None:
    async with af.connect(cluster.seeds) as db:
        nodes = await db.nodes()
    assert len(nodes) == 3
    assert sum(n.partitions["test"].masters for n in nodes) == PARTITIONS


def test_calls_are_counted_under_the_node_they_were_addressed_to(
    cluster: EmbeddedCluster,
) -> None:
    with af_sync.connect(cluster.seeds) as db:
        s = db.namespace("test").set("n")
        for i in range(90):
            s.key(i).put({"i": i})
        gets = db.metrics().calls("put")
    assert sum(c.count for c in gets) == 90
    # the keys hash over every node's partitions
    assert {c.node for c in gets} == {n.name for n in cluster.nodes}


def test_a_node_leaving_and_joining_is_counted_and_logged(
    cluster: EmbeddedCluster, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="aerospike_fluent.cluster")
    with af_sync.connect(cluster.seeds) as db:
        s = db.namespace("test").set("events")
        for i in range(30):
            s.key(i).put({"i": i})
        gone = cluster.nodes[2]
        gone.kill(keep_data=True)

        def left() -> bool:
            for i in range(30):  # keep calls flowing: the view refreshes as they route
                s.key(i).get()
            return db.metrics().cluster.nodes_left == 1

        assert settle(left)
        gone.restart()

        def joined() -> bool:
            s.key(0).get()
            return db.metrics().cluster.nodes_joined == 1

        assert settle(joined)
        events = db.metrics().cluster
        assert events.tends >= 2
        assert settle(lambda: db.metrics().cluster.partition_map_changes >= 2)
        assert {n.name: n.active for n in db.metrics().nodes}[gone.name]

    records = [r for r in caplog.records if r.name == "aerospike_fluent.cluster"]
    left_logs = [r for r in records if gone.name in r.getMessage() and "left" in r.getMessage()]
    joined_logs = [r for r in records if gone.name in r.getMessage() and "joined" in r.getMessage()]
    assert [r.levelno for r in left_logs] == [logging.WARNING]
    assert [r.levelno for r in joined_logs] == [logging.INFO]
    assert any("partition map" in r.getMessage() for r in records)


def test_no_password_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="aerospike_fluent")
    right, wrong = "s3cr3t-right-pass", "s3cr3t-wrong-pass"
    with EmbeddedServer(users={"ann": right}) as server:
        with pytest.raises(af.errors.AuthenticationError):
            af_sync.connect(server.seeds, user="ann", password=wrong)
        with af_sync.connect(server.seeds, user="ann", password=right) as db:
            db.namespace("test").set("secret").key(1).put({"a": 1})
    assert caplog.records, "connecting logged nothing at DEBUG"
    for record in caplog.records:
        assert right not in record.getMessage()
        assert wrong not in record.getMessage()
