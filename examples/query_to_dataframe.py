"""Stream a query into Arrow record batches and analyse it with pandas.

The stream delivers records chunk by chunk; each chunk becomes one ``pyarrow.RecordBatch``, so the
Python objects of only one chunk are alive at a time. Needs ``pandas`` and ``pyarrow``.

Runs against the embedded server, or the cluster in ``AEROSPIKE_HOST`` (``host:port``) when set::

    python examples/query_to_dataframe.py --count 20000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
from collections.abc import AsyncIterator
from typing import Any

import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

import aerospike_fluent as af
from aerospike_fluent import F
from aerospike_fluent.query import Query

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("age", pa.int64()),
        ("country", pa.string()),
        ("score", pa.float64()),
    ]
)


def seeds() -> str:
    """The cluster in ``AEROSPIKE_HOST``, else an in-process embedded server."""
    return os.environ.get("AEROSPIKE_HOST") or "embedded://"


async def arrow_batches(query: Query[af.Async], rows_per_batch: int) -> AsyncIterator[Any]:
    """Yield ``pyarrow.RecordBatch`` objects of up to ``rows_per_batch`` records."""
    rows: list[dict[str, Any]] = []
    async with query.chunk_size(rows_per_batch).stream() as stream:
        async for record in stream:
            rows.append(record.bins)
            if len(rows) == rows_per_batch:
                yield pa.RecordBatch.from_pylist(rows, schema=SCHEMA)
                rows = []
    if rows:
        yield pa.RecordBatch.from_pylist(rows, schema=SCHEMA)


async def main(count: int) -> None:
    async with af.connect(seeds()) as db:
        users = db.namespace("test").set("ex_dataframe")
        rng = random.Random(3)
        countries = ["US", "FR", "DE", "JP"]
        for start in range(0, count, 2000):
            batch: dict[str | int | bytes, dict[str, Any]] = {
                i: {
                    "id": i,
                    "age": rng.randint(16, 80),
                    "country": rng.choice(countries),
                    "score": round(rng.gauss(60, 15), 1),
                }
                for i in range(start, min(start + 2000, count))
            }
            (await users.put_many(batch)).raise_on_error()

        query = users.query().where(F.int_bin("age") >= 18).select("id", "age", "country", "score")
        batches = [b async for b in arrow_batches(query, rows_per_batch=1000)]
        table = pa.Table.from_batches(batches, schema=SCHEMA)
        print(f"Arrow table: {table.num_rows:,} rows in {len(batches)} record batches")
        print(table.schema)

        df: pd.DataFrame = table.to_pandas()
        summary = (
            df.groupby("country")
            .agg(users=("id", "count"), mean_age=("age", "mean"), mean_score=("score", "mean"))
            .round(1)
            .sort_index()
        )
        print(summary.to_string())
        expected = await users.query().where("$.age >= 18").count()
        assert table.num_rows == expected == len(df)

        # Without Arrow: a DataFrame straight from the stream.
        small = pd.DataFrame.from_records(
            [r.bins async for r in users.query().where("$.score > 90.0").select("id", "score")]
        )
        print(f"{len(small)} users with a score above 90")

        for start in range(0, count, 5000):
            await users.keys(range(start, min(start + 5000, count))).delete()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Stream a query into Arrow and pandas.")
    parser.add_argument(
        "--count", type=int, default=int(os.environ.get("DATAFRAME_COUNT", "20000"))
    )
    asyncio.run(main(parser.parse_args().count))
