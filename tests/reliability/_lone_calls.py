"""Sequential calls on a new loop in a fresh process; prints how they were answered (JSON).

Run by ``test_loop_runtime``: reply polling is governed by process-wide guards (how many
threads poll or wait in blocking calls, across all clients), so the measurement must not
share a process with what earlier tests left running.

    python -m tests.reliability._lone_calls asyncio|uvloop [auto_batch]   (from the repository)
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import aerospike_fluent as af
from aerospike_fluent import _aio, _bridge
from aerospike_fluent._native import Completer
from aerospike_fluent.server import EmbeddedServer

from ._util import until_on_loop


async def _scenario(srv: EmbeddedServer, auto_batch: bool) -> dict[str, int]:
    answered = 0
    settled_inside = _bridge._answered

    async def counted(fut: asyncio.Future[Any]) -> Any:
        nonlocal answered
        answered += 1
        return await settled_inside(fut)

    _bridge._answered = counted
    seeds = f"{srv.host}:{srv.port}"
    async with af.connect(seeds, spin_wait=0.01, auto_batch=auto_batch) as db:
        s = db.namespace("test").set("lr")
        loop = asyncio.get_running_loop()

        def completer() -> Completer:
            c = _aio.completers[loop]
            assert c is not None
            return c

        await until_on_loop(s, completer)
        c = completer()
        timer_runs = 0

        def timer() -> None:  # runs only when the loop iterates
            nonlocal timer_runs
            timer_runs += 1
            loop.call_later(0.001, timer)

        loop.call_later(0.001, timer)
        # Replies 2 ms late: none can beat its request's first read, so each call answered
        # inside is one answered by polling (the budget is 10 ms).
        srv.fault_delay(2)
        before, polled = answered, c.loop_ops_polled
        wrong = 0
        for i in range(50):
            await s.key(f"p{i}").put({"i": i})
            rec = await s.key(f"p{i}").get()
            wrong += rec is None or rec["i"] != i
        wrong += await s.key("absent").get() is not None
        return {
            "answered": answered - before,
            "polled": c.loop_ops_polled - polled,
            "timer_runs": timer_runs,
            "wrong": wrong,
        }


def main() -> None:
    kind, auto_batch = sys.argv[1], sys.argv[2:] == ["auto_batch"]
    with EmbeddedServer() as srv:
        if kind == "uvloop":
            import uvloop

            out = uvloop.run(_scenario(srv, auto_batch))
        else:
            out = asyncio.run(_scenario(srv, auto_batch))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
