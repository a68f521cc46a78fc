"""`db.metrics()` counts a refused call under its command and result code."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor


async def test_a_refused_insert_is_counted_under_its_code(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("a")
    await fl.run(k.put({"n": 1}))
    with pytest.raises(errors.RecordExistsError):
        await fl.run(k.insert({"n": 2}))
    puts = fl.db.metrics().calls("put", namespace="test")
    assert sum(c.count for c in puts) == 2
    assert sum(c.errors for c in puts) == 1
    assert sum(c.result_codes.get(5, 0) for c in puts) == 1
