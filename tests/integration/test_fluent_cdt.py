"""List and map operations with nested contexts, in operate and batch, on every client flavor."""

from __future__ import annotations

from aerospike_fluent import F, MapOrder, Return

from ._flavor import Flavor


async def test_list_and_map_in_one_operate(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("u1")
    await fl.run(k.put({"tags": ["a", "b"], "prefs": {}}))
    rec = await fl.run(
        k.bin("prefs")
        .map.put("theme", "dark")
        .bin("tags")
        .list.append("x")
        .bin("tags")
        .list.size()
        .execute()
    )
    assert rec is not None
    got = await fl.run(k.get())
    assert got is not None
    assert got["tags"] == ["a", "b", "x"] and got["prefs"] == {"theme": "dark"}


async def test_nested_contexts(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("doc")
    await fl.run(k.put({"doc": {"a": [{"k": 1}], "b": {}}}))
    await fl.run(
        k.bin("doc")
        .map.at_key("a")
        .list.at_index(0)
        .map.put("k2", 2)
        .bin("doc")
        .map.at_key_create("c", MapOrder.KEY_ORDERED)
        .map.put("z", 1)
        .execute()
    )
    rec = await fl.run(k.bin("doc").map.at_key("a").list.get(0).execute())
    assert rec is not None and rec["doc"] == {"k": 1, "k2": 2}
    full = await fl.run(k.get())
    assert full is not None and full["doc"]["c"] == {"z": 1}


async def test_list_selectors_and_return_types(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("l")
    await fl.run(k.put({"l": [5, 1, 4, 1]}))
    rec = await fl.run(k.bin("l").list.get_by_value(1, Return.COUNT).execute())
    assert rec is not None and rec["l"] == 2
    rec = await fl.run(k.bin("l").list.remove_by_value(1).bin("l").list.sort().execute())
    got = await fl.run(k.get())
    assert got is not None and got["l"] == [4, 5]


async def test_cdt_in_batch_and_expressions(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.keys(["a", "b"]).put({"tags": ["x"]}))
    res = await fl.run(s.keys(["a", "b"]).bin("tags").list.append("y").execute())
    assert res.ok
    n = await fl.run(s.query().where(F.list_bin("tags").list.size() == 2).count())
    assert n == 2


async def test_map_create_sets_order_top_level_and_nested(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("mc")
    await fl.run(k.bin("m").map.create(MapOrder.KEY_ORDERED).execute())
    await fl.run(k.bin("m").map.put("b", 1).bin("m").map.put("a", 2).execute())
    await fl.run(
        k.bin("doc")
        .map.create(MapOrder.UNORDERED)
        .bin("doc")
        .map.at_key("sub")
        .map.create(MapOrder.KEY_ORDERED)
        .bin("doc")
        .map.at_key("sub")
        .map.update({"z": 1, "y": 2})
        .execute()
    )
    got = await fl.run(k.get())
    assert got is not None
    assert list(got["m"]) == ["a", "b"]  # kept in key order by the server
    assert list(got["doc"]["sub"]) == ["y", "z"]


async def test_new_list_and_map_selectors(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("sel")
    await fl.run(k.put({"l": [5, 1, 4, 2, 3], "m": {"a": 3, "b": 1, "c": 2}}))
    rec = await fl.run(
        k.bin("l")
        .list.get_by_index_range(1, 2)
        .bin("m")
        .map.get_by_value_range(1, 3, Return.KEY)
        .execute()
    )
    assert rec is not None and rec["l"] == [1, 4] and sorted(rec["m"]) == ["b", "c"]
    rec = await fl.run(
        k.bin("l")
        .list.remove_by_rank_range(0, 2, Return.VALUE)
        .bin("m")
        .map.remove_by_rank(-1, Return.KEY)
        .execute()
    )
    assert rec is not None and sorted(rec["l"]) == [1, 2] and rec["m"] == "a"
    got = await fl.run(k.get())
    assert got is not None and got["l"] == [5, 4, 3] and got["m"] == {"b": 1, "c": 2}
