"""Policies migrating code sets: a write only if the record's generation is below the one
given (``POLICY_GEN_GT``), and reads that touch their record (``read_touch_ttl_percent``)."""

from __future__ import annotations

import time
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent.errors import GenerationError, InvalidArgumentError, InvalidTypeError

from ._flavor import Flavor

TTL = 100


async def test_a_write_below_the_records_generation_is_refused(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    k = s.key("g")
    await fl.run(k.put({"a": 1}))
    await fl.run(k.put({"a": 2}))  # generation 2
    with pytest.raises(GenerationError):
        await fl.run(k.put({"a": 3}, generation=af.GenerationBelow(2)))
    await fl.run(k.update({"a": 4}, generation=af.GenerationBelow(3)))
    rec = await fl.run(k.get())
    assert rec is not None and rec.bins == {"a": 4} and rec.generation == 3
    with pytest.raises(GenerationError):
        await fl.run(k.delete(generation=af.GenerationBelow(3)))
    assert await fl.run(k.delete(generation=af.GenerationBelow(4))) is True
    await fl.run(s.put_many({"b": {"a": 1}, "c": {"a": 1}}))
    batch = fl.db.batch().put(s.key("b"), {"a": 2}, generation=af.GenerationBelow(1))
    batch = batch.update(s.key("c"), {"a": 3}, generation=af.GenerationBelow(2))
    done = await fl.run(batch.execute())
    assert [type(row.error) for row in done.errors] == [GenerationError]
    got = (await fl.run(s.keys(["b", "c"]).get())).records
    assert [r.bins if r else None for r in got] == [{"a": 1}, {"a": 3}]


def test_generation_below_is_an_int_and_checked() -> None:
    assert af.GenerationBelow(5) == 5 and repr(af.GenerationBelow(5)) == "GenerationBelow(5)"
    with pytest.raises(InvalidArgumentError, match="read_touch_ttl_percent"):
        af.Policy(read_touch_ttl_percent=101)
    with pytest.raises(InvalidTypeError, match="read_touch_ttl_percent"):
        af.Policy(read_touch_ttl_percent="80")  # type: ignore[arg-type]


async def _ttl(fl: Flavor, k: af.KeyRef[Any]) -> int:
    rec = await fl.run(k.get_header())
    assert rec is not None and rec.ttl is not None
    return int(rec.ttl)


async def test_reads_near_the_end_give_the_write_ttl_again(fl: Flavor, set_name: str) -> None:
    names = ("single", "batch", "operate", "never")
    plain = fl.db.namespace("test").set(set_name)
    for n in names:
        await fl.run(plain.key(n).put({"a": 1}, ttl=TTL))
    time.sleep(2.1)  # the TTL counts whole seconds
    before = {n: await _ttl(fl, plain.key(n)) for n in names}
    assert max(before.values()) <= TTL - 2
    touching = fl.db.with_policy(read_touch_ttl_percent=100).namespace("test").set(set_name)
    await fl.run(touching.key("single").get())
    await fl.run(touching.keys(["batch"]).get())
    await fl.run(touching.key("operate").read("a").execute())
    never = fl.db.with_policy(read_touch_ttl_percent=-1).namespace("test").set(set_name)
    await fl.run(never.key("never").get())
    deadline = time.monotonic() + 5  # a real server touches after it answers the read
    while time.monotonic() < deadline:
        after = {n: await _ttl(fl, plain.key(n)) for n in names}
        if min(after["single"], after["batch"], after["operate"]) >= TTL - 1:
            break
        time.sleep(0.05)
    assert after["single"] >= TTL - 1 and after["batch"] >= TTL - 1
    assert after["operate"] >= TTL - 1 and after["never"] <= before["never"]
    rec = await fl.run(plain.key("single").get_header())
    assert rec is not None and rec.generation == 1
