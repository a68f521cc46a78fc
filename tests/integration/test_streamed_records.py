"""A streamed record (built from the scan's bytes, its key and bins only when first asked for)
behaves as a record read by key: mapping, key, user key, equality, pickling, repr."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import aerospike_fluent as af

from ._flavor import Flavor


async def _streamed(fl: Flavor, q: af.Query[Any]) -> list[af.Record]:
    return [r async for r in fl.iterate(q)]


async def test_a_streamed_record_reads_as_the_record_read_by_key(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("ann").put({"name": "Ann", "age": 30, "tags": ["a", 1]}, send_key=True))
    (streamed,) = await _streamed(fl, s.query())
    got = await fl.run(s.key("ann").get())
    # user_key before anything else: read from the bytes without building the key tuple
    assert streamed.user_key == "ann"
    assert streamed == got and got == streamed
    assert streamed.key == got.key and streamed.key is streamed.key
    assert streamed.bins is streamed.bins and streamed.bins == got.bins
    assert streamed["tags"] == ["a", 1] and streamed.get("nope", 5) == 5
    assert "age" in streamed and len(streamed) == 3 and sorted(streamed) == sorted(got)
    assert sorted(streamed.items()) == sorted(got.items())
    assert streamed.generation == got.generation and streamed.ttl == got.ttl
    assert repr(streamed) == repr(got)
    for clone in (pickle.loads(pickle.dumps(streamed)), copy.copy(streamed)):
        assert clone == got and clone.user_key == "ann"


async def test_every_accessor_works_on_a_record_not_read_before(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key(1).put({"n": 1, "sq": 1}, send_key=True))
    got = await fl.run(s.key(1).get())
    reads: list[Any] = [
        lambda r: r["n"],
        lambda r: r.get("sq"),
        lambda r: "n" in r,
        len,
        sorted,
        lambda r: sorted(r.keys()),
        lambda r: sorted(r.values()),
        lambda r: sorted(r.items()),
        lambda r: r.key,
        lambda r: r.user_key,
        repr,
        lambda r: pickle.loads(pickle.dumps(r)).bins,
        lambda r: r == got,
    ]
    for read in reads:
        (untouched,) = await _streamed(fl, s.query())
        assert read(untouched) == read(got)


async def test_records_of_different_chunks_share_their_bin_name_strings(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"some_bin_name": i} for i in range(6)}))
    records = await _streamed(fl, s.query().chunk_size(2))
    names = {id(next(iter(r.keys()))) for r in records}
    assert len(records) == 6 and len(names) == 1
