"""Batch reads over the wire path across a 3-node embedded cluster: one request per node, and
the rows the crate's batch gives, found or missing, refused by one node, or in a namespace no
node serves (those rows go through the crate). Auto-batched gets too.

A node asked for one key shows the path taken: the wire path sends it a batch request, the crate
a single-record read.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedCluster

from ._flavor import Flavor
from .test_batch_wire import both_paths, use_crate
from .test_batch_wire_put import LATE
from .test_cluster_paging import cluster, seeds

__all__ = ["cluster", "seeds"]

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_HOST")), reason="counts requests at the embedded cluster"
)


def reset(cluster: EmbeddedCluster) -> None:
    for node in cluster.nodes:
        node.reset_stats()


def counts(cluster: EmbeddedCluster, kind: str) -> list[int]:
    return [node.stats()[kind] for node in cluster.nodes]


async def masters(cluster: EmbeddedCluster, set_name: str, keys: range) -> dict[int, int]:
    """Which node (its index) each key's get reads from."""
    out = {}
    async with af.connect(cluster.seeds) as db:
        s = db.namespace("test").set(set_name)
        for k in keys:
            reset(cluster)
            await s.key(k).get()
            out[k] = counts(cluster, "read").index(1)
    return out


async def test_rows_on_every_node_give_the_crate_path_s_rows(
    fl: Flavor, cluster: EmbeddedCluster, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(40):
        await fl.run(s.key(i).put({"i": i, "l": [i, "x"]}))

    def build(db: af.Client[Any]) -> Any:
        return db.namespace("test").set(set_name).keys(range(60)).get()

    crate, _ = await both_paths(fl, fl.seeds, monkeypatch, build)
    reset(cluster)
    _, wire = await both_paths(fl, fl.seeds, monkeypatch, build, lambda: reset(cluster))
    assert wire == crate
    assert [row[1] for row in wire] == [0] * 40 + [2] * 20
    assert counts(cluster, "batch") == [1, 1, 1]
    assert counts(cluster, "read") == [0, 0, 0]


@pytest.mark.parametrize("code", [14, 4])
async def test_a_node_s_refusal_gives_the_crate_path_s_rows(
    fl: Flavor,
    cluster: EmbeddedCluster,
    monkeypatch: pytest.MonkeyPatch,
    set_name: str,
    code: int,
) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(30):
        await fl.run(s.key(i).put({"i": i}))

    def build(db: af.Client[Any]) -> Any:
        return db.namespace("test").set(set_name).keys(range(30)).timeout(2, retries=1).get()

    def fault() -> None:
        cluster.nodes[1].fault_fail(code, 1)

    crate, wire = await both_paths(fl, fl.seeds, monkeypatch, build, fault)
    assert wire == crate
    codes = [row[1] for row in wire]
    assert codes.count(code) == 1 and codes.count(-15) > 0 and codes.count(0) > 10


async def test_a_namespace_no_node_serves_goes_through_the_crate(
    fl: Flavor, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    await fl.run(fl.db.namespace("test").set(set_name).key(1).put({"i": 1}))

    def build(db: af.Client[Any]) -> Any:
        here, nowhere = db.namespace("test").set(set_name), db.namespace("nope").set(set_name)
        return db.batch().get(here.key(1)).get(nowhere.key(1)).get(here.key(2)).execute()

    crate, wire = await both_paths(fl, fl.seeds, monkeypatch, build)
    assert wire == crate
    assert [row[1] for row in wire] == [0, 20, 2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_auto_batched_gets_read_over_the_wire_path(
    cluster: EmbeddedCluster, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    async with af.connect(cluster.seeds) as db:
        await db.namespace("test").set(set_name).put_many({i: {"i": i} for i in range(30)})
    node_of = await masters(cluster, set_name, range(40))  # 30..39: missing
    a, b = node_of[0], next(n for n in node_of.values() if n != node_of[0])
    on_a = [k for k, n in node_of.items() if n == a]
    missing_on_a = next(k for k in on_a if k >= 30)
    # The first get goes out alone; the batch has three keys on node a and one on node b.
    keys = [on_a[0], on_a[1], on_a[2], next(k for k, n in node_of.items() if n == b), missing_on_a]
    reads_on_b = []
    for crate in (True, False):
        use_crate(monkeypatch, crate)
        async with af.connect(cluster.seeds, auto_batch=True) as db:
            s = db.namespace("test").set(set_name)
            reset(cluster)
            got = await asyncio.gather(*(s.key(k).get() for k in keys))
            assert [r and r["i"] for r in got] == [*keys[:4], None]
            reads_on_b.append((counts(cluster, "read")[b], counts(cluster, "batch")[b]))
    assert reads_on_b == [(1, 0), (0, 1)]


def fresh_sets(set_name: str) -> Any:
    """A build's set name, another on each call: each path writes records of its own."""
    runs = iter(range(100))
    return lambda: f"{set_name}_{next(runs)}"


def outcomes(snapshot: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """A snapshot without keys and generations: the rows of two runs on one set compare."""
    return [(r[1], r[2] and r[2][:3], r[3] and r[3][2]) for r in snapshot]


async def test_put_rows_on_every_node_give_the_crate_path_s_rows(
    fl: Flavor, cluster: EmbeddedCluster, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    next_set = fresh_sets(set_name)
    sets: list[str] = []

    def build(db: af.Client[Any]) -> Any:
        sets.append(next_set())
        return db.namespace("test").set(sets[-1]).put_many({i: {"i": i} for i in range(60)})

    crate, _ = await both_paths(fl, fl.seeds, monkeypatch, build)
    _, wire = await both_paths(fl, fl.seeds, monkeypatch, build, lambda: reset(cluster))
    assert outcomes(wire) == outcomes(crate)
    assert [row[1] for row in wire] == [0] * 60
    assert counts(cluster, "batch") == [1, 1, 1]
    assert counts(cluster, "write") == [0, 0, 0]
    got = await fl.run(fl.db.namespace("test").set(sets[-1]).keys(range(60)).get())
    assert [row.bins for row in got] == [{"i": i} for i in range(60)]


async def test_a_node_s_refusal_of_a_put_gives_the_crate_path_s_rows(
    fl: Flavor, cluster: EmbeddedCluster, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    def build(db: af.Client[Any]) -> Any:
        return db.namespace("test").set(set_name).put_many({i: {"i": i} for i in range(30)})

    def fault() -> None:
        cluster.nodes[1].fault_fail(14, 1)

    crate, wire = await both_paths(fl, fl.seeds, monkeypatch, build, fault)
    assert outcomes(wire) == outcomes(crate)
    codes = [row[1] for row in wire]
    assert codes.count(14) == 1 and codes.count(-15) > 0 and codes.count(0) > 10
    assert not any(row[2] and row[2][2] for row in wire)


@pytest.mark.anyio
async def test_auto_batched_puts_write_over_the_wire_path(
    cluster: EmbeddedCluster, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    async with af.connect(cluster.seeds) as db:
        await db.namespace("test").set(set_name).put_many({i: {"i": i} for i in range(40)})
    node_of = await masters(cluster, set_name, range(40))
    a, b = node_of[0], next(n for n in node_of.values() if n != node_of[0])
    on_a = [k for k, n in node_of.items() if n == a]
    # The first put goes out alone; the batch has three keys on node a and one on node b.
    keys = [on_a[0], on_a[1], on_a[2], on_a[3], next(k for k, n in node_of.items() if n == b)]
    writes_on_b = []
    for crate in (True, False):
        use_crate(monkeypatch, crate)
        async with af.connect(cluster.seeds, auto_batch=True) as db:
            s = db.namespace("test").set(set_name)
            for k in keys:  # the loop's own connections know the cluster after these
                await s.key(k).get()
            reset(cluster)
            out = await asyncio.gather(*(s.key(k).put({"i": -k, "p": int(crate)}) for k in keys))
            assert out == [None] * 5
            writes_on_b.append((counts(cluster, "write")[b], counts(cluster, "batch")[b]))
            got = await asyncio.gather(*(s.key(k).get() for k in keys))
            assert [r and r.bins for r in got] == [{"i": -k, "p": int(crate)} for k in keys]
    assert writes_on_b == [(1, 0), (0, 1)]


async def test_a_late_node_leaves_only_its_puts_in_doubt(
    fl: Flavor, cluster: EmbeddedCluster, set_name: str
) -> None:
    async with fl.connect(cluster.seeds, total_timeout=0.3) as db:
        s = db.namespace("test").set(set_name)
        node_of = {}
        for k in range(30):
            reset(cluster)
            await fl.run(s.key(k).get())
            node_of[k] = counts(cluster, "read").index(1)
        cluster.nodes[1].fault_delay(1000, 1)
        rows = await fl.rows(lambda: s.put_many({i: {"i": i} for i in range(30)}))
    lost = [row.key[2] for row in rows if row.result_code != 0]
    assert lost == [k for k, n in node_of.items() if n == 1] and lost
    for row in rows:
        if row.key[2] in lost:
            assert isinstance(row.error, errors.TimeoutError) and row.in_doubt
            assert row.error.in_doubt and LATE in str(row.error)
        else:
            assert row.error is None and not row.in_doubt
