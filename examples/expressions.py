"""Filter expressions: Python operators and AEL strings, in queries, conditional writes and reads.

Runs against the embedded server, or the cluster in ``AEROSPIKE_HOST`` (``host:port``) when set::

    python examples/expressions.py
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import aerospike_fluent as af
from aerospike_fluent import F, errors

# put_many's key type is str | int | bytes (Mapping keys are invariant, hence the annotation).
PEOPLE: dict[str | int | bytes, dict[str, Any]] = {
    "ann": {"name": "Ann", "age": 34, "country": "US", "email": "ann@example.com", "score": 88},
    "bob": {"name": "Bob", "age": 17, "country": "US", "email": "bob@example.org", "score": 51},
    "cid": {"name": "Cid", "age": 42, "country": "FR", "email": "cid@example.com", "score": 73},
    "dee": {"name": "Dee", "age": 25, "country": "DE", "email": "dee@example.net", "score": 95},
    "eve": {"name": "Eve", "age": 61, "country": "US", "email": "eve@example.com", "score": 64},
}


def seeds() -> str:
    """The cluster in ``AEROSPIKE_HOST``, else an in-process embedded server."""
    return os.environ.get("AEROSPIKE_HOST") or "embedded://"


async def main() -> None:
    async with af.connect(seeds()) as db:
        people = db.namespace("test").set("ex_expressions")
        (await people.put_many(PEOPLE)).raise_on_error()

        # 1. The same filter written two ways; both compile client-side to one expression.
        adult_us = (F.int_bin("age") >= 18) & (F.str_bin("country") == "US")
        ael = "$.age >= 18 and $.country == 'US'"
        print("as AEL text    :", F.to_ael(adult_us))
        by_exp = sorted(r["name"] for r in await people.query().where(adult_us).collect())
        by_ael = sorted(r["name"] for r in await people.query().where(ael).collect())
        print("adults in US   :", by_exp)
        assert by_exp == by_ael == ["Ann", "Eve"]

        # 2. Arithmetic, functions and record metadata.
        strong = await people.query().where(F.int_bin("score") * 2 - 100 > 60).count()
        print("score*2-100>60 :", strong)
        assert strong == 2
        dot_com = F.regex(F.str_bin("email"), r".*\.com$")
        names = sorted(r["name"] for r in await people.query().where(dot_com).collect())
        print(".com addresses :", names)
        assert names == ["Ann", "Cid", "Eve"]
        fresh = await people.query().where("$.sinceUpdate() < 600000").count()  # milliseconds
        print("updated < 10min:", fresh)
        assert fresh == len(PEOPLE)

        # 3. Conditions on writes: a record is only touched when it matches.
        try:
            await people.key("bob").where(F.int_bin("age") >= 18).update({"vip": True})
            raise AssertionError("bob is 17: the filter should have rejected the update")
        except errors.FilteredOutError:
            print("bob           : filtered out, not updated")
        await people.key("ann").where("$.age >= 18").update({"vip": True})
        ann = await people.key("ann").get("vip")
        print("ann           :", ann.bins if ann else None)

        # In a batch the filter applies per row: rows that do not match fail on their own.
        everyone = people.keys(sorted(map(str, PEOPLE)))
        rows = await everyone.where("$.score >= 70").add("bonus", 10).execute()
        winners = [row.key[2] for row in rows if row.error is None]
        print("bonus given to:", winners)
        assert winners == ["ann", "cid", "dee"]

        # 4. Computed values: read an expression without writing, or write its value.
        rec = await (
            people.key("cid")
            .bin("double_score")
            .read_exp(F.int_bin("score") * 2)
            .bin("adult")
            .write_exp(F.int_bin("age") >= 18)
            .execute()
        )
        print("cid computed  :", rec.bins if rec else None)
        stored = await people.key("cid").get("adult")
        assert stored is not None and stored["adult"] is True

        await people.keys(list(PEOPLE)).delete()


if __name__ == "__main__":
    asyncio.run(main())
