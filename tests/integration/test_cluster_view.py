"""The client's one view of where partitions live, on a 3-node embedded cluster: masters and
replicas of every partition, one table that every runtime and path routes by, and a node that
leaves or joins seen within a tend interval (about a second) by blocking and async calls alike.
"""

from __future__ import annotations

import asyncio

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync
from aerospike_fluent._exec import AsyncExecutor
from aerospike_fluent.server import EmbeddedCluster

from ._cluster import ON_EMBEDDED_CLUSTER, PARTITIONS, settle

pytestmark = ON_EMBEDDED_CLUSTER


def test_every_partition_has_a_master_and_a_replica(cluster: EmbeddedCluster) -> None:
    with af_sync.connect(cluster.seeds) as db:
        owners = db.native.partition_owners_blocking("test")
    assert sorted(owners) == sorted(db_node.name for db_node in cluster.nodes)
    assert sum(m for m, _ in owners.values()) == PARTITIONS
    assert sum(r for _, r in owners.values()) == PARTITIONS
    # spread over every node
    assert all(m > 0 and r > 0 for m, r in owners.values())


def test_a_node_that_leaves_and_comes_back_is_seen_by_every_path(
    cluster: EmbeddedCluster,
) -> None:
    with af_sync.connect(cluster.seeds) as db:
        s = db.namespace("test").set("view")
        for i in range(60):
            s.key(i).put({"i": i})
        gone = cluster.nodes[1]
        gone.kill(keep_data=True)

        def two_nodes_own_everything() -> bool:
            owners = db.native.partition_owners_blocking("test")
            return gone.name not in owners and sum(m for m, _ in owners.values()) == PARTITIONS

        assert settle(two_nodes_own_everything)
        # blocking and async calls both route by the new view: every key is read
        assert all(s.key(i).get() is not None for i in range(60))

        async def async_reads() -> int:
            adb = af.Client(db.native, AsyncExecutor(db.native))  # the same native client
            a = adb.namespace("test").set("view")
            got = await asyncio.gather(*(a.key(i).get() for i in range(60)))
            return sum(r is not None for r in got)

        assert asyncio.run(async_reads()) == 60
        assert len([r for r in s.query()]) == 60

        gone.restart()

        def three_nodes_again() -> bool:
            owners = db.native.partition_owners_blocking("test")
            return len(owners) == 3 and all(m > 0 for m, _ in owners.values())

        assert settle(three_nodes_again)
        assert all(s.key(i).get() is not None for i in range(60))
