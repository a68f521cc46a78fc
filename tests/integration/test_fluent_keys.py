"""Single-key verbs through the async client, on asyncio and trio."""

from __future__ import annotations

import pytest

import aerospike_fluent as af
from aerospike_fluent import F
from aerospike_fluent.errors import (
    FilteredOutError,
    GenerationError,
    RecordExistsError,
    RecordNotFoundError,
    UdfError,
)

pytestmark = pytest.mark.anyio


async def test_put_get_variants(db: af.AsyncClient, set_name: str) -> None:
    users = db.namespace("test").set(set_name)
    await users.key("u1").put({"name": "Ann", "age": 30, "tags": ["a"], "m": {"k": 1}})
    rec = await users.key("u1").get()
    assert rec is not None
    assert rec.bins == {"name": "Ann", "age": 30, "tags": ["a"], "m": {"k": 1}}
    assert rec.generation == 1
    only = await users.key("u1").get("name")
    assert only is not None and only.bins == {"name": "Ann"}
    header = await users.key("u1").get_header()
    assert header is not None and header.bins == {} and header.generation == 1
    assert await users.key("missing").get() is None


async def test_insert_update_replace(db: af.AsyncClient, set_name: str) -> None:
    k = db.namespace("test").set(set_name).key(1)
    await k.insert({"a": 1, "b": 2})
    with pytest.raises(RecordExistsError):
        await k.insert({"a": 1})
    await k.update({"a": 10})
    assert (await k.get()).bins == {"a": 10, "b": 2}  # type: ignore[union-attr]
    await k.replace({"c": 3})
    assert (await k.get()).bins == {"c": 3}  # type: ignore[union-attr]
    await k.replace_if_exists({"d": 4})
    assert (await k.get()).bins == {"d": 4}  # type: ignore[union-attr]
    missing = db.namespace("test").set(set_name).key(2)
    with pytest.raises(RecordNotFoundError):
        await missing.update({"a": 1})
    with pytest.raises(RecordNotFoundError):
        await missing.replace_if_exists({"a": 1})


async def test_exists_delete_touch(db: af.AsyncClient, set_name: str) -> None:
    k = db.namespace("test").set(set_name).key(b"bytes-key")
    assert not await k.exists()
    await k.put({"a": 1}, ttl=100)
    assert await k.exists()
    await k.touch(ttl=1000)
    rec = await k.get_header()
    assert rec is not None and rec.ttl is not None and 100 < rec.ttl <= 1000
    assert await k.delete(durable=False) is True
    assert await k.delete() is False
    assert not await k.exists()


async def test_ttl_generation_send_key(db: af.AsyncClient, set_name: str) -> None:
    k = db.namespace("test").set(set_name).key("g")
    await k.put({"a": 1}, ttl=af.NEVER_EXPIRE, send_key=True)
    rec = await k.get()
    assert rec is not None and rec.ttl is None and rec.key is not None
    assert rec.key[2] == "g"
    await k.put({"a": 2}, generation=1)
    with pytest.raises(GenerationError):
        await k.put({"a": 3}, generation=1)


async def test_operate_chain_reads_after_writes(db: af.AsyncClient, set_name: str) -> None:
    k = db.namespace("test").set(set_name).key("op")
    await k.put({"age": 30, "log": "b"})
    rec = await k.add("age", 1).append("log", "c").prepend("log", "a").read("age", "log").execute()
    assert rec is not None and rec.bins == {"age": 31, "log": "abc"}
    rec = await k.bin("age").increment(-1).bin("new").set("x").read().execute()
    assert rec is not None and rec["age"] == 30 and rec["new"] == "x"
    rec = await k.bin("new").remove().get()
    assert rec is not None and "new" not in rec


async def test_where_filter_on_key_ops(db: af.AsyncClient, set_name: str) -> None:
    k = db.namespace("test").set(set_name).key("f")
    await k.put({"age": 20})
    assert (await k.where(F.bin("age") > 10).get()) is not None
    with pytest.raises(FilteredOutError):
        await k.where("$.age > 30").get()
    with pytest.raises(FilteredOutError):
        await k.where(F.bin("age") > 30).put({"age": 1})


async def test_udf_register_and_apply(db: af.AsyncClient, set_name: str) -> None:
    code = b"function add(rec, a, b)\n  return a + b\nend\n"
    name = await db.udf_register(code, "fluent_math.lua")
    k = db.namespace("test").set(set_name).key("udf")
    await k.put({"x": 1})
    try:
        result = await k.udf("fluent_math", "add", 2, 3)
    except UdfError as exc:
        if "not implemented" in str(exc):
            pytest.skip("this server has no UDF execution")
        raise
    assert result == 5
    await db.udf_remove(name)
