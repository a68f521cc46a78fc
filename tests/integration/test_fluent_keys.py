"""Single-key verbs on every client flavor (asyncio, trio, sync)."""

from __future__ import annotations

import pytest

import aerospike_fluent as af
from aerospike_fluent import F
from aerospike_fluent.errors import (
    FilteredOutError,
    GenerationError,
    InvalidArgumentError,
    RecordExistsError,
    RecordNotFoundError,
    UdfError,
)

from ._flavor import Flavor


async def test_put_get_variants(fl: Flavor, set_name: str) -> None:
    users = fl.db.namespace("test").set(set_name)
    await fl.run(users.key("u1").put({"name": "Ann", "age": 30, "tags": ["a"], "m": {"k": 1}}))
    rec = await fl.run(users.key("u1").get())
    assert rec is not None
    assert rec.bins == {"name": "Ann", "age": 30, "tags": ["a"], "m": {"k": 1}}
    assert rec.generation == 1
    only = await fl.run(users.key("u1").get("name"))
    assert only is not None and only.bins == {"name": "Ann"}
    header = await fl.run(users.key("u1").get_header())
    assert header is not None and header.bins == {} and header.generation == 1
    assert await fl.run(users.key("missing").get()) is None


async def test_insert_update_replace(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key(1)
    await fl.run(k.insert({"a": 1, "b": 2}))
    with pytest.raises(RecordExistsError):
        await fl.run(k.insert({"a": 1}))
    await fl.run(k.update({"a": 10}))
    assert (await fl.run(k.get())).bins == {"a": 10, "b": 2}
    await fl.run(k.replace({"c": 3}))
    assert (await fl.run(k.get())).bins == {"c": 3}
    await fl.run(k.replace_if_exists({"d": 4}))
    assert (await fl.run(k.get())).bins == {"d": 4}
    missing = fl.db.namespace("test").set(set_name).key(2)
    with pytest.raises(RecordNotFoundError):
        await fl.run(missing.update({"a": 1}))
    with pytest.raises(RecordNotFoundError):
        await fl.run(missing.replace_if_exists({"a": 1}))


async def test_exists_delete_touch(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key(b"bytes-key")
    assert not await fl.run(k.exists())
    await fl.run(k.put({"a": 1}, ttl=100))
    assert await fl.run(k.exists())
    await fl.run(k.touch(ttl=1000))
    rec = await fl.run(k.get_header())
    assert rec is not None and rec.ttl is not None and 100 < rec.ttl <= 1000
    assert await fl.run(k.delete(durable=False)) is True
    assert await fl.run(k.delete()) is False
    assert not await fl.run(k.exists())


async def test_ttl_generation_send_key(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("g")
    await fl.run(k.put({"a": 1}, ttl=af.NEVER_EXPIRE, send_key=True))
    rec = await fl.run(k.get())
    assert rec is not None and rec.ttl is None and rec.key is not None
    assert rec.key[2] == "g"
    await fl.run(k.put({"a": 2}, generation=1))
    with pytest.raises(GenerationError):
        await fl.run(k.put({"a": 3}, generation=1))


async def test_operate_chain_reads_after_writes(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("op")
    await fl.run(k.put({"age": 30, "log": "b"}))
    rec = await fl.run(
        k.add("age", 1).append("log", "c").prepend("log", "a").read("age", "log").execute()
    )
    assert rec is not None and rec.bins == {"age": 31, "log": "abc"}
    rec = await fl.run(k.bin("age").increment(-1).bin("new").set("x").read().execute())
    assert rec is not None and rec["age"] == 30 and rec["new"] == "x"
    rec = await fl.run(k.bin("new").remove().get())
    assert rec is not None and "new" not in rec


async def test_where_filter_on_key_ops(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("f")
    await fl.run(k.put({"age": 20}))
    assert (await fl.run(k.where(F.bin("age") > 10).get())) is not None
    with pytest.raises(FilteredOutError):
        await fl.run(k.where("$.age > 30").get())
    with pytest.raises(FilteredOutError):
        await fl.run(k.where(F.bin("age") > 30).put({"age": 1}))


async def test_udf_register_and_apply(fl: Flavor, set_name: str) -> None:
    module = f"{set_name}_math"  # a module of its own: a real server keeps what earlier runs left
    code = b"function add(rec, a, b)\n  return a + b\nend\n"
    name = await fl.run(fl.db.udf_register(code, f"{module}.lua"))
    assert name == f"{module}.lua"
    k = fl.db.namespace("test").set(set_name).key("udf")
    await fl.run(k.put({"x": 1}))
    try:
        result = await fl.run(k.udf(module, "add", 2, 3))
    except UdfError as exc:
        if "not implemented" in str(exc):
            pytest.skip("this server has no UDF execution")
        raise
    finally:
        await fl.run(fl.db.udf_remove(name))
    assert result == 5


async def test_a_chain_of_writes_returns_the_header_after_them(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("w")
    rec = await fl.run(k.add("n", 1).add("m", 2).execute())
    assert rec is not None and rec.bins == {} and rec.generation >= 1
    assert (
        await fl.run(fl.db.namespace("test").set(set_name).key("none").read("n").execute()) is None
    )


async def test_get_header_after_writes_gives_the_header_only(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("h")
    rec = await fl.run(k.add("n", 1).get_header())
    assert rec is not None and rec.bins == {} and rec.generation >= 1
    stored = await fl.run(k.get())
    assert stored is not None and stored["n"] == 1  # the write ran


async def test_a_write_verb_after_reads_is_refused(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("r")
    with pytest.raises(InvalidArgumentError, match="reads would be lost"):
        _ = k.read("n").put({"n": 1})
    await fl.run(k.add("n", 1).put({"m": 2}))  # writes only: still one operate
    stored = await fl.run(k.get())
    assert stored is not None and stored.bins == {"n": 1, "m": 2}
