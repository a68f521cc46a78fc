"""Server-side time limits of Lua, as a real server sets them: a record UDF runs until the
transaction's deadline (the call's total timeout, else 1 s); an aggregation ends on the client
at its total timeout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors

AGGREGATIONS = (Path(__file__).parents[1] / "lua" / "aggregations.lua").read_bytes()
SPIN = b"""
function spin(rec) while true do end end

function count_to(rec, n)
  local i = 0
  while i < n do i = i + 1 end
  return i
end
"""
UDF_BAD_RESPONSE = 100
REAL_SERVER = bool(os.environ.get("AEROSPIKE_HOST"))


def _spin_key(sdb: af.SyncClient, set_name: str) -> tuple[af.KeyRef[af.Sync], str]:
    module = f"{set_name}_spin"
    sdb.udf_register(SPIN, f"{module}.lua")
    key = sdb.namespace("test").set(set_name).key("spin")
    key.put({"n": 1})
    return key, module


def test_an_endless_udf_with_no_timeout_stops_at_one_second(
    sdb: af.SyncClient, set_name: str
) -> None:
    key, module = _spin_key(sdb, set_name)
    with pytest.raises(errors.UdfError, match="UDF Execution Timeout") as info:
        key.timeout(0).udf(module, "spin")
    assert info.value.result_code == UDF_BAD_RESPONSE


def test_an_endless_udf_ends_at_the_calls_total_timeout(sdb: af.SyncClient, set_name: str) -> None:
    key, module = _spin_key(sdb, set_name)
    # The server stops Lua at the deadline the call sent; whether its answer or the client's
    # own timer comes first is a race (with a real server too).
    with pytest.raises((errors.TimeoutError, errors.UdfError), match=r"Timeout|timed out"):
        key.timeout(0.3).udf(module, "spin")
    # The server stopped it: the record is free for the next call.
    assert key.timeout(5).udf(module, "count_to", 10) == 10


def test_a_long_udf_runs_to_its_deadline_not_an_instruction_count(
    sdb: af.SyncClient, set_name: str
) -> None:
    # 360 million Lua instructions (about 1.5 s): more than a fixed budget of 200 million.
    key, module = _spin_key(sdb, set_name)
    assert key.timeout(60).udf(module, "count_to", 120_000_000) == 120_000_000


def _aggregated(sdb: af.SyncClient, set_name: str) -> tuple[af.RecordSet[af.Sync], str]:
    module = f"{set_name}_agg"
    sdb.udf_register(AGGREGATIONS, f"{module}.lua")
    s = sdb.namespace("test").set(set_name)
    for i in range(20):
        s.key(i).put({"n": i})
    return s, module


def test_a_slow_aggregation_raises_a_timeout_at_its_total_timeout(
    sdb: af.SyncClient, set_name: str
) -> None:
    # Each record keeps the stream busy for ten million turns (a real server's stream runs
    # about 2e8 a second), so the 20 records take about ten times the timeout; on a real
    # server the job then ends by itself.
    s, module = _aggregated(sdb, set_name)
    with pytest.raises(errors.TimeoutError, match="aggregation timed out"):
        s.query().timeout(0.1).aggregate(module, "slow_count", 10_000_000)
    assert s.query().timeout(30).aggregate(module, "slow_count", 10) == [20]


@pytest.mark.skipif(REAL_SERVER, reason="a real server runs an endless stream function forever")
def test_an_endless_aggregation_raises_a_timeout(sdb: af.SyncClient, set_name: str) -> None:
    s, module = _aggregated(sdb, set_name)
    with pytest.raises(errors.TimeoutError, match="aggregation timed out"):
        s.query().timeout(0.3).aggregate(module, "endless")
    assert s.query().timeout(30).aggregate(module, "count") == [20]
