"""Value-list and relative selectors, every map return shape, on every client flavor."""

from __future__ import annotations

from aerospike_fluent import MapOrder, Return

from ._flavor import Flavor


async def test_list_value_list_and_relative_rank(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("l")
    await fl.run(k.put({"l": [0, 4, 5, 9, 11, 15]}))
    rec = await fl.run(k.bin("l").list.get_by_values([9, 0, 99], Return.RANK).execute())
    assert rec is not None and rec["l"] == [3, 0]  # ranks in the order asked for
    rec = await fl.run(k.bin("l").list.get_by_value_relative_rank_range(5, -1).execute())
    assert rec is not None and rec["l"] == [4, 5, 9, 11, 15]
    rec = await fl.run(k.bin("l").list.get_by_value_relative_rank_range(3, 0, 2).execute())
    assert rec is not None and sorted(rec["l"]) == [4, 5]
    rec = await fl.run(k.bin("l").list.remove_by_values([0, 15], Return.COUNT).execute())
    assert rec is not None and rec["l"] == 2
    rec = await fl.run(
        k.bin("l").list.remove_by_value_relative_rank_range(9, 1, None, Return.VALUE).execute()
    )
    assert rec is not None and rec["l"] == [11]
    got = await fl.run(k.get())
    assert got is not None and got["l"] == [4, 5, 9]


async def test_map_relative_ranges_and_value_lists(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("m")
    await fl.run(k.put({"m": {}}))
    await fl.run(
        k.bin("m")
        .map.create(MapOrder.KEY_ORDERED)
        .bin("m")
        .map.update({"a": 17, "e": 2, "f": 15, "j": 10})
        .execute()
    )
    rec = await fl.run(
        k.bin("m").map.get_by_key_relative_index_range("b", 0, None, Return.KEY).execute()
    )
    assert rec is not None and rec["m"] == ["e", "f", "j"]
    rec = await fl.run(
        k.bin("m").map.get_by_value_relative_rank_range(11, -1, 2, Return.VALUE).execute()
    )
    assert rec is not None and rec["m"] == [10, 15]
    rec = await fl.run(k.bin("m").map.get_by_values([2, 10]).execute())
    assert rec is not None and sorted(rec["m"]) == ["e", "j"]
    rec = await fl.run(
        k.bin("m").map.remove_by_key_relative_index_range("f", 1, 1, Return.KEY).execute()
    )
    assert rec is not None and rec["m"] == ["j"]
    rec = await fl.run(
        k.bin("m").map.remove_by_value_relative_rank_range(15, 0, None, Return.COUNT).execute()
    )
    assert rec is not None and rec["m"] == 2
    got = await fl.run(k.get())
    assert got is not None and got["m"] == {"e": 2}


async def test_map_return_shapes(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("shapes")
    await fl.run(k.put({"m": {"a": 1, "b": 2, "c": 3}}))
    rec = await fl.run(k.bin("m").map.get_by_index_range(0, 2, Return.KEY_VALUE).execute())
    assert rec is not None and rec["m"] == [("a", 1), ("b", 2)]
    rec = await fl.run(k.bin("m").map.get_by_index_range(1, 2, Return.ORDERED_MAP).execute())
    assert rec is not None and rec["m"] == {"b": 2, "c": 3}
    rec = await fl.run(k.bin("m").map.get_by_rank(0, Return.UNORDERED_MAP).execute())
    assert rec is not None and rec["m"] == {"a": 1}
