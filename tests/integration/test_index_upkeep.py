"""An index query sees every write made after the index was first queried: updates that move
a record into or out of the range, type changes, removed bins, deletes, list operations,
truncation, a drop and re-create; on a cluster, across partitions that move between nodes."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import RecordSet
from aerospike_fluent.server import EmbeddedCluster

from ._flavor import Flavor
from .test_indexes import _ids


def _in_range(values: dict[int, Any], low: int, high: int) -> list[int]:
    return sorted(i for i, v in values.items() if type(v) is int and low <= v <= high)


async def _put(fl: Flavor, s: RecordSet[Any], values: dict[int, Any], i: int, v: Any) -> None:
    await fl.run(s.key(i).put({"id": i, "a": v}))
    values[i] = v


async def test_updates_deletes_and_type_changes_after_a_query(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    values: dict[int, Any] = {}
    for i in range(60):
        await _put(fl, s, values, i, i)
    name = await fl.run(s.create_index("a", "numeric", name=f"{set_name}_a"))
    try:
        q = s.query().where_index("a").between(10, 49)
        assert await _ids(fl, q) == list(range(10, 50))
        for i in range(10, 20):
            await _put(fl, s, values, i, i + 1000)
        for i in range(50, 55):
            await _put(fl, s, values, i, i - 30)
        for i in range(30, 35):
            await fl.run(s.key(i).delete())
            del values[i]
        for i in range(35, 40):
            await _put(fl, s, values, i, f"text {i}")
        for i in range(40, 43):
            await fl.run(s.key(i).put({"a": None}))
            values[i] = None
        for i in range(100, 105):
            await _put(fl, s, values, i, 45)
        assert await _ids(fl, q) == _in_range(values, 10, 49)
        moved = s.query().where_index("a").between(1000, 2000)
        assert await _ids(fl, moved) == list(range(10, 20))
    finally:
        await fl.run(s.drop_index(name))


async def test_list_operations_move_records_in_a_list_index(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(8):
        await fl.run(s.key(i).put({"id": i, "tags": [i, 100 + i]}))
    name = await fl.run(s.create_index("tags", "numeric", name=f"{set_name}_t", collection="list"))
    try:
        q = s.query().where_index("tags", collection="list").between(0, 3)
        assert await _ids(fl, q) == [0, 1, 2, 3]
        await fl.run(s.key(1).bin("tags").list.remove_by_value(1).execute())
        await fl.run(s.key(6).bin("tags").list.append(2).execute())
        await fl.run(s.key(7).bin("tags").list.append(3).bin("tags").list.append(3).execute())
        assert await _ids(fl, q) == [0, 2, 3, 6, 7]
        assert await _ids(fl, s.query().where_index("tags", collection="list").equals(101)) == [1]
    finally:
        await fl.run(s.drop_index(name))


async def test_a_truncated_set_and_later_writes(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(20):
        await fl.run(s.key(i).put({"id": i, "a": i}))
    name = await fl.run(s.create_index("a", "numeric", name=f"{set_name}_a"))
    try:
        q = s.query().where_index("a").between(0, 100)
        assert await _ids(fl, q) == list(range(20))
        await fl.run(s.truncate())
        assert await _ids(fl, q) == []
        for i in range(50, 53):
            await fl.run(s.key(i).put({"id": i, "a": i}))
        assert await _ids(fl, q) == [50, 51, 52]
    finally:
        await fl.run(s.drop_index(name))


async def test_writes_while_an_index_is_dropped_show_once_it_is_back(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    values: dict[int, Any] = {}
    for i in range(30):
        await _put(fl, s, values, i, i)
    name = f"{set_name}_a"
    await fl.run(s.create_index("a", "numeric", name=name))
    q = s.query().where_index("a").between(0, 19)
    assert await _ids(fl, q) == list(range(20))
    await fl.run(s.drop_index(name))
    for i in range(0, 30, 3):
        await _put(fl, s, values, i, i + 500)
    await fl.run(s.create_index("a", "numeric", name=name))
    try:
        assert await _ids(fl, q) == _in_range(values, 0, 19)
    finally:
        await fl.run(s.drop_index(name))


@pytest.mark.anyio
async def test_partitions_moving_between_nodes_keep_their_index_in_step(
    aerospike_cluster: EmbeddedCluster, set_name: str, anyio_backend: str
) -> None:
    c = aerospike_cluster
    async with af.connect(c.seeds, tend_interval=0.2) as db:
        s = db.namespace("test").set(set_name)
        values = {i: i % 50 for i in range(300)}
        (await s.put_many({i: {"id": i, "a": v} for i, v in values.items()})).raise_on_error()
        await s.create_index("a", "numeric", name=f"{set_name}_a")
        q = s.query().where_index("a").between(10, 19)

        async def ids() -> list[int]:
            return sorted(r["id"] for r in await q.collect())

        async def seen(nodes: int) -> None:
            with anyio.fail_after(10):
                while len(db.node_names()) != nodes:
                    await anyio.sleep(0.05)

        assert await ids() == _in_range(values, 10, 19)
        added = c.add_node()
        await seen(4)
        for i in range(0, 300, 4):
            values[i] = 15 if values[i] > 19 else 90
            await s.key(i).put({"a": values[i]})
        assert await ids() == _in_range(values, 10, 19)
        added.remove()
        await seen(3)
        for i in range(1, 300, 4):
            values[i] = 12
            await s.key(i).put({"a": 12})
        assert await ids() == _in_range(values, 10, 19)
        c.nodes[0].kill()
        await seen(2)
        assert await ids() == _in_range(values, 10, 19)


async def test_background_operations_over_an_index_range(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"id": i, "a": i} for i in range(40)}))
    name = await fl.run(s.create_index("a", "numeric", name=f"{set_name}_a"))
    try:
        q = s.query().where_index("a").between(10, 19)
        assert await _ids(fl, q) == list(range(10, 20))
        for i in range(15, 25):
            await fl.run(s.key(i).put({"a": i + 100}))
        task = await fl.run(q.background().set_bins({"hit": True}).execute())
        assert await fl.run(task.wait(timeout=30)) == "complete"
        hits = await fl.run(s.query().where("$.hit == true").collect())
        assert sorted(r["id"] for r in hits) == list(range(10, 15))
    finally:
        await fl.run(s.drop_index(name))
