"""A namespace no node serves is named as such, at once: scans, queries, gets and puts raise
``NamespaceNotFoundError`` naming it (no retries against partitions nobody holds)."""

from __future__ import annotations

import time

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor


async def test_a_scan_names_the_namespace(fl: Flavor) -> None:
    started = time.monotonic()
    with pytest.raises(errors.NamespaceNotFoundError, match="nosuch"):
        await fl.run(fl.db.namespace("nosuch").set("s").query().collect())
    # refused from the nodes' answers, not after retry rounds
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("verb", ["get", "put"])
async def test_a_single_record_call_names_the_namespace(fl: Flavor, verb: str) -> None:
    k = fl.db.namespace("nosuch").set("s").key("k")
    with pytest.raises(errors.NamespaceNotFoundError, match="nosuch") as caught:
        # (on the sync flavor the verb itself raises)
        await fl.run(k.get() if verb == "get" else k.put({"v": 1}))
    assert caught.value.result_code == 20
    assert caught.value.in_doubt is False


async def test_a_batch_names_the_namespace(fl: Flavor) -> None:
    with pytest.raises(errors.NamespaceNotFoundError, match="nope"):
        await fl.run(fl.db.namespace("nope").set("s").keys([1, 2]).get())
