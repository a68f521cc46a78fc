"""A call that finds every connection of its node's pool busy says so, with the pool's size and
the option that sets it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer


@asynccontextmanager
async def _two_open_streams(s: Any) -> AsyncIterator[None]:
    """2000 records written, then two streams open, each holding the node's connection."""
    (await s.put_many({i: {"i": i} for i in range(2000)})).raise_on_error()
    async with s.query().chunk_size(10).stream() as first:
        await first.__anext__()
        async with s.query().chunk_size(10).stream() as second:
            await second.__anext__()
            yield


@pytest.mark.anyio
async def test_a_get_behind_open_streams_names_the_exhausted_pool(
    seeds: str, set_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Streams on the crate's query path hold pooled connections (scans read from the wire
    # hold connections of their own: see the next test), and so do the crate's gets.
    monkeypatch.setenv("AEROSPIKE_FLUENT_CRATE_SCANS", "1")
    monkeypatch.setenv("AEROSPIKE_FLUENT_CRATE_RECORDS", "1")
    async with af.connect(seeds, max_conns_per_node=2, total_timeout=0.3) as db:
        s = db.namespace("test").set(set_name)
        async with _two_open_streams(s):
            with pytest.raises(
                errors.TimeoutError, match=r"pool exhausted: .*max_conns_per_node=2"
            ) as caught:
                await s.key(1).get()
            assert "max_conns_per_node" in str(caught.value)
            assert caught.value.in_doubt is False


@pytest.mark.anyio
async def test_a_get_behind_busy_gets_names_the_exhausted_pool(set_name: str) -> None:
    # Gets and puts hold a connection of their own pool (the wire path's) while they wait.
    with EmbeddedServer() as server:
        async with af.connect(server.seeds, max_conns_per_node=2, total_timeout=0.3) as db:
            s = db.namespace("test").set(set_name)
            await s.key(1).put({"i": 1})
            server.fault_delay(2000, 2)
            slow: list[Any] = []

            async def slow_get() -> None:
                slow.append(await s.key(1).timeout(5).get())

            async with anyio.create_task_group() as tg:
                tg.start_soon(slow_get)
                tg.start_soon(slow_get)
                await anyio.sleep(0.2)
                with pytest.raises(
                    errors.TimeoutError, match=r"pool exhausted: .*max_conns_per_node=2"
                ) as caught:
                    await s.key(1).get()
            assert "max_conns_per_node" in str(caught.value)
            assert caught.value.in_doubt is False
            assert [r["i"] for r in slow] == [1, 1]


@pytest.mark.anyio
async def test_open_scans_leave_the_rest_of_the_budget_to_other_calls(
    seeds: str, set_name: str
) -> None:
    async with af.connect(seeds, max_conns_per_node=16, total_timeout=0.3) as db:
        s = db.namespace("test").set(set_name)
        async with _two_open_streams(s):
            rec = await s.key(1).get()
            assert rec is not None and rec["i"] == 1


@pytest.mark.anyio
async def test_a_stream_behind_open_streams_names_the_exhausted_pool(
    seeds: str, set_name: str
) -> None:
    # Without a deadline the crate gives up after ~33 s ("Max retries exceeded: 2"), which is
    # named the same way; a total timeout makes it give up (as "Timeout") within the test.
    async with af.connect(seeds, max_conns_per_node=2) as db:
        s = db.namespace("test").set(set_name)
        async with _two_open_streams(s):
            third = s.query().chunk_size(10).timeout(1.0)
            with pytest.raises(
                errors.TimeoutError, match=r"pool exhausted: .*max_conns_per_node=2"
            ) as caught:
                async with third.stream() as st:
                    await st.__anext__()
            message = str(caught.value)
            assert "max_conns_per_node" in message and "Timeout" in message
            assert caught.value.in_doubt is False
        # the pool is free again: the same query now runs
        assert len([r async for r in s.query().timeout(1.0)]) == 2000


def test_a_sync_stream_behind_open_streams_names_the_exhausted_pool(
    seeds: str, set_name: str
) -> None:
    with af.sync.connect(seeds, max_conns_per_node=2) as db:
        s = db.namespace("test").set(set_name)
        s.put_many({i: {"i": i} for i in range(2000)}).raise_on_error()
        with (
            s.query().chunk_size(10).stream() as first,
            s.query().chunk_size(10).stream() as second,
        ):
            next(first), next(second)
            third = s.query().chunk_size(10).timeout(1.0)
            with (
                pytest.raises(errors.TimeoutError, match="max_conns_per_node"),
                third.stream() as st,
            ):
                next(st)
