"""An async stream whose chunks are already buffered still lets the other tasks run."""

from __future__ import annotations

import time

import anyio
import pytest

import aerospike_fluent as af

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def test_a_stream_read_without_pause_gives_other_tasks_a_turn_per_chunk(
    set_name: str, seeds: str
) -> None:
    async with af.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"n": i} for i in range(200)})
        turns = 0
        reading = True

        async def ticker() -> None:
            nonlocal turns
            while reading:
                turns += 1
                await anyio.sleep(0)

        seen: list[int] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(ticker)
            async with s.query().chunk_size(10).stream() as stream:
                await anyio.sleep(0.2)  # the producer fills its buffer meanwhile
                start = turns
                async for record in stream:
                    seen.append(record["n"])
                    time.sleep(0.0005)  # a busy consumer: the next chunk is buffered by now
                ran = turns - start
                reading = False
        assert sorted(seen) == list(range(200))
        # 20 chunks: each chunk after the first gives the ticker a turn at least
        assert ran >= 19, f"the ticker ran {ran} times while 20 chunks were read"
