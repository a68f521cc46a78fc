"""The official C client's index API against the embedded server: context, expression,
collection and geo indexes and queries through them."""

from __future__ import annotations

from typing import Any

import aerospike
from aerospike import predicates as p
from aerospike_helpers import cdt_ctx  # type: ignore[import-untyped]
from aerospike_helpers.expressions import arithmetic as arith  # type: ignore[import-untyped]
from aerospike_helpers.expressions import base as exp


def _ids(query: Any) -> list[int]:
    return sorted(bins["id"] for _, _, bins in query.results())


def test_a_context_index(client: Any, set_name: str) -> None:
    for i in range(6):
        client.put(("test", set_name, i), {"id": i, "prefs": {"scores": [i * 10, 1]}})
    ctx = [cdt_ctx.cdt_ctx_map_key("scores"), cdt_ctx.cdt_ctx_list_index(0)]
    name = f"{set_name}_ctx"
    client.index_cdt_create(
        "test", set_name, "prefs", aerospike.INDEX_TYPE_DEFAULT, aerospike.INDEX_NUMERIC, name, ctx
    )
    try:
        q = client.query("test", set_name)
        q.where(p.between("prefs", 15, 40), ctx)
        assert _ids(q) == [2, 3, 4]
    finally:
        client.index_remove("test", name)


def test_an_expression_index(client: Any, set_name: str) -> None:
    for i in range(-3, 4):
        client.put(("test", set_name, i), {"id": i, "a": i * 2})
    name = f"{set_name}_exp"
    expr = arith.Abs(exp.IntBin("a")).compile()
    client.index_expr_create(
        "test", set_name, aerospike.INDEX_TYPE_DEFAULT, aerospike.INDEX_NUMERIC, expr, name
    )
    try:
        q = client.query("test", set_name)
        q.where_with_expr(expr, p.equals(None, 4))
        assert _ids(q) == [-2, 2]
        q = client.query("test", set_name)
        q.where_with_index_name(name, p.between(None, 6, 6))
        assert _ids(q) == [-3, 3]
    finally:
        client.index_remove("test", name)


def test_collection_and_geo_indexes(client: Any, set_name: str) -> None:
    point = aerospike.GeoJSON({"type": "Point", "coordinates": [2, 2]})
    client.put(("test", set_name, 1), {"id": 1, "tags": ["red", "blue"], "loc": point})
    far = aerospike.GeoJSON({"type": "Point", "coordinates": [20, 20]})
    client.put(("test", set_name, 2), {"id": 2, "tags": ["green"], "loc": far})
    names = (f"{set_name}_tags", f"{set_name}_loc")
    client.index_list_create("test", set_name, "tags", aerospike.INDEX_STRING, names[0])
    client.index_geo2dsphere_create("test", set_name, "loc", names[1])
    try:
        q = client.query("test", set_name)
        q.where(p.contains("tags", aerospike.INDEX_TYPE_LIST, "blue"))
        assert _ids(q) == [1]
        square = aerospike.GeoJSON(
            {"type": "Polygon", "coordinates": [[[0, 0], [5, 0], [5, 5], [0, 5], [0, 0]]]}
        )
        q = client.query("test", set_name)
        q.where(p.geo_within_geojson_region("loc", square.dumps()))
        assert _ids(q) == [1]
        q = client.query("test", set_name)
        q.where(p.geo_within_radius("loc", 20, 20.01, 5000))
        assert _ids(q) == [2]
    finally:
        for name in names:
            client.index_remove("test", name)


def test_an_index_query_pages_through_every_record_once(client: Any, set_name: str) -> None:
    # The C client resumes each partition after the (bval, digest) of its last record, so
    # index order, the bvals sent with records and resume must agree.
    n = 1500
    for i in range(n):
        client.put(("test", set_name, i), {"id": i, "v": (i * 37) % n - n // 2})
    name = f"{set_name}_v"
    client.index_integer_create("test", set_name, "v", name)
    try:
        query = client.query("test", set_name)
        query.where(p.between("v", -100, 299))
        query.paginate()
        query.max_records = 7
        seen: list[int] = []
        for _ in range(n):
            page = query.results()
            seen.extend(bins["id"] for _, _, bins in page)
            if query.is_done():
                break
        expected = [i for i in range(n) if -100 <= (i * 37) % n - n // 2 <= 299]
        assert sorted(seen) == expected
    finally:
        client.index_remove("test", name)
