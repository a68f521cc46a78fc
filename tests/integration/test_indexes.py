"""Secondary indexes from the fluent API: on a value inside a bin (CDT context), on an
expression, on collection elements, geospatial, by name; and the index list with its state."""

from __future__ import annotations

from typing import Any

import pytest

from aerospike_fluent import F, GeoJSON, RecordSet, cdt, errors
from aerospike_fluent import exp as E

from ._flavor import Flavor


def _point(x: float, y: float) -> str:
    return f'{{"type": "Point", "coordinates": [{x}, {y}]}}'


SQUARE = '{"type": "Polygon", "coordinates": [[[0,0],[5,0],[5,5],[0,5],[0,0]]]}'


async def _ids(fl: Flavor, q: object) -> list[int]:
    return sorted(r["id"] for r in await fl.run(q.collect()))  # type: ignore[attr-defined]


async def _drop(fl: Flavor, s: RecordSet[Any], names: list[str]) -> None:
    """Drop the test's indexes: a real server holds a limited number per namespace."""
    for name in names:
        await fl.run(s.drop_index(name))


async def test_a_context_index_queries_the_value_at_a_path(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(6):
        await fl.run(s.key(i).put({"id": i, "prefs": {"scores": [i * 10, 1]}}))
    path = [cdt.ctx_map_key("scores"), cdt.ctx_list_index(0)]
    name = await fl.run(s.create_index("prefs", "numeric", name=f"{set_name}_first", context=path))
    try:
        q = s.query().where_index("prefs", context=path).between(15, 40)
        assert await _ids(fl, q) == [2, 3, 4]
        by_name = s.query().where_index(index=name).between(0, 10)
        assert await _ids(fl, by_name) == [0, 1]
        listed = {i.name: i for i in await fl.run(fl.db.indexes("test"))}
        assert listed[name].context is not None and listed[name].bin == "prefs"
        assert listed[name].state == "RW" and listed[name].type == "numeric"
    finally:
        await fl.run(s.drop_index(name))
    assert name not in {i.name for i in await fl.run(fl.db.indexes("test"))}


async def test_an_expression_index(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(-3, 4):
        await fl.run(s.key(i).put({"id": i, "a": i * 2}))
    exp = abs(F.int_bin("a"))
    name = await fl.run(s.create_index(exp, "numeric", name=f"{set_name}_abs"))
    try:
        assert await _ids(fl, s.query().where_index(exp).equals(4)) == [-2, 2]
        assert await _ids(fl, s.query().where_index(index=name).between(5, 6)) == [-3, 3]
        (info,) = [i for i in await fl.run(fl.db.indexes()) if i.name == name]
        assert info.bin is None and info.expression is not None
    finally:
        await fl.run(s.drop_index(name))


async def test_collection_indexes(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key(1).put({"id": 1, "tags": ["red", "blue"], "m": {"x": 5}}))
    await fl.run(s.key(2).put({"id": 2, "tags": ["green"], "m": {"y": 9}}))
    names = [
        await fl.run(s.create_index("tags", "string", collection="list")),
        await fl.run(s.create_index("m", "string", collection="mapkeys")),
        await fl.run(s.create_index("m", "numeric", collection="mapvalues")),
    ]
    try:
        tags = s.query().where_index("tags", collection="list").contains("blue")
        assert await _ids(fl, tags) == [1]
        keys = s.query().where_index("m", collection="mapkeys").contains("y")
        assert await _ids(fl, keys) == [2]
        values = s.query().where_index("m", collection="mapvalues").between(0, 6)
        assert await _ids(fl, values) == [1]
    finally:
        await _drop(fl, s, names)


async def test_geo_within_and_contains(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key(1).put({"id": 1, "loc": GeoJSON(_point(2, 2))}))
    await fl.run(s.key(2).put({"id": 2, "loc": GeoJSON(_point(20, 20))}))
    await fl.run(s.key(3).put({"id": 3, "area": GeoJSON(SQUARE)}))
    names = [
        await fl.run(s.create_index("loc", "geo2dsphere")),
        await fl.run(s.create_index("area", "geo2dsphere")),
    ]
    try:
        assert await _ids(fl, s.query().where_index("loc").within(SQUARE)) == [1]
        near = s.query().where_index("loc").within_radius(20, 20.01, 5_000)
        assert await _ids(fl, near) == [2]
        holds = s.query().where_index("area").contains_point(_point(1, 1))
        assert await _ids(fl, holds) == [3]
    finally:
        await _drop(fl, s, names)


async def test_an_index_query_returns_every_record_of_a_crowded_partition(
    fl: Flavor, set_name: str
) -> None:
    # A real server sends a partition's records in index order, not digest order: none of
    # them may be taken for a record delivered twice.
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"v": i} for i in range(2000)}))
    name = await fl.run(s.create_index("v", "numeric", name=f"{set_name}_v"))
    try:
        got = await fl.run(s.query().where_index("v").between(100, 1899).collect())
        assert sorted(r["v"] for r in got) == list(range(100, 1900))
    finally:
        await fl.run(s.drop_index(name))


REFUSED_INDEX_EXPRESSIONS = [
    (F.str_bin("s"), "numeric", {}, "type 'string' does not match expected type 'numeric'"),
    (F.int_bin("a") > 1, "numeric", {}, "type 'bool' does not match expected type 'numeric'"),
    (F.float_bin("f"), "numeric", {}, "type 'float' does not match expected type 'numeric'"),
    (F.list_bin("l"), "numeric", {}, "type 'list' does not match expected type 'numeric'"),
    (F.int_bin("a"), "numeric", {"collection": "list"}, "expected type 'list'"),
    (F.list_bin("l"), "numeric", {"collection": "mapkeys"}, "expected type 'map'"),
    (E.ttl(), "numeric", {}, "bad 'exp'"),
    (E.since_update(), "numeric", {}, "bad 'exp'"),
    (F.int_bin("a") + E.void_time(), "numeric", {}, "bad 'exp'"),
    (E.set_name(), "string", {}, "bad 'exp'"),
    (E.record_size(), "numeric", {}, "bad 'exp'"),
    (F.key() == "x", "numeric", {}, "bad 'exp'"),
]


@pytest.mark.parametrize(("exp", "kind", "options", "message"), REFUSED_INDEX_EXPRESSIONS)
async def test_an_index_expression_of_the_wrong_type_or_on_metadata_is_refused(
    fl: Flavor, set_name: str, exp: Any, kind: Any, options: dict[str, Any], message: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    with pytest.raises(errors.ParameterError, match=message):
        await fl.run(s.create_index(exp, kind, name=f"{set_name}_x", **options))


async def test_index_expressions_on_bins_and_the_digest_are_taken(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(6):
        await fl.run(s.key(i).put({"id": i, "l": [i, 10 + i], "m": {f"k{i}": i}}))
    made: list[tuple[Any, Any, dict[str, Any]]] = [
        (E.digest_modulo(2), "numeric", {}),
        (F.list_bin("l"), "numeric", {"collection": "list"}),
        (F.map_bin("m"), "string", {"collection": "mapkeys"}),
    ]
    names = [
        await fl.run(s.create_index(e, kind, name=f"{set_name}_{n}", **options))
        for n, (e, kind, options) in enumerate(made)
    ]
    try:
        evens_or_odds = s.query().where_index(E.digest_modulo(2)).between(0, 1)
        assert await _ids(fl, evens_or_odds) == list(range(6))
        tens = s.query().where_index(F.list_bin("l"), collection="list").between(12, 13)
        assert await _ids(fl, tens) == [2, 3]
        keyed = s.query().where_index(F.map_bin("m"), collection="mapkeys").equals("k4")
        assert await _ids(fl, keyed) == [4]
    finally:
        await _drop(fl, s, names)


async def test_pages_of_a_list_index_meet_a_record_again_at_a_later_element(
    fl: Flavor, set_name: str
) -> None:
    # As a real server: one request sends a record once, at its first matching element after
    # the point it resumes from. With a = [2, 8] and b = [5] in one partition, the entries run
    # (2, a), (5, b), (8, a): pages of one record meet a, then b, then a again.
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"id": i, "tags": [100]} for i in range(300)}))
    by_partition: dict[int, list[int]] = {}
    for r in await fl.run(s.query().collect()):
        digest = r.key[3]
        by_partition.setdefault(int.from_bytes(digest[:2], "little") & 0xFFF, []).append(r["id"])
    a, b = next(ids for ids in by_partition.values() if len(ids) >= 2)[:2]
    await fl.run(s.key(a).put({"tags": [2, 8]}))
    await fl.run(s.key(b).put({"tags": [5]}))
    name = await fl.run(s.create_index("tags", "numeric", name=f"{set_name}_t", collection="list"))
    try:
        q = s.query().where_index("tags", collection="list").between(0, 10)
        assert sorted(await _ids(fl, q)) == sorted([a, b])
        seen: list[int] = []
        page = await fl.run(q.page(1))
        seen += [r["id"] for r in page]
        while page.token is not None and len(seen) < 6:
            page = await fl.run(q.resume(page.token).page(1))
            seen += [r["id"] for r in page]
        assert seen == [a, b, a]
    finally:
        await fl.run(s.drop_index(name))


async def test_an_index_on_a_namespace_the_server_lacks_is_refused(fl: Flavor) -> None:
    # A real server keeps the definition (up to 256 per namespace), so every run asks for the
    # same one: it is taken again, never added.
    s = fl.db.namespace("no_such_namespace").set("fluent_no_such_ns")
    with pytest.raises(errors.ServerError, match="namespace not found") as caught:
        await fl.run(s.create_index("n", "numeric", name="fluent_no_such_ns_n"))
    assert caught.value.result_code == 20
