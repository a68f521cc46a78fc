"""Queries that name their index (field 21, an empty bin name in the range), replayed as the
Rust crate 3.x sends them (`Filter::*_by_index`), answered as a real 8.1.2 node answers
(issue 49 item 13): the index is found by its name alone, and its own value type and
collection decide what matches."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import aerospike
import pytest

from . import _replay
from ._replay import (
    GEOJSON,
    INDEX_CONTEXT,
    INDEX_EXPRESSION,
    INDEX_NAME,
    INDEX_RANGE,
    INDEX_TYPE,
    STRING,
)

pytestmark = pytest.mark.compat

LIST, MAP_KEYS, MAP_VALUES = 1, 2, 3
MAX = 2**63 - 1
# Points (i, i) for i in 0..3.
REGION = {
    "type": "Polygon",
    "coordinates": [[[-0.5, -0.5], [3.5, -0.5], [3.5, 3.5], [-0.5, 3.5], [-0.5, -0.5]]],
}


def _str_equal(value: str) -> bytes:
    return _replay.index_range("", STRING, value.encode(), value.encode())


def _within(region: dict[str, Any]) -> bytes:
    text = json.dumps(region).encode()
    return _replay.index_range("", GEOJSON, text, text)


@pytest.fixture(scope="module")
def indexed() -> str:
    """The set the module's indexes are on (created once: a real node builds each)."""
    return "compat_" + uuid.uuid4().hex[:10]


@pytest.fixture(scope="module")
def indexes(client: Any, indexed: str) -> Iterator[dict[str, str]]:
    """Ten records of `indexed` and an index of each kind on them, by what each indexes."""
    set_name = indexed
    for i in range(10):
        point = aerospike.GeoJSON({"type": "Point", "coordinates": [i, i]})
        bins = {"age": 20 + i, "name": f"n{i % 3}", "tags": [i, i + 100], "m": {f"k{i}": i}}
        client.put(("test", set_name, i), {**bins, "loc": point})
    names = {
        kind: f"{set_name}_{kind}" for kind in ("age", "name", "tags", "keys", "values", "loc")
    }
    client.index_single_value_create("test", set_name, "age", aerospike.INDEX_NUMERIC, names["age"])
    client.index_single_value_create(
        "test", set_name, "name", aerospike.INDEX_STRING, names["name"]
    )
    client.index_list_create("test", set_name, "tags", aerospike.INDEX_NUMERIC, names["tags"])
    client.index_map_keys_create("test", set_name, "m", aerospike.INDEX_STRING, names["keys"])
    client.index_map_values_create("test", set_name, "m", aerospike.INDEX_NUMERIC, names["values"])
    client.index_single_value_create(
        "test", set_name, "loc", aerospike.INDEX_GEO2DSPHERE, names["loc"]
    )
    try:
        yield names
    finally:
        for name in names.values():
            client.index_remove("test", name)


def _query(
    server_address: tuple[str, int], set_name: str, fields: list[tuple[int, bytes]]
) -> tuple[int, set[bytes]]:
    """The query's final result code and the digests of the records it sent."""
    replies = _replay.exchange(server_address, _replay.query(set_name, fields), stream=True)
    return replies[-1].result_code, {r.digest for r in replies[:-1] if r.digest}


def _digests(set_name: str, ids: list[int]) -> set[bytes]:
    return {bytes(aerospike.calc_digest("test", set_name, i)) for i in ids}


MATCHES = [
    ("integer range to the top", "age", _replay.int_range("", 25, MAX), None, [5, 6, 7, 8, 9]),
    ("string equality", "name", _str_equal("n1"), None, [1, 4, 7]),
    ("list contains", "tags", _replay.int_range("", 105, 105), LIST, [5]),
    ("list without a type field", "tags", _replay.int_range("", 100, 102), None, [0, 1, 2]),
    ("map keys contain", "keys", _str_equal("k3"), MAP_KEYS, [3]),
    ("map keys with another type field", "keys", _str_equal("k3"), LIST, [3]),
    ("map values in a range", "values", _replay.int_range("", 3, 4), MAP_VALUES, [3, 4]),
    ("geo within a region", "loc", _within(REGION), None, [0, 1, 2, 3]),
    ("another value type", "name", _replay.int_range("", 0, MAX), None, []),
]


@pytest.mark.parametrize(
    ("index", "index_range", "collection", "ids"),
    [case[1:] for case in MATCHES],
    ids=[case[0] for case in MATCHES],
)
def test_a_query_by_index_name_reads_what_the_index_holds(
    server_address: tuple[str, int],
    indexes: dict[str, str],
    indexed: str,
    index: str,
    index_range: bytes,
    collection: int | None,
    ids: list[int],
) -> None:
    fields = [(INDEX_NAME, indexes[index].encode()), (INDEX_RANGE, index_range)]
    if collection is not None:
        fields.append((INDEX_TYPE, bytes([collection])))

    code, digests = _query(server_address, indexed, fields)

    assert (code, digests) == (0, _digests(indexed, ids))


def test_an_index_of_another_set_holds_none_of_the_querys_records(
    server_address: tuple[str, int], client: Any, indexes: dict[str, str], set_name: str
) -> None:
    other = set_name + "_b"
    client.put(("test", other, 1), {"age": 30})
    fields = [(INDEX_NAME, indexes["age"].encode()), (INDEX_RANGE, _replay.int_range("", 0, MAX))]

    assert _query(server_address, other, fields) == (0, set())


# [BIN, INT, "age"]: an index expression.
AGE_EXPRESSION = bytes([0x93, 0x51, 0x02, 0xA3]) + b"age"
# [list index 0]: an index context.
FIRST_ITEM = bytes([0x92, 0x10, 0x00])
PARAMETER, INDEX_NOT_FOUND = 4, 201
REFUSED = [
    ("a bin name too", "age", _replay.int_range("age", 25, 30), [], PARAMETER),
    ("a context too", "tags", _replay.int_range("", 100, 102), [(INDEX_CONTEXT, FIRST_ITEM)], 4),
    (
        "an expression too",
        "age",
        _replay.int_range("", 25, 30),
        [(INDEX_EXPRESSION, AGE_EXPRESSION)],
        4,
    ),
    ("an empty name", "", _replay.int_range("", 25, 30), [], PARAMETER),
    ("a 64-byte name", "i" * 64, _replay.int_range("", 25, 30), [], PARAMETER),
    ("a name no index has", "nowhere", _replay.int_range("", 25, 30), [], INDEX_NOT_FOUND),
    ("no name, bin or expression", None, _replay.int_range("", 25, 30), [], PARAMETER),
]


@pytest.mark.parametrize(
    ("index", "index_range", "extra", "code"),
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
def test_what_a_node_refuses_of_a_query_by_index_name(
    server_address: tuple[str, int],
    indexes: dict[str, str],
    indexed: str,
    index: str | None,
    index_range: bytes,
    extra: list[tuple[int, bytes]],
    code: int,
) -> None:
    fields = [(INDEX_RANGE, index_range), *extra]
    if index is not None:
        fields.append((INDEX_NAME, indexes.get(index, index).encode()))

    assert _query(server_address, indexed, fields) == (code, set())
