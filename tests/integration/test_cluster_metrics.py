"""What `db.metrics()` and `db.nodes()` show of a cluster on their own: the partition map
followed after a node kill without any call, each node's rack."""

from __future__ import annotations

from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

from ._cluster import ON_EMBEDDED_CLUSTER, settle

pytestmark = ON_EMBEDDED_CLUSTER


def test_a_node_kill_changes_the_partition_map_without_calls(cluster: EmbeddedCluster) -> None:
    with af_sync.connect(cluster.seeds, tend_interval=0.1) as db:
        db.namespace("test").set("m").key(1).put({"a": 1})  # the first table
        before = db.metrics().cluster.partition_map_changes
        cluster.nodes[2].kill()
        assert settle(lambda: db.metrics().cluster.partition_map_changes > before)


def test_nodes_name_their_rack() -> None:
    with (
        EmbeddedCluster(nodes=2, replication_factor=2, racks=2, edition="enterprise") as c,
        af_sync.connect(c.seeds) as db,
    ):
        nodes = db.nodes()
    racks = {n.name: n.rack_id for n in c.nodes}
    assert {n.name: n.rack for n in nodes} == racks
    assert all(set(n.racks.values()) == {racks[n.name]} for n in nodes)


def test_a_community_node_has_no_rack(cluster: EmbeddedCluster) -> None:
    with af_sync.connect(cluster.seeds) as db:
        assert {n.rack for n in db.nodes()} == {None}
