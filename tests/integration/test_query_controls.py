"""Query controls: records without bins, pacing, the short-query hint, and truncation at a
cut-off time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor


async def test_no_bins_returns_metadata_only(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"a": i, "b": "x"} for i in range(5)}))
    records = await fl.run(s.query().no_bins().collect())
    assert len(records) == 5
    assert all(dict(r.bins) == {} and r.generation == 1 for r in records)
    assert await fl.run(s.query().select("a").first()) is not None


async def test_paced_and_short_queries_return_every_record(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"a": i} for i in range(30)}))
    for q in (s.query().records_per_second(5000), s.query().short()):
        assert sorted(r["a"] for r in await fl.run(q.collect())) == list(range(30))
        assert await fl.run(q.where("$.a >= 10").count()) == 20
    with pytest.raises(errors.InvalidArgumentError, match="records per second"):
        s.query().records_per_second(-1)


async def test_a_short_query_cannot_be_paced(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key(1).put({"a": 1}))
    with pytest.raises(errors.ParameterError):
        await fl.run(s.query().records_per_second(5000).short().collect())


async def test_truncate_before_keeps_later_records(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"a": i} for i in range(4)}))
    await fl.sleep(0.05)
    cut = datetime.now(UTC)
    await fl.sleep(0.05)
    await fl.run(s.put_many({i: {"a": i} for i in range(4, 7)}))
    await fl.run(s.truncate(before=cut))
    assert sorted(r["a"] for r in await fl.run(s.query().collect())) == [4, 5, 6]
    with pytest.raises(errors.ParameterError):
        await fl.run(s.truncate(before=datetime.now(UTC) + timedelta(days=1)))
