"""A read retried after its master was late goes to the next copy of the partition, as the
``sequence`` replica policy asks, on a 2-node embedded cluster (two copies of each partition).
The servers' own counters show where each attempt went; the SDK's path (the default) and the
crate's (``AEROSPIKE_FLUENT_CRATE_RECORDS=1``) must send the same attempts to the same nodes.
Under ``master`` every attempt stays on the master and the read times out.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync
from aerospike_fluent._exec import Sync
from aerospike_fluent.server import EmbeddedCluster

from ._cluster import ON_EMBEDDED_CLUSTER

pytestmark = ON_EMBEDDED_CLUSTER

KEYS = 24
DELAY = 1500


@pytest.fixture(params=["wire", "crate"])
def pair(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[EmbeddedCluster]:
    """A 2-node cluster, and the path the test's clients take for single records."""
    if request.param == "crate":
        monkeypatch.setenv("AEROSPIKE_FLUENT_CRATE_RECORDS", "1")
    else:
        monkeypatch.delenv("AEROSPIKE_FLUENT_CRATE_RECORDS", raising=False)
    with EmbeddedCluster(nodes=2, replication_factor=2) as c:
        yield c


def reads(cluster: EmbeddedCluster) -> list[int]:
    """Each node's count of single-record reads served since its stats were reset."""
    return [int(node.stats()["read"]) for node in cluster.nodes]


def reset(cluster: EmbeddedCluster) -> None:
    for node in cluster.nodes:
        node.reset_stats()


def keys_on_node_0(cluster: EmbeddedCluster, s: af.RecordSet[Sync]) -> list[int]:
    """Write the keys and return those node 0 masters, found by the node that serves each
    read without faults."""
    for i in range(KEYS):
        s.key(i).put({"v": i})
    slot = {}
    for i in range(KEYS):
        reset(cluster)
        assert s.key(i).get() is not None
        (slot[i],) = [n for n, r in enumerate(reads(cluster)) if r]
    on_0 = [i for i in range(KEYS) if slot[i] == 0]
    assert on_0 and len(on_0) < KEYS  # both nodes master some of the keys
    return on_0


def delayed_requests_done() -> None:
    """Requests a node was told to delay are served (and counted) once the delay is over."""
    time.sleep(DELAY / 1000 + 0.5)


def test_reads_whose_master_is_late_are_answered_by_the_replica(pair: EmbeddedCluster) -> None:
    with af_sync.connect(pair.seeds) as db:
        on_slow = keys_on_node_0(pair, db.namespace("test").set("failover"))

        quick = db.with_policy(socket_timeout=0.25, total_timeout=10, max_retries=2)
        reset(pair)
        pair.nodes[0].fault_delay(DELAY, None)
        try:
            s = quick.namespace("test").set("failover")
            got = [s.key(i).get() for i in on_slow]
            found = [s.key(i).exists() for i in on_slow]
        finally:
            pair.nodes[0].clear_faults()
        assert [r["v"] if r else None for r in got] == on_slow
        assert all(found)
        delayed_requests_done()
        # for each get and each exists, one attempt on the late master, the next on the replica
        assert reads(pair) == [2 * len(on_slow), 2 * len(on_slow)]


def test_under_the_master_policy_a_late_master_times_the_read_out(pair: EmbeddedCluster) -> None:
    with af_sync.connect(pair.seeds) as db:
        key = keys_on_node_0(pair, db.namespace("test").set("failover"))[0]

        master_only = db.with_policy(
            socket_timeout=0.25, total_timeout=10, max_retries=2, replica="master"
        )
        reset(pair)
        pair.nodes[0].fault_delay(DELAY, None)
        try:
            with pytest.raises(af.errors.TimeoutError) as e:
                master_only.namespace("test").set("failover").key(key).get()
        finally:
            pair.nodes[0].clear_faults()
        assert not e.value.in_doubt
        delayed_requests_done()
        assert reads(pair) == [3, 0]  # every attempt on the master


def test_retries_exhausted_on_every_copy_end_in_a_timeout(pair: EmbeddedCluster) -> None:
    with af_sync.connect(pair.seeds) as db:
        s = db.namespace("test").set("failover")
        s.key("k").put({"v": 1})
        quick = db.with_policy(socket_timeout=0.2, total_timeout=10, max_retries=3)
        reset(pair)
        for node in pair.nodes:
            node.fault_delay(DELAY, None)
        try:
            with pytest.raises(af.errors.TimeoutError) as e:
                quick.namespace("test").set("failover").key("k").get()
        finally:
            for node in pair.nodes:
                node.clear_faults()
        assert not e.value.in_doubt  # a read is never in doubt
        delayed_requests_done()
        assert reads(pair) == [2, 2]  # master, replica, master, replica


def test_with_default_limits_a_paused_master_is_read_from_the_replica(
    pair: EmbeddedCluster,
) -> None:
    # No socket timeout set: each attempt waits a third of the total (two retries), so the
    # replica answers before the deadline.
    with af_sync.connect(pair.seeds) as db:
        s = db.namespace("test").set("failover")
        on_paused = keys_on_node_0(pair, s)
        pair.nodes[0].pause()
        before = sum(c.retries for c in db.metrics().calls("get"))
        try:
            got = [s.key(i).timeout(0.6).get() for i in on_paused]
        finally:
            pair.nodes[0].resume()
        assert [r["v"] if r else None for r in got] == on_paused
        if not os.environ.get("AEROSPIKE_FLUENT_CRATE_RECORDS"):
            # A read retried on the SDK's path counts its retry; one the crate's path took
            # over (no connection to the paused node could be had) counts only a failure's.
            retries = sum(c.retries for c in db.metrics().calls("get")) - before
            assert 0 < retries <= len(on_paused)


def test_a_timeout_counts_every_attempt_of_the_call(pair: EmbeddedCluster) -> None:
    with af_sync.connect(pair.seeds) as db:
        s = db.namespace("test").set("failover")
        s.key("k").put({"v": 1})
        for node in pair.nodes:
            node.pause()
        try:
            with pytest.raises(af.errors.TimeoutError) as e:
                s.key("k").timeout(0.6, retries=2).get()
        finally:
            for node in pair.nodes:
                node.resume()
        (failed,) = [c for c in db.metrics().calls("get") if c.errors]
        assert (failed.retries, failed.timeouts, failed.result_codes) == (2, 1, {9: 1})
    text = str(e.value)
    assert text.startswith("Timeout: no answer before the deadline"), text
    assert "3 attempts" in text and " tries" not in text, text
    if not os.environ.get("AEROSPIKE_FLUENT_CRATE_RECORDS"):  # the SDK's path names its limits
        assert "(total timeout 600 ms, socket timeout 200 ms, 3 attempts made" in text, text
