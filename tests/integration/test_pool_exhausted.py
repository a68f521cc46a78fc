"""A call that finds every connection of its node's pool busy says so, with the pool's size and
the option that sets it."""

from __future__ import annotations

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors


@pytest.mark.anyio
async def test_a_get_behind_open_streams_names_the_exhausted_pool(
    seeds: str, set_name: str
) -> None:
    async with af.connect(seeds, max_conns_per_node=2, total_timeout_ms=300) as db:
        s = db.namespace("test").set(set_name)
        (await s.put_many({i: {"i": i} for i in range(2000)})).raise_on_error()
        async with s.query().chunk_size(10).stream() as first:
            await first.__anext__()
            async with s.query().chunk_size(10).stream() as second:
                await second.__anext__()
                with pytest.raises(
                    errors.TimeoutError, match="pool exhausted: all 2 conn"
                ) as caught:
                    await s.key(1).get()
                assert "max_conns_per_node" in str(caught.value)
                assert caught.value.in_doubt is False
