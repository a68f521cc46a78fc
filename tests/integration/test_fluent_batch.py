"""Many keys and mixed batches, on every client flavor: one request each, per-row errors kept."""

from __future__ import annotations

import pytest

from aerospike_fluent.errors import RecordExistsError

from ._flavor import Flavor


async def test_keys_put_get_exists_delete(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    put = await fl.run(s.keys(range(10)).put({"v": 1}))
    assert put.ok and len(put) == 10
    got = await fl.run(s.keys([0, 5, 99]).get())
    assert [r.bins if r else None for r in got.records] == [{"v": 1}, {"v": 1}, None]
    assert got.ok
    assert await fl.run(s.keys([1, 99]).exists()) == [True, False]
    deleted = await fl.run(s.keys([1, 2, 99]).delete())
    assert deleted.ok
    assert await fl.run(s.keys([1, 2]).exists()) == [False, False]


async def test_keys_operate_and_per_row_errors(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("a").put({"n": 1}))
    res = await fl.run(s.keys(["a", "b"]).add("n", 5).read("n").execute())
    # In a batch every operation answers (the crate forces it): one result per op on the bin.
    assert [r.record["n"] if r.record else None for r in res] == [6, 5]
    ins = await fl.run(s.keys(["a", "c"]).insert({"n": 0}))
    assert [row.key[2] for row in ins.errors] == ["a"]
    with pytest.raises(RecordExistsError):
        ins.raise_on_error()


async def test_put_many(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    res = await fl.run(s.put_many({f"k{i}": {"i": i} for i in range(20)}))
    assert res.ok
    got = await fl.run(s.keys([f"k{i}" for i in range(20)]).get("i"))
    assert [r["i"] for r in got.records if r] == list(range(20))


async def test_mixed_batch(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("u2").put({"name": "Bob"}))
    await fl.run(s.key("u3").put({"x": 1}))
    await fl.run(s.key("u4").put({"visits": 1}))
    result = await fl.run(
        fl.db.batch()
        .put(s.key("u1"), {"name": "Ann"})
        .get(s.key("u2"))
        .delete(s.key("u3"))
        .operate(s.key("u4").add("visits", 1).read("visits"))
        .get(s.key("nobody"))
        .insert(s.key("u2"), {"name": "dup"})
        .execute()
    )
    assert len(result) == 6
    assert result[1].record is not None and result[1].record["name"] == "Bob"
    assert result[0].record is not None and result[0].bins == {}  # a put reads nothing
    assert result[3].record is not None and result[3].bins == {"visits": 2}
    assert result[4].record is None
    assert [row.key[2] for row in result.errors] == ["u2"]
    assert await fl.run(s.key("u3").exists()) is False
    assert (await fl.run(s.key("u1").get())) is not None
