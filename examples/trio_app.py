"""The async client under trio: a nursery of producers, a consumer, and cancel scopes.

The same client and builders work on asyncio and trio: native results are handed back to
whichever event loop awaits them.

Runs against the embedded server, or the cluster in ``AEROSPIKE_HOST`` (``host:port``) when set::

    python examples/trio_app.py
"""

from __future__ import annotations

import os
import time

import trio

import aerospike_fluent as af
from aerospike_fluent import F, RecordSet

PRODUCERS = 8
EVENTS_PER_PRODUCER = 250


def seeds() -> str:
    """The cluster in ``AEROSPIKE_HOST``, else an in-process embedded server."""
    return os.environ.get("AEROSPIKE_HOST") or "embedded://"


async def producer(
    events: RecordSet[af.Async], worker: int, sent: trio.MemorySendChannel[str]
) -> None:
    """Write events one by one, as a service handling requests would."""
    async with sent:
        for n in range(EVENTS_PER_PRODUCER):
            key = f"w{worker}-e{n}"
            await events.key(key).put(
                {"worker": worker, "n": n, "kind": "click" if n % 3 else "view"}
            )
            await sent.send(key)


async def counter(db: af.AsyncClient, received: trio.MemoryReceiveChannel[str]) -> int:
    """Count per-worker totals with one atomic operate per event."""
    totals = db.namespace("test").set("ex_trio_totals")
    seen = 0
    async with received:
        async for key in received:
            worker = key.split("-")[0]
            await totals.key(worker).add("events", 1).execute()
            seen += 1
    return seen


async def main() -> None:
    async with af.connect(seeds()) as db:
        events = db.namespace("test").set("ex_trio_events")
        started = time.perf_counter()

        send, receive = trio.open_memory_channel[str](100)
        results: dict[str, int] = {}

        async def run_counter() -> None:
            results["seen"] = await counter(db, receive)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_counter)
            async with send:
                for worker in range(PRODUCERS):
                    nursery.start_soon(producer, events, worker, send.clone())

        total = PRODUCERS * EVENTS_PER_PRODUCER
        elapsed = time.perf_counter() - started
        print(f"{total} events written and counted by {PRODUCERS} tasks in {elapsed:.2f} s")
        assert results["seen"] == total

        # Stream the clicks back; stop early with a cancel scope if it takes too long.
        clicks = 0
        with trio.move_on_after(30) as scope:
            async for _ in events.query().where(F.str_bin("kind") == "click").stream():
                clicks += 1
        print(f"{clicks} clicks streamed back" + (" (timed out)" if scope.cancelled_caught else ""))
        assert clicks == sum(1 for n in range(EVENTS_PER_PRODUCER) if n % 3) * PRODUCERS

        totals = db.namespace("test").set("ex_trio_totals")
        rows = await totals.keys([f"w{w}" for w in range(PRODUCERS)]).get("events")
        print("per worker:", [r["events"] if r else None for r in rows.records])

        # A deadline on one call: cancellation aborts the native operation.
        with trio.move_on_after(5):
            n = await events.query().where("$.kind == 'view'").count()
            print(f"{n} views")

        keys = [f"w{w}-e{n}" for w in range(PRODUCERS) for n in range(EVENTS_PER_PRODUCER)]
        await events.keys(keys).delete()
        await totals.keys([f"w{w}" for w in range(PRODUCERS)]).delete()


if __name__ == "__main__":
    trio.run(main)
