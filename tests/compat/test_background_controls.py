"""The official client's background queries, query controls, truncate at a cut-off time and
Community-edition refusals against the server."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers.operations import operations as op  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

BUMP = "function bump(rec, n) rec['n'] = rec['n'] + n aerospike:update(rec) end\n"


def _loaded(client: Any, set_name: str, n: int = 10) -> None:
    for i in range(n):
        client.put(("test", set_name, i), {"n": i})


def _values(client: Any, set_name: str) -> list[int]:
    return sorted(bins["n"] for _, _, bins in client.query("test", set_name).results())


def _finished(client: Any, job: int) -> dict[str, int]:
    for _ in range(100):
        info: dict[str, int] = client.job_info(job, aerospike.JOB_QUERY)
        if info["status"] == aerospike.JOB_STATUS_COMPLETED:
            return info
        time.sleep(0.1)
    raise AssertionError(f"background job {job} did not finish: {info}")


def test_background_operations(client: Any, set_name: str) -> None:
    _loaded(client, set_name)
    q = client.query("test", set_name)
    q.add_ops([op.increment("n", 100)])
    info = _finished(client, q.execute_background())
    assert info["progress_pct"] == 100
    assert _values(client, set_name) == list(range(100, 110))


def test_background_udf(client: Any, set_name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{set_name}.lua"
    path.write_text(BUMP)
    client.udf_put(str(path))
    time.sleep(0.5)  # the module reaches every node
    _loaded(client, set_name)
    q = client.query("test", set_name)
    q.apply(set_name, "bump", [1000])
    _finished(client, q.execute_background())
    assert _values(client, set_name) == list(range(1000, 1010))
    client.udf_remove(f"{set_name}.lua")


def test_no_bins_pacing_and_the_short_hint(client: Any, set_name: str) -> None:
    _loaded(client, set_name)
    records = client.query("test", set_name).results(options={"nobins": True})
    assert len(records) == 10 and all(bins == {} for _, _, bins in records)
    paced = client.query("test", set_name).results({"records_per_second": 1000})
    short = client.query("test", set_name).results(
        {"expected_duration": aerospike.QUERY_DURATION_SHORT}
    )
    assert len(paced) == len(short) == 10


def test_truncate_before_a_cut_off_keeps_later_records(client: Any, set_name: str) -> None:
    _loaded(client, set_name, 4)
    time.sleep(0.05)
    cut_ns = time.time_ns()
    time.sleep(0.05)
    for i in range(4, 7):
        client.put(("test", set_name, i), {"n": i})
    client.truncate("test", set_name, cut_ns)
    assert _values(client, set_name) == [4, 5, 6]


def test_community_refuses_durable_deletes(client: Any, set_name: str) -> None:
    editions = [answer for _, answer in client.info_all("edition").values()]
    if not all("Community" in e for e in editions):
        pytest.skip(f"not a Community server: {editions}")
    key = ("test", set_name, "dd")
    client.put(key, {"a": 1})
    with pytest.raises(ex.AerospikeError) as removed:
        client.remove(key, policy={"durable_delete": True})
    with pytest.raises(ex.AerospikeError) as emptied:
        client.put(key, {"a": None}, policy={"durable_delete": True})
    assert removed.value.code == emptied.value.code == 25  # ENTERPRISE_ONLY
    assert client.get(key)[2] == {"a": 1}
