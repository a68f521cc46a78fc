"""A tour of aerospike_fluent.

Runs against the embedded server, or the cluster in ``AEROSPIKE_HOST`` (``host:port``) when set::

    python examples/quickstart.py
    AEROSPIKE_HOST=127.0.0.1:3000 python examples/quickstart.py

(``--embedded`` forces the embedded server even when ``AEROSPIKE_HOST`` is set.)
"""

from __future__ import annotations

import argparse
import asyncio
import os

import aerospike_fluent as af
from aerospike_fluent import F


async def main(seeds: str | None) -> None:
    async with af.connect(seeds) as db:
        users = db.namespace("test").set("quickstart")

        await users.key("ann").put({"name": "Ann", "age": 30, "country": "US"}, ttl=3600)
        await users.key("bob").put({"name": "Bob", "age": 22, "country": "FR"})
        print("put ann and bob")

        rec = await users.key("ann").get()
        print("get ann ->", rec.bins if rec else None)

        # Several bin operations on one key: one request, results read after the writes.
        rec = await (
            users.key("ann")
            .add("age", 1)
            .bin("tags")
            .list.append("admin")
            .bin("prefs")
            .map.put("theme", "dark")
            .read("age", "tags")
            .execute()
        )
        print("operate ann -> age", rec["age"] if rec else None)

        # The same operations over many keys: one batch request.
        await users.keys(["ann", "bob"]).add("visits", 1).execute()
        batch = await users.keys(["ann", "bob", "nobody"]).get("name", "visits")
        print("batch get ->", [r.bins if r else None for r in batch.records])

        # Queries: expressions written with Python operators, or AEL text.
        adults = await users.query().where(F.bin("age") > 25).select("name").collect()
        print("age > 25 ->", [r["name"] for r in adults])
        n = await users.query().where("$.age > 20 and $.country == 'US'").count()
        print("AEL count ->", n)
        async for r in users.query().where(F.bin("country") == "FR"):
            print("streamed ->", r["name"])

        deleted = await users.keys(["ann", "bob"]).delete()
        print("deleted ->", len(deleted), "records; errors:", deleted.errors)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--embedded", action="store_true", help="start an in-process server")
    args = parser.parse_args()
    cluster = None if args.embedded else os.environ.get("AEROSPIKE_HOST")
    asyncio.run(main(cluster or "embedded://"))
