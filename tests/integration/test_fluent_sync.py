"""Every verb family through the blocking API (same builders, blocking terminals)."""

from __future__ import annotations

import pytest

import aerospike_fluent as af
from aerospike_fluent import F
from aerospike_fluent.errors import ClientError, RecordExistsError


def test_sync_key_verbs(sdb: af.SyncClient, set_name: str) -> None:
    k = sdb.namespace("test").set(set_name).key("u1")
    k.put({"name": "Ann", "age": 30})
    with pytest.raises(RecordExistsError):
        k.insert({"a": 1})
    k.update({"age": 31})
    rec = k.get()
    assert rec is not None and rec.bins == {"name": "Ann", "age": 31}
    assert k.exists()
    rec = k.add("age", 1).append("name", "!").read("age", "name").execute()
    assert rec is not None and rec.bins == {"age": 32, "name": "Ann!"}
    k.touch()
    k.replace({"x": 1})
    assert k.get("x") is not None
    assert k.delete()
    assert k.get() is None


def test_sync_batch_query_cdt(sdb: af.SyncClient, set_name: str) -> None:
    s = sdb.namespace("test").set(set_name)
    assert s.keys(range(30)).put({"v": 1, "l": []}).ok
    assert s.keys(range(30)).bin("l").list.append(1).execute().ok
    assert sum(1 for r in s.keys(range(31)).get().records if r) == 30
    assert s.query().where("$.v == 1").count() == 30
    assert len(list(s.query().limit(7))) == 7
    page = s.query().page(10)
    assert len(page) == 10 and page.token is not None
    res = sdb.batch().get(s.key(1)).delete(s.key(2)).execute()
    assert res.ok and res[0].record is not None
    assert s.query().where(F.bin("v") == 1).count() == 29
    assert "build" in sdb.info("build")


@pytest.mark.anyio
async def test_sync_call_inside_event_loop_is_refused(sdb: af.SyncClient) -> None:
    with pytest.raises(ClientError):
        sdb.namespace("test").set("x").key("k").get()


@pytest.mark.parametrize("option", ["spin_wait_us", "tend_interval_ms", "max_conns_per_node"])
def test_out_of_range_connect_options_are_named_before_connecting(option: str) -> None:
    for value in (-1, 2**32):
        with pytest.raises(af.errors.InvalidArgumentError, match=option):
            af.sync.connect("127.0.0.1:1", **{option: value})
