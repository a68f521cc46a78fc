"""``timeout()`` governs the whole batch request, on key batches and mixed batches alike."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor


@pytest.fixture
def slow() -> Iterator[EmbeddedServer]:
    """A server of its own whose replies come 1.5 s late."""
    with EmbeddedServer() as srv:
        yield srv


async def test_a_short_batch_timeout_fires_before_the_client_default(
    fl: Flavor, slow: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(slow.seeds, total_timeout=5) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key(1).put({"n": 1}))
        slow.fault_delay(1500)
        # Without the batch's own timeout, both would succeed after 1.5 s (default 5 s).
        with pytest.raises(errors.TimeoutError) as keyed:
            await fl.run(s.keys([1, 2]).timeout(0.2, retries=0).get())
        with pytest.raises(errors.TimeoutError) as mixed:
            await fl.run(db.batch().get(s.key(1)).timeout(0.2, retries=0).execute())
        for raised in (keyed, mixed):
            result = raised.value.partial
            assert result.errors, "the timeout left no failed row"
            assert all(isinstance(row.error, errors.TimeoutError) for row in result.errors)


async def test_a_long_batch_timeout_outlasts_the_client_default(
    fl: Flavor, slow: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(slow.seeds, total_timeout=0.3) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key(1).timeout(5).put({"n": 1}))
        slow.fault_delay(800)
        got = await fl.run(s.keys([1, 2]).timeout(5).get())
        assert [r.record["n"] if r.record else None for r in got] == [1, None]
        mixed = await fl.run(db.batch().get(s.key(1)).timeout(5).execute())
        assert mixed.ok
