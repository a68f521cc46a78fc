"""Read a query into Arrow natively and analyse it with pandas and polars.

``to_arrow()`` builds Arrow record batches in the native core, straight from the records (no
Python object per record), and hands them over through the Arrow PyCapsule interface:
``pyarrow.table(t)``, ``polars.DataFrame(t)`` and duckdb take them without a copy.
``arrow_batches(rows=...)`` does the same batch by batch, so memory stays bounded by a few
batches. Needs ``pandas`` and ``pyarrow`` (``polars`` is used when installed).

Runs against the embedded server, or the cluster in ``AEROSPIKE_HOST`` (``host:port``) when set::

    python examples/query_to_dataframe.py --count 20000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
from typing import Any

import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

import aerospike_fluent as af
from aerospike_fluent import F

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("age", pa.int8()),
        ("country", pa.string()),
        ("score", pa.float64()),
    ]
)


def seeds() -> str:
    """The cluster in ``AEROSPIKE_HOST``, else an in-process embedded server."""
    return os.environ.get("AEROSPIKE_HOST") or "embedded://"


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

        # One table: the columns and their types come from the schema (without one, they are
        # inferred from the records).
        adults = users.query().where(F.int_bin("age") >= 18)
        table = pa.table(await adults.to_arrow(schema=SCHEMA))
        print(f"Arrow table: {table.num_rows:,} rows")
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

        # Batch by batch, bounded memory: a running aggregate over record batches.
        total = 0.0
        rows = 0
        async for part in users.query().select("score").arrow_batches(rows=4096):
            scores = pa.table(part).column("score")
            total += pc.sum(scores).as_py() or 0.0
            rows += part.num_rows
        print(f"mean score over {rows:,} users: {total / rows:.1f}")

        # Straight to a DataFrame, inferred columns and the record keys' digests.
        high = await users.query().where("$.score > 90.0").to_pandas(digest=True)
        print(f"{len(high)} users with a score above 90; columns {list(high.columns)}")
        try:
            import polars  # noqa: F401
        except ImportError:
            pass
        else:
            by_country = (await users.query().to_polars()).group_by("country").len()
            print(by_country.sort("country"))

        for start in range(0, count, 5000):
            await users.keys(range(start, min(start + 5000, count))).delete()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Stream a query into Arrow and pandas.")
    parser.add_argument(
        "--count", type=int, default=int(os.environ.get("DATAFRAME_COUNT", "20000"))
    )
    asyncio.run(main(parser.parse_args().count))
