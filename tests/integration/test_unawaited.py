"""A verb's result is a coroutine named after the verb: an un-awaited call is reported by name,
and ``create_task`` takes it (also when auto-batching joins a get to a batch)."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

import aerospike_fluent as af


def test_an_unawaited_verb_is_reported_by_name(seeds: str, set_name: str) -> None:
    async def main() -> list[str]:
        async with af.connect(seeds) as db:
            k = db.namespace("test").set(set_name).key("a")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                _ = k.put({"a": 1})
                del _
                gc.collect()
            return [str(w.message) for w in caught if w.category is RuntimeWarning]

    assert "coroutine 'put' was never awaited" in asyncio.run(main())


@pytest.mark.parametrize("auto_batch", [False, True])
def test_create_task_takes_every_verb(seeds: str, set_name: str, auto_batch: bool) -> None:
    async def main() -> list[int]:
        async with af.connect(seeds, auto_batch=auto_batch) as db:
            s = db.namespace("test").set(set_name)
            await s.key("a").put({"n": 1})
            await s.key("b").put({"n": 2})
            tasks = [asyncio.create_task(s.key(k).get()) for k in ("a", "b")]
            return [rec["n"] for rec in await asyncio.gather(*tasks) if rec is not None]

    assert asyncio.run(main()) == [1, 2]
