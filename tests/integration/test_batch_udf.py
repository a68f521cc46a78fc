"""Batch UDF rows give the function's return value as single-key ``udf()`` does, and a failed
call's Lua error text."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor

CODE = b"""
function add(rec, a, b)
  return a + b
end

function boom(rec)
  error("kaboom")
end
"""


async def test_batch_udf_rows_return_values_and_lua_errors(fl: Flavor, set_name: str) -> None:
    module = f"{set_name}_batchudf"
    name = await fl.run(fl.db.udf_register(CODE, f"{module}.lua"))
    try:
        s = fl.db.namespace("test").set(set_name)
        await fl.run(s.key(1).put({"x": 1}))
        await fl.run(s.key(2).put({"x": 2}))
        try:
            added = await fl.run(s.keys([1, 2]).udf(module, "add", 2, 3))
        except errors.UdfError as exc:
            if "not implemented" in str(exc):
                pytest.skip("this server has no UDF execution")
            raise
        assert [row.udf_result for row in added] == [5, 5]
        assert added.ok and all(row.record is None for row in added)
        assert await fl.run(s.key(1).udf(module, "add", 2, 3)) == 5
        failed = await fl.run(s.keys([1]).udf(module, "boom"))
        assert not failed.ok
        error = failed[0].error
        assert isinstance(error, errors.UdfError) and "kaboom" in str(error)
        assert failed[0].udf_result is None
    finally:
        await fl.run(fl.db.udf_remove(name))
