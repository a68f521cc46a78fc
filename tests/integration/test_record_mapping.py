"""A record reads like a mapping of its bins, pickles and copies; batch rows expose their bins
and can be found by user key."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Mapping

import pytest

from aerospike_fluent import Record

from ._flavor import Flavor


async def test_a_record_is_a_read_only_mapping_of_its_bins(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("ann")
    await fl.run(k.put({"name": "Ann", "age": 30}, send_key=True))
    rec: Record = await fl.run(k.get())
    assert isinstance(rec, Mapping)  # registered as a virtual subclass
    assert len(rec) == 2 and sorted(rec) == ["age", "name"]
    assert dict(rec) == {"name": "Ann", "age": 30}
    assert sorted(rec.keys()) == ["age", "name"]
    assert sorted(rec.items()) == [("age", 30), ("name", "Ann")]
    assert sorted(rec.values(), key=str) == [30, "Ann"]
    assert rec.user_key == "ann"
    assert "Some(" not in repr(rec)
    for clone in (pickle.loads(pickle.dumps(rec)), copy.copy(rec), copy.deepcopy(rec)):
        assert clone == rec and clone.user_key == "ann" and clone.ttl == rec.ttl


async def test_batch_rows_expose_bins_and_are_found_by_user_key(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("a").put({"n": 1}))
    result = await fl.run(s.keys(["a", "b", 7]).get())
    assert result.by_key("a").bins == {"n": 1}
    assert result.by_key("b").bins is None
    assert result.by_key(7).record is None
    with pytest.raises(KeyError):
        result.by_key("zzz")
