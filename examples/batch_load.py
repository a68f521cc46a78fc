"""Load 100,000 records in batches with a progress bar, then check them.

``put_many`` sends one batch request per slice of ``--batch`` records; ``--parallel`` batches are
in flight at once. ``--count`` (or ``BATCH_LOAD_COUNT``) changes the number of records.

Runs against the embedded server, or the cluster in ``AEROSPIKE_HOST`` (``host:port``) when set::

    python examples/batch_load.py --count 100000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from typing import Any

from tqdm import tqdm

import aerospike_fluent as af
from aerospike_fluent import RecordSet

COUNTRIES = ["US", "FR", "DE", "JP", "BR", "IN"]


def seeds() -> str:
    """The cluster in ``AEROSPIKE_HOST``, else an in-process embedded server."""
    return os.environ.get("AEROSPIKE_HOST") or "embedded://"


def make_record(i: int, rng: random.Random) -> dict[str, Any]:
    """One synthetic user."""
    return {
        "id": i,
        "age": rng.randint(16, 90),
        "country": rng.choice(COUNTRIES),
        "score": round(rng.random() * 100, 2),
        "tags": rng.sample(["new", "vip", "beta", "mobile", "web"], k=2),
    }


async def load(users: RecordSet[af.Async], count: int, batch: int, parallel: int, seed: int) -> int:
    """Write ``count`` records; returns how many rows failed."""
    rng = random.Random(seed)
    limit = asyncio.Semaphore(parallel)
    failed = 0

    async def write(start: int, bar: tqdm[Any]) -> None:
        nonlocal failed
        stop = min(start + batch, count)
        records: dict[str | int | bytes, dict[str, Any]] = {
            f"user-{i}": make_record(i, rng) for i in range(start, stop)
        }
        async with limit:
            result = await users.put_many(records)
        failed += len(result.errors)
        bar.update(stop - start)

    with tqdm(total=count, unit="rec", unit_scale=True, desc="loading", mininterval=0.5) as bar:
        await asyncio.gather(*(write(start, bar) for start in range(0, count, batch)))
    return failed


async def main(count: int, batch: int, parallel: int) -> None:
    async with af.connect(seeds()) as db:
        users = db.namespace("test").set("ex_batch_load")

        started = time.perf_counter()
        failed = await load(users, count, batch, parallel, seed=7)
        elapsed = time.perf_counter() - started
        print(f"wrote {count:,} records in {elapsed:.2f} s ({count / elapsed:,.0f} rec/s)")
        assert failed == 0, f"{failed} rows failed"

        # Read a sample back in one batch read.
        sample = [f"user-{i}" for i in random.Random(1).sample(range(count), min(count, 1000))]
        rows = await users.keys(sample).get("id", "age")
        assert all(r is not None for r in rows.records), "a loaded record is missing"
        print(f"read back {len(rows):,} sampled records in one batch: all present")

        adults = await users.query().where("$.age >= 18").count()
        print(f"{adults:,} of them are adults")

        # Clean up (one batch delete per slice).
        for start in range(0, count, 5000):
            await users.keys([f"user-{i}" for i in range(start, min(start + 5000, count))]).delete()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Batch-load records with a progress bar.")
    parser.add_argument(
        "--count", type=int, default=int(os.environ.get("BATCH_LOAD_COUNT", "100000"))
    )
    parser.add_argument("--batch", type=int, default=1000, help="records per batch request")
    parser.add_argument("--parallel", type=int, default=4, help="batches in flight")
    args = parser.parse_args()
    asyncio.run(main(args.count, args.batch, args.parallel))
