"""JSON-like documents in map and list bins, edited in place with CDT operations.

Every chain below is one request, however many nested operations it holds.

Runs against the embedded server, or the cluster in ``AEROSPIKE_HOST`` (``host:port``) when set::

    python examples/cdt_documents.py
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import aerospike_fluent as af
from aerospike_fluent import F, ListOrder, ListWrite, MapOrder, Return


def seeds() -> str:
    """The cluster in ``AEROSPIKE_HOST``, else an in-process embedded server."""
    return os.environ.get("AEROSPIKE_HOST") or "embedded://"


ORDER: dict[str, Any] = {
    "customer": {"name": "Ann", "address": {"city": "Paris", "zip": "75001"}},
    "lines": [
        {"sku": "A-1", "qty": 2, "price": 450},
        {"sku": "B-7", "qty": 1, "price": 1290},
    ],
    "status": "open",
}


async def main() -> None:
    async with af.connect(seeds()) as db:
        orders = db.namespace("test").set("ex_cdt")
        order = orders.key("order-1")
        await order.put({"doc": ORDER, "tags": [], "history": []})

        # 1. Nested updates: step into the document with contexts.
        await (
            order.bin("doc")
            .map.at_key("customer")
            .map.at_key("address")
            .map.put("city", "Lyon")
            .bin("doc")
            .map.put("status", "paid")
            .bin("doc")
            .map.at_key("lines")
            .list.append({"sku": "C-3", "qty": 5, "price": 99})
            .bin("doc")
            .map.at_key_create("audit", MapOrder.KEY_ORDERED)
            .map.increment("edits", 1)
            .execute()
        )
        rec = await order.get("doc")
        assert rec is not None
        doc = rec["doc"]
        print("city  :", doc["customer"]["address"]["city"])
        print("status:", doc["status"], "| lines:", len(doc["lines"]), "| audit:", doc["audit"])
        assert doc["customer"]["address"]["city"] == "Lyon" and len(doc["lines"]) == 3

        # 2. Read parts of a document without fetching all of it.
        part = await (
            order.bin("doc")
            .map.get_by_keys(["status", "customer"])
            .bin("doc")
            .map.at_key("lines")
            .list.size()
            .execute()
        )
        print("parts :", part.bins if part else None)

        # 3. Unique tags: ADD_UNIQUE | NO_FAIL ignores duplicates instead of failing.
        unique = ListWrite.ADD_UNIQUE | ListWrite.NO_FAIL
        for tag in ["gift", "express", "gift", "fragile", "express"]:
            await order.bin("tags").list.append(tag, flags=unique).execute()
        tags = await order.get("tags")
        print("tags  :", tags["tags"] if tags else None)
        assert tags is not None and sorted(tags["tags"]) == ["express", "fragile", "gift"]

        # 4. An ordered list as a leaderboard.
        board = db.namespace("test").set("ex_cdt").key("leaderboard")
        await (
            board.bin("scores")
            .list.extend(
                [[310, "ann"], [120, "bob"], [980, "cid"], [450, "dee"], [75, "eve"]],
                order=ListOrder.ORDERED,
            )
            .execute()
        )
        top = await board.bin("scores").list.get_by_rank_range(-3).execute()
        print("top 3 :", top["scores"] if top else None)
        removed = await (
            board.bin("scores").list.remove_by_value_range([0], [200], Return.COUNT).execute()
        )
        print("removed below 200:", removed["scores"] if removed else None)

        # 5. Maps as counters, with their keys in order.
        stats = orders.key("stats")
        for sku in ["A-1", "B-7", "A-1", "C-3", "A-1"]:
            await stats.bin("sold").map.increment(sku, 1, order=MapOrder.KEY_ORDERED).execute()
        best = await stats.bin("sold").map.get_by_rank(-1).execute()
        print("best seller:", best["sold"] if best else None)

        # 6. Collections in filters: orders with more than two lines and a gift tag.
        big_gifts = (F.map_bin("doc").map.at_key("lines").list.size() > 2) & (
            F.list_bin("tags").list.get_by_value("gift") > 0
        )
        found = await orders.query().where(big_gifts).select("doc").collect()
        print("big gift orders:", len(found))
        assert len(found) == 1

        await orders.keys(["order-1", "leaderboard", "stats"]).delete()


if __name__ == "__main__":
    asyncio.run(main())
