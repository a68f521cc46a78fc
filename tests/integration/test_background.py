"""Background queries: operations or a record UDF applied on the servers to every record a
query selects, with a task to follow; on one node and on a 3-node cluster."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor

BUMP = b"""
function bump(rec, bin, n)
  rec[bin] = (rec[bin] or 0) + n
  aerospike:update(rec)
end
"""


async def test_background_operations_reach_every_selected_record(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"age": i} for i in range(40)}))
    q = s.query().where("$.age >= 30")
    task = await fl.run(q.background().add("age", 100).set_bins({"old": True}).execute())
    assert task.task_id > 0
    assert await fl.run(task.wait(timeout=30)) == "complete"
    assert await fl.run(task.status()) == "complete"
    progress = await fl.run(task.progress())
    assert progress["complete"] is True and progress["succeeded"] == 10
    assert progress["percent"] == 100
    ages = sorted(r["age"] for r in await fl.run(s.query().collect()))
    assert ages == [*range(30), *range(130, 140)]
    assert await fl.run(s.query().where("$.old == true").count()) == 10


async def test_a_background_udf_runs_on_each_record(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    module = f"{set_name}.lua"
    await fl.run(fl.db.udf_register(BUMP, name=module))
    await fl.run(s.put_many({i: {"n": i} for i in range(20)}))
    task = await fl.run(s.query().background_udf(set_name, "bump", "n", 1000))
    assert await fl.run(task.wait(timeout=30)) == "complete"
    assert sorted(r["n"] for r in await fl.run(s.query().collect())) == list(range(1000, 1020))
    await fl.run(fl.db.udf_remove(module))


async def test_background_input_is_checked_before_sending(fl: Flavor, set_name: str) -> None:
    q = fl.db.namespace("test").set(set_name).query()
    with pytest.raises(errors.InvalidArgumentError, match="needs operations"):
        await fl.run(q.background().execute())
    with pytest.raises(errors.InvalidArgumentError, match="module"):
        await fl.run(q.background_udf("", "f"))
