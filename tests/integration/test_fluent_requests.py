"""A chain is one request on every client flavor: counted at the embedded server."""

from __future__ import annotations

import os

import pytest

from ._flavor import Flavor

counting = pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_HOST")), reason="counts requests at the embedded server"
)


def _delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    kinds = ("read", "write", "operate", "batch", "scan", "query", "udf")
    return {
        k: after.get(k, 0) - before.get(k, 0) for k in kinds if after.get(k, 0) != before.get(k, 0)
    }


@counting
async def test_five_op_chain_is_one_operate_and_1000_keys_one_batch(
    fl: Flavor, set_name: str
) -> None:
    async with fl.connect("embedded://") as db:
        server = db.embedded_server
        assert server is not None
        users = db.namespace("test").set(set_name)
        await fl.run(users.key("u1").put({"age": 1, "log": "", "tags": []}))

        before = server.stats()
        await fl.run(
            users.key("u1")
            .add("age", 1)
            .append("log", "x")
            .prepend("log", ">")
            .bin("tags")
            .list.append("t")
            .read("age")
            .execute()
        )
        assert _delta(before, server.stats()) == {"operate": 1}

        before = server.stats()
        result = await fl.run(users.keys(range(1000)).add("n", 1).read("n").execute())
        assert result.ok and len(result) == 1000
        assert _delta(before, server.stats()) == {"batch": 1}

        before = server.stats()
        got = await fl.run(users.keys(range(1000)).get())
        assert len(got) == 1000
        # a large read-only batch goes out as parts of 250 (docs/performance.md)
        assert _delta(before, server.stats()) == {"batch": 4}


async def test_info_and_embedded_connect(fl: Flavor) -> None:
    info = await fl.run(fl.db.info("build"))
    assert "build" in info
    assert fl.db.is_connected
