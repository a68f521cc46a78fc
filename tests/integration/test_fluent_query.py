"""Queries on every client flavor: streaming, collect/count/first, expressions, pages."""

from __future__ import annotations

from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import F, errors

from ._flavor import Flavor


async def _load(fl: Flavor, db: af.Client[Any], set_name: str, n: int = 50) -> af.RecordSet[Any]:
    s = db.namespace("test").set(set_name)
    res = await fl.run(
        s.put_many(
            {i: {"age": i, "country": "US" if i % 2 else "FR", "name": f"n{i}"} for i in range(n)}
        )
    )
    res.raise_on_error()
    return s


async def test_stream_collect_count_first(fl: Flavor, set_name: str) -> None:
    s = await _load(fl, fl.db, set_name)
    seen = [r["age"] async for r in fl.iterate(s.query().chunk_size(7))]
    assert sorted(seen) == list(range(50))
    assert len(await fl.run(s.query().collect())) == 50
    assert await fl.run(s.query().count()) == 50
    assert len(await fl.run(s.query().limit(5).collect())) == 5
    first = await fl.run(s.query().where(F.bin("age") == 7).first())
    assert first is not None and first["age"] == 7


async def test_where_expressions_and_ael(fl: Flavor, set_name: str) -> None:
    s = await _load(fl, fl.db, set_name)
    expected = len([i for i in range(50) if i > 25 and i % 2])
    both = (F.bin("age") > 25) & (F.bin("country") == "US")
    assert await fl.run(s.query().where(both).count()) == expected
    assert await fl.run(s.query().where("$.age > 25 and $.country == 'US'").count()) == expected
    recs = await fl.run(s.query().where("$.age < 3").select("name").collect())
    assert sorted(r.bins["name"] for r in recs) == ["n0", "n1", "n2"]
    assert all(set(r.bins) == {"name"} for r in recs)


async def test_slow_consumer_outlives_the_client_total_timeout(
    fl: Flavor, seeds: str, set_name: str
) -> None:
    async with fl.connect(seeds, total_timeout=0.2) as short:
        s = await _load(fl, short, set_name, 20)
        seen = 0
        async for _ in fl.iterate(s.query().chunk_size(5)):
            seen += 1
            if seen == 10:
                await fl.sleep(0.5)  # well past the client's 200 ms total timeout
        assert seen == 20


async def test_stream_close_early(fl: Flavor, set_name: str) -> None:
    s = await _load(fl, fl.db, set_name)
    taken = []
    async with fl.stream(s.query().chunk_size(5)) as stream:
        async for record in stream:
            taken.append(record["age"])
            break
    assert len(taken) == 1 and 0 <= taken[0] < 50
    assert await fl.run(s.query().count()) == 50  # and the client still answers


async def test_secondary_index_range(fl: Flavor, set_name: str) -> None:
    s = await _load(fl, fl.db, set_name)
    index = await fl.run(s.create_index("age", "numeric"))
    try:
        recs = await fl.run(s.query().where_index("age").between(20, 29).collect())
        assert sorted(r["age"] for r in recs) == list(range(20, 30))
        eq = await fl.run(s.query().where_index("age").equals(7).collect())
        assert [r["age"] for r in eq] == [7]
    finally:
        await fl.run(s.drop_index(index))


async def test_pages_resume(fl: Flavor, set_name: str) -> None:
    s = await _load(fl, fl.db, set_name)
    seen: list[int] = []
    page = await fl.run(s.query().page(20))
    seen += [r["age"] for r in page]
    while page.token is not None:
        page = await fl.run(s.query().resume(page.token).page(20))
        seen += [r["age"] for r in page]
    assert sorted(seen) == list(range(50))


async def test_namespace_query_and_truncate(fl: Flavor, set_name: str) -> None:
    s = await _load(fl, fl.db, set_name, 5)
    everywhere = fl.db.namespace("test").query()
    assert await fl.run(everywhere.where(F.set_name() == set_name).count()) == 5
    await fl.run(s.truncate())
    assert await fl.run(s.query().count()) == 0


async def test_where_on_a_string_user_key(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for k in ("a", "b"):
        await fl.run(s.key(k).put({"k": k}, send_key=True))
    found = await fl.run(s.query().where(F.key() == "a").collect())
    assert [r["k"] for r in found] == ["a"]


async def test_two_where_calls_both_apply(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"age": i} for i in range(30)}))
    q = s.query().where("$.age > 10").where(F.bin("age") < 20)
    assert await fl.run(q.count()) == 9
    assert await fl.run(q.where("$.age != 15").count()) == 8


async def test_two_where_calls_on_a_key_chain_both_apply(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("k")
    await fl.run(k.put({"a": 5}))
    with pytest.raises(errors.FilteredOutError):
        await fl.run(k.where("$.a > 1").where("$.a > 6").get())
    rec = await fl.run(k.where("$.a > 1").where("$.a < 6").get())
    assert rec is not None and rec["a"] == 5
