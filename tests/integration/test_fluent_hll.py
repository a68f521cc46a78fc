"""HyperLogLog operations and HLL read expressions, on every client flavor."""

from __future__ import annotations

import pytest

from aerospike_fluent import F, HllWrite
from aerospike_fluent.errors import BinNotFoundError, OpNotApplicableError, ParameterError

from ._flavor import Flavor


def _keys(n: int, start: int = 0) -> list[str]:
    return [f"key{i}" for i in range(start, n)]


async def test_add_count_and_describe(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("h")
    rec = await fl.run(k.bin("h").hll.add(_keys(100), index_bits=8).execute())
    assert rec is not None and 80 < rec["h"] <= 100  # registers that grew
    rec = await fl.run(k.bin("h").hll.refresh_count().execute())
    assert rec is not None and rec["h"] == 97  # what a real server answers
    rec = await fl.run(k.bin("h").hll.describe().execute())
    assert rec is not None and rec["h"] == [8, 0]
    got = await fl.run(k.get())
    assert got is not None and isinstance(got["h"], bytes)


async def test_unions_and_similarity(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    a, b = s.key("a"), s.key("b")
    await fl.run(a.bin("h").hll.add(_keys(50), index_bits=10, minhash_bits=12).execute())
    await fl.run(b.bin("h").hll.add(_keys(100, 25), index_bits=10, minhash_bits=12).execute())
    other = await fl.run(b.get())
    assert other is not None
    sketch = other["h"]
    rec = await fl.run(
        a.bin("h")
        .hll.get_union_count([sketch])
        .bin("u")
        .read_exp(F.hll_bin("h").hll.get_intersect_count([sketch]))
        .execute()
    )
    assert rec is not None
    assert abs(rec["h"] - 100) <= 10 and abs(rec["u"] - 25) <= 8
    rec = await fl.run(a.bin("h").hll.get_similarity([sketch]).execute())
    assert rec is not None and abs(rec["h"] - 0.25) < 0.1
    await fl.run(a.bin("h").hll.set_union([sketch]).execute())
    rec = await fl.run(a.bin("h").hll.get_count().execute())
    assert rec is not None and abs(rec["h"] - 100) <= 10


async def test_errors_and_flags(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("e")
    await fl.run(k.put({"x": 1}))
    with pytest.raises(OpNotApplicableError):
        await fl.run(k.bin("h").hll.add(["a"]).execute())
    with pytest.raises(BinNotFoundError):
        await fl.run(k.bin("h").hll.refresh_count().execute())
    with pytest.raises(ParameterError):
        await fl.run(k.bin("h").hll.init(3).execute())
    await fl.run(k.bin("h").hll.init(8, flags=HllWrite.CREATE_ONLY).execute())
    await fl.run(k.bin("h").hll.init(9, flags=HllWrite.CREATE_ONLY | HllWrite.NO_FAIL).execute())
    await fl.run(k.bin("h").hll.fold(6).execute())
    rec = await fl.run(k.bin("h").hll.describe().execute())
    assert rec is not None and rec["h"] == [6, 0]


async def test_hll_expression_filters(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("big").bin("h").hll.add(_keys(200), index_bits=10).execute())
    await fl.run(s.key("small").bin("h").hll.add(_keys(3), index_bits=10).execute())
    n = await fl.run(s.query().where(F.hll_bin("h").hll.get_count() > 100).count())
    assert n == 1
    n = await fl.run(s.query().where(F.bin("h").hll.may_contain(["key150"]) == 1).count())
    assert n == 1
