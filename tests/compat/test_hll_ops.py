"""HyperLogLog operations and expressions of the official client against the server: the counts
and error classes the Python client's own HLL tests expect from a real server."""

from __future__ import annotations

from typing import Any

import pytest
from aerospike import exception as ex
from aerospike_helpers import expressions as exp  # type: ignore[import-untyped]
from aerospike_helpers.operations import hll_operations as ho  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat
BIN_NOT_FOUND: type[Exception] = ex.BinNotFound  # type: ignore[attr-defined]


def _keys(n: int, start: int = 0) -> list[str]:
    return [f"key{i}" for i in range(start, n)]


@pytest.fixture
def records(client: Any, set_name: str) -> list[tuple[str, str, int]]:
    """Five records as the Python client's HLL suite sets them up."""
    keys = [("test", set_name, x) for x in range(5)]
    for x, key in enumerate(keys):
        client.put(key, {"label": x})
        client.operate(
            key,
            [
                ho.hll_init("hll_bine", 10),
                ho.hll_add("hll_bin", _keys(x + 1), 8),
                ho.hll_add("mh_bin", _keys(x + 1), 6, 12),
                ho.hll_add("hll_binl", _keys(100), 8),
                ho.hll_add("hll_binlh", _keys(50), 8),
                ho.hll_add("hll_bin_big", _keys(1000), 10),
                ho.hll_add("hll_binu", ["key6", "key7", "key8", "key9", "key10"], 10),
            ],
        )
    return keys


def _bins(client: Any, keys: list[Any], name: str) -> list[Any]:
    return [client.get(k)[2][name] for k in keys]


def test_counts_are_the_real_servers(client: Any, records: list[Any]) -> None:
    _, _, res = client.operate(records[0], [ho.hll_refresh_count("hll_binl")])
    assert res["hll_binl"] == 97
    _, _, res = client.operate(records[0], [ho.hll_get_count("hll_bin_big")])
    assert abs(res["hll_bin_big"] - 1000) <= 1000 * 1.04 / 32
    _, _, res = client.operate(records[0], [ho.hll_describe("mh_bin")])
    assert res["mh_bin"] == [6, 12]
    _, _, res = client.operate(records[0], [ho.hll_add("hll_bine", ["key1", "key2", "key3"])])
    assert res["hll_bine"] == 3
    _, _, res = client.operate(records[0], [ho.hll_get_count("none")])
    assert res["none"] is None


def test_unions_and_intersections(client: Any, records: list[Any]) -> None:
    hll_bins = _bins(client, records, "hll_bin")
    _, _, res = client.operate(records[0], [ho.hll_get_union_count("hll_binu", hll_bins)])
    assert res["hll_binu"] == 10
    mh = _bins(client, records[:4], "mh_bin")
    _, _, res = client.operate(records[4], [ho.hll_get_intersect_count("mh_bin", mh)])
    assert res["mh_bin"] == 1
    hll = client.get(records[0])[2]["hll_binl"]
    _, _, res = client.operate(records[4], [ho.hll_get_similarity("hll_binlh", [hll])])
    assert abs(res["hll_binlh"] - 0.5) < 0.15
    u = _bins(client, records, "hll_binu")
    _, _, union = client.operate(records[4], [ho.hll_get_union("hll_bin", [u[4]])])
    _, _, res = client.operate(
        records[4],
        [
            ho.hll_get_intersect_count("hll_bin", [union["hll_bin"]]),
            ho.hll_get_intersect_count("hll_binu", [union["hll_bin"]]),
        ],
    )
    assert res == {"hll_bin": 5, "hll_binu": 5}
    client.operate(records[4], [ho.hll_set_union("hll_bine", [u[4]], {"flags": 8})])
    _, _, res = client.operate(records[4], [ho.hll_describe("hll_bine")])
    assert res["hll_bine"] == [10, 0]


@pytest.mark.parametrize(
    ("ops", "error"),
    [
        ([ho.hll_init("new", 0, 0)], ex.InvalidRequest),
        ([ho.hll_init("new", 4, 52)], ex.InvalidRequest),
        ([ho.hll_init("new", 17, 48)], ex.InvalidRequest),
        ([ho.hll_init("mh_bin", 6, 8, {"flags": 1})], ex.BinExistsError),
        ([ho.hll_init("new", 6, 8, {"flags": 2})], BIN_NOT_FOUND),
        ([ho.hll_fold("hll_bin", 2)], ex.InvalidRequest),
        ([ho.hll_fold("mh_bin", 4)], ex.OpNotApplicable),
        ([ho.hll_refresh_count("new")], BIN_NOT_FOUND),
        ([ho.hll_add("new", ["a"], policy={"flags": 1})], ex.OpNotApplicable),
        ([ho.hll_get_union_count("hll_binu", [])], ex.InvalidRequest),
        ([ho.hll_get_count("label")], ex.BinIncompatibleType),
    ],
)
def test_errors(client: Any, records: list[Any], ops: list[Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        client.operate(records[0], ops)


def test_set_union_needs_allow_fold(client: Any, records: list[Any]) -> None:
    hlls = _bins(client, records, "hll_binl")
    with pytest.raises(ex.OpNotApplicable):
        client.operate(records[4], [ho.hll_set_union("hll_bine", hlls)])
    intersect = _bins(client, records, "hll_binl")
    with pytest.raises(ex.InvalidRequest):
        client.operate(records[4], [ho.hll_get_intersect_count("hll_binl", intersect[:4])])


def test_hll_expressions(client: Any, records: list[Any]) -> None:
    count = exp.GT(exp.HLLGetCount(exp.HLLBin("hll_binl")), 90).compile()
    assert client.get(records[0], {"expressions": count})[2]["label"] == 0
    desc = exp.Eq(exp.HLLDescribe(exp.HLLBin("mh_bin")), [6, 12]).compile()
    assert client.get(records[0], {"expressions": desc})[2]["label"] == 0
    contains = exp.Eq(exp.HLLMayContain(["key1"], exp.HLLBin("hll_binl")), 1).compile()
    assert client.get(records[0], {"expressions": contains})[2]["label"] == 0
    miss = exp.LT(exp.HLLGetCount(exp.HLLBin("hll_binl")), 90).compile()
    with pytest.raises(ex.FilteredOut):
        client.get(records[0], {"expressions": miss})
