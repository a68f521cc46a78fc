"""Queries: streaming, collect/count/first, expressions and AEL, index ranges, resumable pages."""

from __future__ import annotations

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import F

pytestmark = pytest.mark.anyio


async def _load(db: af.AsyncClient, set_name: str, n: int = 50) -> af.RecordSet[af.Async]:
    s = db.namespace("test").set(set_name)
    res = await s.put_many(
        {i: {"age": i, "country": "US" if i % 2 else "FR", "name": f"n{i}"} for i in range(n)}
    )
    res.raise_on_error()
    return s


async def test_stream_collect_count_first(db: af.AsyncClient, set_name: str) -> None:
    s = await _load(db, set_name)
    seen = [r["age"] async for r in s.query().chunk_size(7)]
    assert sorted(seen) == list(range(50))
    assert len(await s.query().collect()) == 50
    assert await s.query().count() == 50
    assert len(await s.query().limit(5).collect()) == 5
    first = await s.query().where(F.bin("age") == 7).first()
    assert first is not None and first["age"] == 7


async def test_where_expressions_and_ael(db: af.AsyncClient, set_name: str) -> None:
    s = await _load(db, set_name)
    expected = len([i for i in range(50) if i > 25 and i % 2])
    assert await s.query().where((F.bin("age") > 25) & (F.bin("country") == "US")).count() == (
        expected
    )
    assert await s.query().where("$.age > 25 and $.country == 'US'").count() == expected
    recs = await s.query().where("$.age < 3").select("name").collect()
    assert sorted(r.bins["name"] for r in recs) == ["n0", "n1", "n2"]
    assert all(set(r.bins) == {"name"} for r in recs)


async def test_slow_consumer_outlives_the_client_total_timeout(seeds: str, set_name: str) -> None:
    async with af.connect(seeds, total_timeout_ms=200) as short:
        s = await _load(short, set_name, 20)
        seen = 0
        async for _ in s.query().chunk_size(5):
            seen += 1
            if seen == 10:
                await anyio.sleep(0.5)  # well past the client's 200 ms total timeout
        assert seen == 20


async def test_stream_close_early(db: af.AsyncClient, set_name: str) -> None:
    s = await _load(db, set_name)
    async with s.query().chunk_size(5).stream() as stream:
        async for _ in stream:
            break


async def test_secondary_index_range(db: af.AsyncClient, set_name: str) -> None:
    s = await _load(db, set_name)
    index = await s.create_index("age", "numeric")
    try:
        recs = await s.query().where_index("age").between(20, 29).collect()
        assert sorted(r["age"] for r in recs) == list(range(20, 30))
        eq = await s.query().where_index("age").equals(7).collect()
        assert [r["age"] for r in eq] == [7]
    finally:
        await s.drop_index(index)


async def test_pages_resume(db: af.AsyncClient, set_name: str) -> None:
    s = await _load(db, set_name)
    seen: list[int] = []
    page = await s.query().page(20)
    seen += [r["age"] for r in page]
    while page.token is not None:
        page = await s.query().resume(page.token).page(20)
        seen += [r["age"] for r in page]
    assert sorted(seen) == list(range(50))


async def test_namespace_query_and_truncate(db: af.AsyncClient, set_name: str) -> None:
    s = await _load(db, set_name, 5)
    assert await db.namespace("test").query().where(F.set_name() == set_name).count() == 5
    await s.truncate()
    assert await s.query().count() == 0
