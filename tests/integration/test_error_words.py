"""One error vocabulary: whichever road served a call (the SDK's own requests or the crate's),
its error names the cause in this SDK's words, carries the result code, and shows none of the
crate's decoration. A dead node is a ``ConnectionError`` for every single-record verb, on
sync, asyncio and trio alike, never an exhausted pool."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

import pytest

from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor

CRATE_WORDS = re.compile(
    r"Error -?\d+[,:]|iter=|In Doubt|caused by|sub-errors|Replica::|Client Timeout"
)

pytestmark = pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded server")


def assert_our_words(e: BaseException) -> None:
    text = str(e)
    assert not CRATE_WORDS.search(text), text
    assert "pool exhausted" not in text, text
    assert isinstance(e, errors.AerospikeError) and e.result_code is not None, text


def verbs(s: Any) -> dict[str, Callable[[], Any]]:
    k = s.key("a")
    return {
        "get": lambda: k.get(),
        "exists": lambda: k.exists(),
        "put": lambda: k.put({"x": 2}),
        "insert": lambda: s.key("b").insert({"x": 1}),
        "delete_generation": lambda: k.delete(generation=1),
        "operate": lambda: k.add("x", 1).read("x").execute(),
        "touch": lambda: k.touch(),
        "udf": lambda: k.udf("nomodule", "nofunction"),
    }


async def test_a_dead_node_is_a_connection_error_for_every_verb(fl: Flavor) -> None:
    server = EmbeddedServer()
    try:
        async with fl.connect(server.seeds, total_timeout=1, max_retries=0) as db:
            s = db.namespace("test").set("words")
            await fl.run(s.key("a").put({"x": 1}))
            server.stop()
            for name, call in verbs(s).items():
                with pytest.raises(errors.AerospikeError) as raised:
                    await fl.run(call())
                assert isinstance(raised.value, errors.ConnectionError | errors.TimeoutError), (
                    name,
                    raised.value,
                )
                assert_our_words(raised.value)
    finally:
        server.stop()


async def test_server_refusals_on_either_road_read_alike(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("a").put({"x": 1}))
    refused: list[BaseException] = []
    for call in (
        lambda: s.key("a").insert({"x": 1}),  # exists: the SDK's road
        lambda: s.key("a").bin("x").list.append(1).execute(),  # an int bin: the SDK's road
        lambda: s.key("a").udf("nomodule", "nofunction"),  # the crate's road
    ):
        with pytest.raises(errors.ServerError) as raised:
            await fl.run(call())
        refused.append(raised.value)
    for e in refused:
        assert_our_words(e)
    assert isinstance(refused[0], errors.RecordExistsError)


async def test_a_seed_nobody_listens_on_is_named_in_our_words(fl: Flavor) -> None:
    server = EmbeddedServer()
    seeds = server.seeds
    server.stop()
    with pytest.raises(errors.ConnectionError) as raised:
        async with fl.connect(seeds, total_timeout=1, max_retries=0):
            pass
    assert_our_words(raised.value)
    text = str(raised.value)
    assert seeds in text and "refused" in text, text
    assert "I/O operation" not in text and "os error" not in text, text
