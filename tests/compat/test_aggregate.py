"""Stream-UDF aggregations of the official client (``query.apply``) against the server: each
node's partial results, reduced by the client's own Lua."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike import predicates as p
from aerospike_helpers import expressions as xp  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

NAME = f"engine_compat_agg_{uuid.uuid4().hex[:8]}"  # unique per run: servers are shared
MODULE = (Path(__file__).parents[1] / "lua" / "aggregations.lua").read_text()
N = 30


@pytest.fixture(scope="module")
def agg_client(server_address: tuple[str, int], lua_path: Path) -> Iterator[Any]:
    """An official client whose Lua path holds the module (the client runs the final reduce)."""
    lua = lua_path
    (lua / f"{NAME}.lua").write_text(MODULE)
    host, port = server_address
    c = aerospike.client({"hosts": [(host, port)], "lua": {"user_path": str(lua)}}).connect()
    try:
        c.udf_put(str(lua / f"{NAME}.lua"))
        for _ in range(50):
            if any(m["name"] == f"{NAME}.lua" for m in c.udf_list()):
                break
            time.sleep(0.1)
        yield c
        c.udf_remove(f"{NAME}.lua")
    finally:
        c.close()


@pytest.fixture
def loaded(agg_client: Any, set_name: str) -> str:
    for i in range(N):
        agg_client.put(("test", set_name, i), {"n": i, "group": "ab"[i % 2]})
    return set_name


def _apply(client: Any, set_name: str, function: str, *args: Any, where: Any = None) -> Any:
    q = client.query("test", set_name)
    if where is not None:
        q.where(where)
    q.apply(NAME, function, list(args))
    return q.results()


def test_count_sum_and_group_by(agg_client: Any, loaded: str) -> None:
    assert _apply(agg_client, loaded, "count") == [N]
    assert _apply(agg_client, loaded, "sum_bin", "n") == [sum(range(N))]
    assert _apply(agg_client, loaded, "by_group") == [{"a": N // 2, "b": N // 2}]


def test_the_servers_lua_library_groupby_math_sum_and_logging(agg_client: Any, loaded: str) -> None:
    [groups] = _apply(agg_client, loaded, "grouped_n")
    assert sorted(groups) == ["a", "b"]
    assert sorted(r["n"] for r in groups["a"]) == list(range(0, N, 2))
    assert sorted(r["n"] for r in groups["b"]) == list(range(1, N, 2))
    assert _apply(agg_client, loaded, "total_n") == [sum(range(N))]


def test_an_index_filter_selects_the_records(agg_client: Any, loaded: str) -> None:
    index = f"{loaded}_n"
    agg_client.index_single_value_create("test", loaded, "n", aerospike.INDEX_NUMERIC, index)
    try:
        got = _apply(agg_client, loaded, "sum_bin", "n", where=p.between("n", 3, 7))
        assert got == [3 + 4 + 5 + 6 + 7]
    finally:
        agg_client.index_remove("test", index)


def test_a_lua_error_fails_the_query(agg_client: Any, loaded: str) -> None:
    with pytest.raises(ex.AerospikeError, match="kaboom"):
        _apply(agg_client, loaded, "boom")


def test_a_filter_expression_on_an_aggregation_is_refused(agg_client: Any, loaded: str) -> None:
    q = agg_client.query("test", loaded)
    q.apply(NAME, "count", [])
    with pytest.raises(ex.AerospikeError) as caught:
        q.results(policy={"expressions": xp.GT(xp.IntBin("n"), 1).compile()})
    assert caught.value.code == 16  # UNSUPPORTED_FEATURE


def test_an_empty_stream_gives_no_value(agg_client: Any, set_name: str) -> None:
    assert _apply(agg_client, f"{set_name}_empty", "count") == []
    assert _apply(agg_client, f"{set_name}_empty", "by_group") == []


def _one_per_partition(set_name: str, n: int) -> list[int]:
    """`n` integer keys of `set_name` whose records all fall in different partitions."""
    keys: list[int] = []
    seen: set[int] = set()
    k = 0
    while len(keys) < n:
        digest = aerospike.calc_digest("test", set_name, k)
        pid = int.from_bytes(digest[:2], "little") & 4095
        if pid not in seen:
            seen.add(pid)
            keys.append(k)
        k += 1
    return keys


def test_each_partition_is_a_stream_of_its_own(agg_client: Any, set_name: str) -> None:
    keys = _one_per_partition(set_name, 20)
    for k in keys:
        agg_client.put(("test", set_name, k), {"n": k})
    # nil from a step ends the stream of its partition only
    stopped = keys[3]
    assert sorted(_apply(agg_client, set_name, "stop_at", stopped)) == sorted(
        k for k in keys if k != stopped
    )
    # an aggregate without a reduce sends one value per partition
    assert _apply(agg_client, set_name, "count_each") == [1] * len(keys)
