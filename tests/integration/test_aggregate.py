"""Stream-UDF aggregations: each node runs map / filter / aggregate / reduce over its records
(after the index filter and the ``where`` expression), the client runs the final reduce."""

from __future__ import annotations

from pathlib import Path

import pytest

from aerospike_fluent import F, errors

from ._flavor import Flavor

CODE = (Path(__file__).parents[1] / "lua" / "aggregations.lua").read_bytes()

N = 40


async def _loaded(fl: Flavor, set_name: str) -> str:
    module = f"{set_name}_agg"
    await fl.run(fl.db.udf_register(CODE, f"{module}.lua"))
    s = fl.db.namespace("test").set(set_name)
    for i in range(N):
        await fl.run(s.key(i).put({"n": i, "group": "ab"[i % 2]}))
    return module


async def test_count_and_sum_reduce_over_every_node(fl: Flavor, set_name: str) -> None:
    module = await _loaded(fl, set_name)
    q = fl.db.namespace("test").set(set_name).query()
    assert await fl.run(q.aggregate(module, "count")) == [N]
    assert await fl.run(q.aggregate(module, "sum_bin", "n")) == [sum(range(N))]


async def test_group_by_over_an_index_range(fl: Flavor, set_name: str) -> None:
    module = await _loaded(fl, set_name)
    s = fl.db.namespace("test").set(set_name)
    name = await fl.run(s.create_index("n", "numeric", name=f"{set_name}_n"))
    try:
        q = s.query().where_index("n").between(10, N - 1)
        assert await fl.run(q.aggregate(module, "by_group")) == [{"a": 15, "b": 15}]
        assert await fl.run(q.aggregate(module, "count")) == [N - 10]
    finally:
        await fl.run(s.drop_index(name))


async def test_an_index_filter_selects_the_records_streamed(fl: Flavor, set_name: str) -> None:
    module = await _loaded(fl, set_name)
    s = fl.db.namespace("test").set(set_name)
    name = await fl.run(s.create_index("n", "numeric", name=f"{set_name}_n"))
    try:
        q = s.query().where_index("n").between(5, 14)
        assert await fl.run(q.aggregate(module, "sum_bin", "n")) == [sum(range(5, 15))]
        evens = await fl.run(s.query().where_index("n").between(5, 9).aggregate(module, "evens"))
        assert sorted(evens) == [6, 8]
    finally:
        await fl.run(s.drop_index(name))


async def test_nothing_matched_reduces_to_no_value(fl: Flavor, set_name: str) -> None:
    module = await _loaded(fl, set_name)
    s = fl.db.namespace("test").set(set_name)
    empty = fl.db.namespace("test").set(f"{set_name}_empty").query()
    assert await fl.run(empty.aggregate(module, "count")) == []
    assert await fl.run(empty.aggregate(module, "by_group")) == []
    name = await fl.run(s.create_index("n", "numeric", name=f"{set_name}_n"))
    try:
        q = s.query().where_index("n").between(1000, 2000)
        assert await fl.run(q.aggregate(module, "count")) == []
    finally:
        await fl.run(s.drop_index(name))


async def test_a_lua_error_on_the_server_is_a_udf_error(fl: Flavor, set_name: str) -> None:
    module = await _loaded(fl, set_name)
    q = fl.db.namespace("test").set(set_name).query()
    with pytest.raises(errors.UdfError, match="kaboom"):
        await fl.run(q.aggregate(module, "boom"))


async def test_an_unknown_module_is_a_udf_error(fl: Flavor, set_name: str) -> None:
    q = fl.db.namespace("test").set(set_name).query()
    with pytest.raises(errors.UdfError, match="not found"):
        await fl.run(q.aggregate(f"{set_name}_missing", "count"))


def test_options_that_do_not_apply_are_refused(sdb: object, set_name: str) -> None:
    q = sdb.namespace("test").set(set_name).query()  # type: ignore[attr-defined]
    with pytest.raises(errors.InvalidArgumentError, match="limit"):
        q.limit(3).aggregate("m", "count")
    with pytest.raises(errors.InvalidArgumentError, match="module"):
        q.aggregate("", "count")
    # A server refuses a filter expression (code 16) or a short query (code 4) here.
    with pytest.raises(errors.InvalidArgumentError, match="where_index"):
        q.where(F.bin("n") > 1).aggregate("m", "count")
    with pytest.raises(errors.InvalidArgumentError, match="short"):
        q.short().aggregate("m", "count")
