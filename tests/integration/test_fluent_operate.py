"""Operate completeness on every client flavor: touch and delete inside a chain, generation
checks on delete and touch, absolute expiry, and the one record shape every chain returns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from aerospike_fluent import ExpRead, ExpWrite, F
from aerospike_fluent.errors import (
    BinNotFoundError,
    GenerationError,
    InvalidArgumentError,
    InvalidTypeError,
    OpNotApplicableError,
    ParameterError,
    RecordNotFoundError,
    ServerError,
)

from ._flavor import Flavor


async def test_touch_inside_a_chain(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("t")
    await fl.run(k.put({"n": 1}))
    rec = await fl.run(k.add("n", 1).record.touch().read("n").execute(ttl=500))
    assert rec is not None and rec["n"] == 2
    assert rec.results == [None, None, 2]  # the touch has its slot, as every op does
    assert rec.generation == 2 and rec.ttl is not None and 490 <= rec.ttl <= 500
    assert k.record.touch().ops == (("touch", None),)


async def test_touch_in_a_chain_needs_the_record(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("missing")
    with pytest.raises(RecordNotFoundError):
        await fl.run(k.add("n", 1).record.touch().execute())
    assert await fl.run(k.exists()) is False
    await fl.run(k.put({"n": 1}))
    with pytest.raises(ParameterError):  # a real server refuses touch with a replace
        await fl.run(k.bin("n").set(2).record.touch().execute(exists="replace"))


async def test_delete_inside_a_chain(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    k = s.key("d")
    await fl.run(k.put({"a": 1, "b": 2}))
    rec = await fl.run(k.read("a").record.delete().execute())
    assert rec is not None and rec.bins == {"a": 1} and rec.results == [1, None]
    assert await fl.run(k.get()) is None
    await fl.run(k.put({"a": 1, "b": 2}))
    rec = await fl.run(k.record.delete().bin("c").set(3).read("a", "c").execute())
    assert rec is not None and rec.bins == {"a": None, "c": 3}
    got = await fl.run(k.get())
    assert got is not None and got.bins == {"c": 3} and got.generation == 2
    with pytest.raises(RecordNotFoundError):
        await fl.run(s.key("none").record.delete().execute())


async def test_generation_checks_on_delete_and_touch(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    k = s.key("g")
    await fl.run(k.put({"a": 1}))
    await fl.run(k.put({"a": 2}))
    with pytest.raises(GenerationError):
        await fl.run(k.touch(generation=1))
    with pytest.raises(GenerationError):
        await fl.run(k.delete(generation=1))
    await fl.run(k.touch(generation=2, ttl=300))
    head = await fl.run(k.get_header())
    assert head is not None and head.generation == 3
    assert await fl.run(k.delete(generation=3)) is True
    assert await fl.run(k.exists()) is False
    # a missing record is "not found" before any generation check, as on a real server
    with pytest.raises(RecordNotFoundError):
        await fl.run(k.touch(generation=7))
    assert await fl.run(k.delete(generation=7)) is False
    await fl.run(k.put({"a": 1}))
    with pytest.raises(GenerationError):
        await fl.run(k.record.delete().execute(generation=5))
    assert await fl.run(k.exists()) is True
    other = s.key("g2")
    await fl.run(other.put({"a": 1}))
    rows = await fl.run(fl.db.batch().delete(k, generation=9).delete(other, generation=1).execute())
    assert isinstance(rows[0].error, GenerationError) and rows[1].error is None
    assert await fl.run(k.exists()) is True and await fl.run(other.exists()) is False


async def test_expire_at(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    k = s.key("e")
    soon = datetime.now(UTC) + timedelta(hours=1)
    await fl.run(k.put({"a": 1}, expire_at=soon))
    head = await fl.run(k.get_header())
    assert head is not None and head.ttl is not None and 3590 <= head.ttl <= 3600
    await fl.run(k.touch(expire_at=soon + timedelta(hours=1)))
    head = await fl.run(k.get_header())
    assert head is not None and head.ttl is not None and 7190 <= head.ttl <= 7200
    rec = await fl.run(k.add("a", 1).execute(expire_at=soon))
    assert rec is not None and rec.ttl is not None and 3590 <= rec.ttl <= 3600
    rows = await fl.run(s.keys(["e1", "e2"]).put({"a": 1}, expire_at=soon))
    rows.raise_on_error()
    batch = await fl.run(fl.db.batch().put(s.key("e3"), {"a": 1}, expire_at=soon).execute())
    batch.raise_on_error()
    for name in ("e1", "e2", "e3"):
        head = await fl.run(s.key(name).get_header())
        assert head is not None and head.ttl is not None and 3590 <= head.ttl <= 3600


async def test_expire_at_is_checked_before_the_wire(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("x")
    with pytest.raises(InvalidArgumentError, match="timezone"):
        await fl.run(k.put({"a": 1}, expire_at=datetime.now() + timedelta(hours=1)))
    with pytest.raises(InvalidArgumentError, match="future"):
        await fl.run(k.touch(expire_at=datetime.now(UTC) - timedelta(seconds=5)))
    with pytest.raises(InvalidArgumentError, match="not both"):
        await fl.run(k.put({"a": 1}, ttl=5, expire_at=datetime.now(UTC) + timedelta(hours=1)))
    with pytest.raises(InvalidTypeError):
        await fl.run(k.put({"a": 1}, expire_at=3600))  # type: ignore[call-overload]
    assert await fl.run(k.exists()) is False


async def test_one_record_shape_for_every_chain(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for name in ("a", "b"):
        await fl.run(s.key(name).put({"n": 1, "l": [3, 1, 2]}))
    reads = s.key("a").add("n", 1).read("n").bin("l").list.size()
    single = await fl.run(reads.execute())
    rows = await fl.run(s.keys(["b"]).add("n", 1).read("n").bin("l").list.size().execute())
    row = rows[0].record
    assert single is not None and row is not None
    assert single.bins == row.bins == {"n": 2, "l": 3}
    assert single.results == row.results == [None, 2, 3]
    writes = await fl.run(s.key("a").add("n", 1).bin("x").set(5).execute())
    rows = await fl.run(s.keys(["b"]).add("n", 1).bin("x").set(5).execute())
    row = rows[0].record
    assert writes is not None and row is not None
    assert writes.bins == row.bins == {}
    assert writes.results == row.results == [None, None]
    assert writes.generation == row.generation == 3
    computed = await fl.run(s.key("a").bin("v").read_exp(F.int_bin("n") * 10).execute())
    assert computed is not None and computed.bins == {"v": 30} and computed.results == [30]
    plain = await fl.run(s.key("a").get())
    assert plain is not None and plain.results is None


async def test_expression_ops_take_typed_flags_and_ael(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("x")
    await fl.run(k.put({"a": 4, "b": 1}))
    rec = await fl.run(k.bin("t").read_exp("$.a * 10").bin("a").write_exp("$.a + $.b").execute())
    assert rec is not None and rec.bins == {"t": 40}
    with pytest.raises(BinNotFoundError):
        await fl.run(k.bin("new").write_exp(F.val(1), flags=ExpWrite.UPDATE_ONLY).execute())
    skip = ExpWrite.UPDATE_ONLY | ExpWrite.POLICY_NO_FAIL
    await fl.run(k.bin("new").write_exp(F.val(1), flags=skip).execute())
    with pytest.raises(ServerError) as exc:
        await fl.run(k.bin("a").write_exp(F.val(1), flags=ExpWrite.CREATE_ONLY).execute())
    assert exc.value.result_code == 6
    with pytest.raises(OpNotApplicableError):
        await fl.run(k.bin("b").write_exp(F.val(None)).execute())
    await fl.run(k.bin("b").write_exp(F.val(None), flags=ExpWrite.ALLOW_DELETE).execute())
    with pytest.raises(OpNotApplicableError):
        await fl.run(k.bin("a").write_exp(F.unknown()).execute())
    await fl.run(k.bin("a").write_exp(F.unknown(), flags=ExpWrite.EVAL_NO_FAIL).execute())
    rec = await fl.run(k.bin("u").read_exp(F.unknown(), flags=ExpRead.EVAL_NO_FAIL).execute())
    assert rec is not None and rec.get("u") is None
    got = await fl.run(k.get())
    assert got is not None and got.bins == {"a": 5}
