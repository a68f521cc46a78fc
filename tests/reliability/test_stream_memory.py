"""A stalled or slow stream consumer holds the producer back: client memory stays bounded."""

from __future__ import annotations

import anyio
import pytest

import aerospike_fluent as af

from ._util import rss_mb

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

RECORDS = 2000
BLOB = b"x" * (64 * 1024)  # 125 MiB in all
CHUNK = 16
# The stream holds a few chunks plus the crate's record queue whatever the set size: ~5 MiB
# measured here; with the whole set buffered growth is ~155 MiB.
BOUND_MB = 48


async def _load(s: af.RecordSet[af.Async]) -> None:
    # Small groups: the put buffers freed here must not leave room the stream could reuse.
    for base in range(0, RECORDS, CHUNK):
        res = await s.put_many({i: {"i": i, "b": BLOB} for i in range(base, base + CHUNK)})
        res.raise_on_error()


async def test_slow_stream_consumer_buffers_a_bounded_amount(seeds: str) -> None:
    async with af.connect(seeds) as db:
        s = db.namespace("test").set("slow_consumer")
        await _load(s)
        before = rss_mb()
        grown = 0.0
        seen = 0
        async with s.query().chunk_size(CHUNK).timeout(60).stream() as stream:
            async for rec in stream:
                assert len(rec["b"]) == len(BLOB)
                seen += 1
                if seen == 1:
                    await anyio.sleep(1.0)  # stalled: the producer runs until its buffers are full
                if seen % CHUNK == 1:
                    grown = max(grown, rss_mb() - before)
                    await anyio.sleep(0.005)
        assert seen == RECORDS
        assert grown < BOUND_MB, f"RSS grew by {grown:.0f} MiB streaming {RECORDS} x 64 KiB"
