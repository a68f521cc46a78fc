"""Racks on the embedded cluster (Enterprise rules) and rack-aware reads: ``replica=
"prefer_rack"`` reads land on the client's rack, fall back to another rack when it has no node
left, and writes still go to the masters, counted per node by the server itself."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

pytestmark = pytest.mark.timeout(120)

KEYS = 40


@pytest.fixture
def racked() -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(nodes=4, replication_factor=2, racks=2, edition="enterprise") as c:
        yield c


def _by_rack(cluster: EmbeddedCluster, stat: str) -> dict[int, int]:
    out: dict[int, int] = {}
    for node in cluster.nodes:
        if node.status == "up":
            out[node.rack_id] = out.get(node.rack_id, 0) + node.stats()[stat]
    return out


def _reset(cluster: EmbeddedCluster) -> None:
    for node in cluster.nodes:
        if node.status == "up":
            node.reset_stats()


def test_nodes_report_their_racks(racked: EmbeddedCluster) -> None:
    assert [n.rack_id for n in racked.nodes] == [1, 2, 1, 2]
    with af_sync.connect(racked.seeds) as db:
        for node in racked.nodes:
            answer = db.info("rack-ids", node=node.name)["rack-ids"]
            assert answer == f"test:{node.rack_id};bar:{node.rack_id}"
        racks = db.info("racks:")["racks:"]
        first = racks.split(";")[0]
        rack_1 = ",".join(n.name for n in racked.nodes if n.rack_id == 1)
        rack_2 = ",".join(n.name for n in racked.nodes if n.rack_id == 2)
        assert first == f"ns=test:rack_1={rack_1}:rack_2={rack_2}"


def test_a_community_cluster_refuses_racks() -> None:
    with pytest.raises(Exception, match="'rack-id' is enterprise-only"):
        EmbeddedCluster(nodes=2, replication_factor=2, racks=2)


@pytest.mark.parametrize("rack", [1, 2])
def test_prefer_rack_reads_land_on_the_clients_rack(racked: EmbeddedCluster, rack: int) -> None:
    policy = af.Policy(replica="prefer_rack")
    with af_sync.connect(racked.seeds, rack_id=rack, policy=policy) as db:
        s = db.namespace("test").set("racks")
        _reset(racked)
        for i in range(KEYS):
            s.key(i).put({"i": i})
        writes = _by_rack(racked, "write")
        assert sum(writes.values()) == KEYS
        assert all(writes.values()), f"writes go to the masters, on both racks: {writes}"
        _reset(racked)
        for i in range(KEYS):
            assert s.key(i).get() is not None
        batch = s.keys(list(range(KEYS))).get()
        assert all(r is not None for r in batch.records)
        reads = _by_rack(racked, "read")
        batches = _by_rack(racked, "batch")
        other = 3 - rack
        assert reads[rack] == KEYS and reads[other] == 0, reads
        assert batches[rack] >= 1 and batches[other] == 0, batches


def test_without_prefer_rack_reads_follow_the_masters(racked: EmbeddedCluster) -> None:
    with af_sync.connect(racked.seeds, rack_id=1) as db:
        s = db.namespace("test").set("racks")
        for i in range(KEYS):
            s.key(i).put({"i": i})
        _reset(racked)
        for i in range(KEYS):
            assert s.key(i).get() is not None
        reads = _by_rack(racked, "read")
        assert reads[1] > 0 and reads[2] > 0, reads


def test_reads_fall_back_to_another_rack_when_theirs_is_gone(racked: EmbeddedCluster) -> None:
    policy = af.Policy(replica="prefer_rack", max_retries=3, retry_pause=0.05)
    with af_sync.connect(racked.seeds, rack_id=1, policy=policy) as db:
        s = db.namespace("test").set("racks")
        for i in range(KEYS):
            s.key(i).put({"i": i})
        for node in racked.nodes:
            if node.rack_id == 1:
                node.kill(keep_data=True)
        deadline = time.monotonic() + 15
        while len(db.node_names()) != 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(db.node_names()) == 2
        _reset(racked)
        for i in range(KEYS):
            rec = s.key(i).get()
            assert rec is not None and rec["i"] == i
        assert _by_rack(racked, "read") == {2: KEYS}


def test_prefer_rack_scans_read_the_clients_rack(racked: EmbeddedCluster) -> None:
    policy = af.Policy(replica="prefer_rack")
    with af_sync.connect(racked.seeds, rack_id=2, policy=policy) as db:
        s = db.namespace("test").set("racks")
        for i in range(KEYS):
            s.key(i).put({"i": i})
        _reset(racked)
        assert sorted(r["i"] for r in s.query().collect()) == list(range(KEYS))
        scans = _by_rack(racked, "scan")
        assert scans[2] >= 1 and scans[1] == 0, scans
