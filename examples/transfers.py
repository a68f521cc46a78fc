"""Money transfers with multi-record transactions.

Concurrent tasks move money between accounts with ``db.run_transaction``; conflicts are retried,
and the total never changes. Runs against the embedded server with a strong-consistency
namespace, or the cluster in ``AEROSPIKE_HOST`` (its namespace ``test`` must be
strong-consistency, on an Enterprise server)::

    python examples/transfers.py
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random

import aerospike_fluent as af

ACCOUNTS = 10
OPENING = 100


async def transfer(db: af.AsyncClient, a: int, b: int, amount: int) -> bool:
    """Move ``amount`` from account ``a`` to ``b`` if ``a`` has it; whether it moved."""

    async def move(tx: af.Transaction[af.Async]) -> bool:
        accounts = tx.namespace("test").set("accounts")
        src = await accounts.key(a).get()
        if src is None or src.bins["balance"] < amount:
            return False
        await accounts.key(a).add("balance", -amount).execute()
        await accounts.key(b).add("balance", amount).execute()
        return True

    return bool(await db.run_transaction(move, attempts=20, backoff=0.005))


async def main(seeds: str) -> None:
    async with af.connect(seeds) as db:
        accounts = db.namespace("test").set("accounts")
        for i in range(ACCOUNTS):
            await accounts.key(i).put({"balance": OPENING})

        # One transaction by hand: both writes or neither.
        async with db.transaction() as tx:
            s = tx.namespace("test").set("accounts")
            await s.key(0).add("balance", -5).execute()
            await s.key(1).add("balance", 5).execute()
        print("transaction", tx.id, tx.state)

        rnd = random.Random(7)
        pairs = [rnd.sample(range(ACCOUNTS), 2) for _ in range(200)]
        moves = [transfer(db, a, b, rnd.randint(1, 30)) for a, b in pairs]
        moved = sum(await asyncio.gather(*moves))
        rows = await accounts.keys(range(ACCOUNTS)).get()
        total = sum(r.bins["balance"] for r in rows.records if r is not None)
        print(
            f"{moved} of 200 transfers moved money; total {total} (opened with "
            f"{ACCOUNTS * OPENING})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedded", action="store_true", help="ignore AEROSPIKE_HOST")
    args = parser.parse_args()
    host = None if args.embedded else os.environ.get("AEROSPIKE_HOST")
    asyncio.run(main(host or "embedded://?edition=enterprise&strong_consistency=test"))
