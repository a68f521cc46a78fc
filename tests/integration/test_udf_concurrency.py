"""A record UDF and plain writes to the same record: a write that lands while Lua runs is kept."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import aerospike_fluent as af

# About 120 million Lua instructions: long enough for a write to land meanwhile.
SLOW_INCREMENT = b"""
function slow_increment(rec)
  for i = 1, 120000000 do end
  rec["n"] = (rec["n"] or 0) + 1
  aerospike:update(rec)
  return rec["n"]
end
"""


def test_a_write_during_a_record_udf_is_kept(sdb: af.SyncClient, set_name: str) -> None:
    module = f"{set_name}_slow"
    registered = sdb.udf_register(SLOW_INCREMENT, f"{module}.lua")
    try:
        key = sdb.namespace("test").set(set_name).key("r")
        key.put({"n": 0})
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(key.timeout(60).udf, module, "slow_increment")
            time.sleep(0.2)  # the UDF request reaches the server first
            assert not running.done(), "the UDF ended before the write was sent"
            key.timeout(60).put({"m": 5})
            assert running.result() == 1
        record = key.get()
        assert record is not None
        assert (record["n"], record["m"]) == (1, 5)
    finally:
        sdb.udf_remove(registered)
