"""A node dies under load, and nothing acknowledged is lost.

Starts a 3-node in-process cluster (replication factor 2), writes with 20 concurrent tasks,
kills a node halfway (its data gone), restarts it, then reads every acknowledged write back
and pages through the set::

    python examples/cluster_failover.py [--records 2000]
"""

from __future__ import annotations

import argparse
import asyncio

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedCluster


async def writer(
    users: af.RecordSet[af.Async], ids: range, acked: list[int], doubtful: list[int]
) -> None:
    for i in ids:
        try:
            await users.key(i).timeout(1, retries=2).put({"n": i})
            acked.append(i)
        except errors.AerospikeError as exc:
            # A write that failed in doubt may or may not have been applied.
            (doubtful if exc.in_doubt else []).append(i)


async def main(records: int) -> None:
    with EmbeddedCluster(nodes=3, replication_factor=2) as cluster:
        async with af.connect(cluster.seeds, tend_interval=0.2) as db:
            print("nodes:", ", ".join(db.node_names()))
            users = db.namespace("test").set("failover")
            acked: list[int] = []
            doubtful: list[int] = []
            step = records // 20
            tasks = [
                asyncio.create_task(writer(users, range(k, k + step), acked, doubtful))
                for k in range(0, records, step)
            ]
            await asyncio.sleep(0.05)
            cluster.nodes[1].kill()  # its copies are gone; the replicas take over
            print("killed node 1 while writing")
            await asyncio.gather(*tasks)
            cluster.nodes[1].restart()
            for _ in range(50):  # the client finds the node again at its next tend
                if len(db.node_names()) == 3:
                    break
                await asyncio.sleep(0.1)
            print(f"acknowledged {len(acked):,}, in doubt {len(doubtful)}")

            rows = await users.keys(acked).get()
            lost = [row.key for row in rows if row.record is None]
            print(f"lost acknowledged writes: {len(lost)}")

            seen = 0
            page = await users.query().page(500)
            seen += len(page.records)
            while page.token is not None:
                page = await users.query().resume(page.token).page(500)
                seen += len(page.records)
            assert len(acked) <= seen <= len(acked) + len(doubtful)
            print(f"paged through {seen:,} records on {len(db.node_names())} nodes")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    asyncio.run(main(parser.parse_args().records))
