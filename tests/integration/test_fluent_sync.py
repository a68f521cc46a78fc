"""Every verb family in one sequence, and connect-option checks, on every client flavor; the
flavors themselves; and the one thing only a sync client does: refusing to block an event loop."""

from __future__ import annotations

import pytest
import sniffio

import aerospike_fluent as af
from aerospike_fluent import F
from aerospike_fluent.errors import ClientError, RecordExistsError

from ._flavor import Flavor


async def test_each_flavor_runs_its_own_client(fl: Flavor) -> None:
    kind = "async" if fl.is_async else "sync"
    assert repr(fl.db) == f"<aerospike_fluent {kind} client, connected>"
    if fl.is_async:
        assert sniffio.current_async_library() == fl.name
    else:
        with pytest.raises(sniffio.AsyncLibraryNotFoundError):
            sniffio.current_async_library()


async def test_key_verbs(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("u1")
    await fl.run(k.put({"name": "Ann", "age": 30}))
    with pytest.raises(RecordExistsError):
        await fl.run(k.insert({"a": 1}))
    await fl.run(k.update({"age": 31}))
    rec = await fl.run(k.get())
    assert rec is not None and rec.bins == {"name": "Ann", "age": 31}
    assert await fl.run(k.exists())
    rec = await fl.run(k.add("age", 1).append("name", "!").read("age", "name").execute())
    assert rec is not None and rec.bins == {"age": 32, "name": "Ann!"}
    await fl.run(k.touch())
    await fl.run(k.replace({"x": 1}))
    assert await fl.run(k.get("x")) is not None
    assert await fl.run(k.delete())
    assert await fl.run(k.get()) is None


async def test_batch_query_cdt(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    assert (await fl.run(s.keys(range(30)).put({"v": 1, "l": []}))).ok
    assert (await fl.run(s.keys(range(30)).bin("l").list.append(1).execute())).ok
    assert sum(1 for r in (await fl.run(s.keys(range(31)).get())).records if r) == 30
    assert await fl.run(s.query().where("$.v == 1").count()) == 30
    assert len([r async for r in fl.iterate(s.query().limit(7))]) == 7
    page = await fl.run(s.query().page(10))
    assert len(page) == 10 and page.token is not None
    res = await fl.run(fl.db.batch().get(s.key(1)).delete(s.key(2)).execute())
    assert res.ok and res[0].record is not None
    assert await fl.run(s.query().where(F.bin("v") == 1).count()) == 29
    assert "build" in await fl.run(fl.db.info("build"))


@pytest.mark.anyio
async def test_sync_call_inside_event_loop_is_refused(sdb: af.SyncClient, set_name: str) -> None:
    with pytest.raises(ClientError):
        sdb.namespace("test").set(set_name).key("k").get()


@pytest.mark.parametrize("option", ["spin_wait", "tend_interval", "max_conns_per_node"])
async def test_out_of_range_connect_options_are_named_before_connecting(
    fl: Flavor, option: str
) -> None:
    for value in (-1, 2**32):
        with pytest.raises(af.errors.InvalidArgumentError, match=option):
            async with fl.connect("127.0.0.1:1", **{option: value}):
                pass
