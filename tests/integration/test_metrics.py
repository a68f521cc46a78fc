"""``db.metrics()``: every call counted once by namespace, node and kind, whichever path served
it; failures by result code; latency percentiles; connections and bytes per node; and nothing
counted with ``metrics=False``. Each flavored test has a client of its own, so counts are exact.
"""

from __future__ import annotations

import json
import os

import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync
from aerospike_fluent.metrics import MetricsSnapshot

from ._flavor import Flavor

NOT_FOUND_OR_EXISTS = {5}


async def test_every_call_is_counted_by_kind(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(5):
        await fl.run(s.key(i).put({"i": i}))
    for i in range(7):  # two of them find no record: still calls
        await fl.run(s.key(i).get())
    await fl.run(s.key(0).exists())
    await fl.run(s.key(0).touch())
    await fl.run(s.key(4).delete())
    await fl.run(s.key(1).add("i", 1).read("i").execute())
    await fl.run(s.keys([0, 1, 2]).get())
    await fl.run(fl.db.info("build"))
    await fl.run(fl.db.batch().put(s.key(10), {"i": 10}).delete(s.key(11)).execute())
    async with fl.stream(s.query()) as records:
        async for _ in records:
            pass

    m = fl.db.metrics()
    assert m.enabled
    counts = {c: m.count(c) for c in ("put", "get", "exists", "touch", "delete", "operate")}
    assert counts == {"put": 5, "get": 7, "exists": 1, "touch": 1, "delete": 1, "operate": 1}
    assert m.count("batch_read") == 1
    assert m.count("batch_write") == 1
    assert m.count("scan") == 1
    assert m.count("info") == 1
    assert {c.namespace for c in m.calls("get")} == {"test"}
    assert all(c.errors == 0 for c in m.commands)


async def test_failures_are_counted_by_result_code(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("k").put({"a": 1}))
    for _ in range(3):
        with pytest.raises(af.errors.RecordExistsError):
            await fl.run(s.key("k").insert({"a": 2}))
    puts = fl.db.metrics().calls("put")
    assert sum(c.count for c in puts) == 4
    assert sum(c.errors for c in puts) == 3
    codes: dict[int, int] = {}
    for c in puts:
        for code, n in c.result_codes.items():
            codes[code] = codes.get(code, 0) + n
    assert codes == {5: 3}
    assert sum(c.timeouts for c in puts) == 0
    assert sum(c.in_doubt for c in puts) == 0  # the server answered: nothing in doubt


async def test_latency_percentiles_are_ordered_and_buckets_add_up(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(50):
        await fl.run(s.key(i).put({"i": i}))
    for row in fl.db.metrics().calls("put"):
        lat = row.latency
        assert 0 < lat.p50 <= lat.p90 <= lat.p99 <= lat.max
        assert lat.mean * row.count == pytest.approx(lat.sum, rel=1e-3)
        counts = [n for _, n in lat.buckets]
        assert counts == sorted(counts)
        assert lat.buckets[-1] == (float("inf"), row.count)


async def test_connections_and_bytes_per_node(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(20):
        await fl.run(s.key(i).put({"i": i}))
        await fl.run(s.key(i).get())
    m = fl.db.metrics()
    assert {n.name for n in m.nodes} == set(fl.db.node_names())
    for node in m.nodes:
        assert node.active
        assert node.address
        c = node.connections
        assert c.open >= 1
        assert c.in_use + c.idle == c.open
        assert c.waiting == 0
    if not os.environ.get("AEROSPIKE_FLUENT_CRATE_RECORDS"):
        assert sum(n.bytes_sent for n in m.nodes) > 20 * 30
        assert sum(n.bytes_received for n in m.nodes) > 20 * 20
        assert sum(n.connections.opened for n in m.nodes) >= 1


def test_snapshot_is_plain_data_with_stable_names(seeds: str, set_name: str) -> None:
    with af_sync.connect(seeds) as db:
        db.namespace("test").set(set_name).key(1).put({"a": 1})
        snapshot = db.metrics()
    data = snapshot.to_dict()
    json.dumps(data)  # JSON-ready
    assert set(data) == {
        "enabled",
        "uptime",
        "commands",
        "nodes",
        "cluster",
        "config",
        "calls_in_flight",
    }
    assert data["config"] == {"path": None, "checks": 0, "applied": 0, "rejected": 0}
    assert set(data["cluster"]) == {"tends", "nodes_joined", "nodes_left", "partition_map_changes"}
    row = data["commands"][0]
    assert set(row) == {
        "namespace",
        "node",
        "command",
        "count",
        "retries",
        "errors",
        "timeouts",
        "in_doubt",
        "result_codes",
        "latency",
    }
    assert set(row["latency"]) == {"mean", "p50", "p90", "p99", "max", "sum", "buckets"}
    assert isinstance(snapshot, MetricsSnapshot)
    # readable after close
    assert snapshot.count("put") == db.metrics().count("put") == 1


def test_metrics_off_counts_nothing(seeds: str, set_name: str) -> None:
    with af_sync.connect(seeds, metrics=False) as db:
        s = db.namespace("test").set(set_name)
        s.key(1).put({"a": 1})
        s.key(1).get()
        m = db.metrics()
    assert not m.enabled
    assert m.commands == ()
