"""Reads that touch their record (``read_touch_ttl_percent``), as a real server: a read within
that share of the last write's TTL from the record's end gives it that TTL again."""

from __future__ import annotations

import time
from typing import Any

import pytest
from aerospike import exception as ex
from aerospike_helpers.operations import operations as ops  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

TTL = 100


def _ttl(client: Any, key: tuple[str, str, str]) -> int:
    _, meta = client.exists(key)
    return int(meta["ttl"])


def _aged(client: Any, set_name: str, name: str) -> tuple[tuple[str, str, str], int]:
    """A record written with TTL seconds, read back once 2 s of them have gone."""
    key = ("test", set_name, name)
    client.put(key, {"a": 1}, policy={"ttl": TTL})
    time.sleep(2.1)
    return key, _ttl(client, key)


def test_a_read_near_the_end_gives_the_write_ttl_again_and_keeps_the_generation(
    client: Any, set_name: str
) -> None:
    key, before = _aged(client, set_name, "touched")
    assert before <= TTL - 2
    _, meta, bins = client.get(key, policy={"read_touch_ttl_percent": 100})
    assert bins == {"a": 1} and meta["gen"] == 1
    deadline = time.monotonic() + 5  # a real server touches after it answers the read
    while _ttl(client, key) < TTL - 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _ttl(client, key) >= TTL - 1
    assert client.exists(key)[1]["gen"] == 1


def test_a_read_further_from_the_end_or_never_touching_leaves_the_ttl(
    client: Any, set_name: str
) -> None:
    key, before = _aged(client, set_name, "untouched")
    client.get(key, policy={"read_touch_ttl_percent": 50})
    client.get(key, policy={"read_touch_ttl_percent": -1})
    client.get(key)
    time.sleep(0.3)
    assert _ttl(client, key) <= before


def test_batch_and_operate_reads_touch_as_well(client: Any, set_name: str) -> None:
    key, _ = _aged(client, set_name, "batched")
    other, _ = _aged(client, set_name, "operated")
    client.batch_read([key], policy={"read_touch_ttl_percent": 100})
    client.operate(other, [ops.read("a")], policy={"read_touch_ttl_percent": 100})
    deadline = time.monotonic() + 5
    while min(_ttl(client, key), _ttl(client, other)) < TTL - 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _ttl(client, key) >= TTL - 1 and _ttl(client, other) >= TTL - 1


def test_a_percentage_over_100_is_refused(client: Any, set_name: str) -> None:
    key = ("test", set_name, "refused")
    client.put(key, {"a": 1}, policy={"ttl": TTL})
    with pytest.raises((ex.ParamError, ex.InvalidRequest)):
        client.get(key, policy={"read_touch_ttl_percent": 101})
