"""Interpreter exit while native threads still complete operations (no fatal GIL error)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.timeout(300)

# Callbacks still running (and releasing the GIL) on Tokio workers while the main thread exits,
# daemon threads blocked in sync calls, an abandoned stream and an open client.
NATIVE = textwrap.dedent(
    """
    import threading, time
    from aerospike_fluent import _native as n
    s = n.EmbeddedServer()
    c = n.connect_blocking(n.ClientConfig(f"{s.host}:{s.port}"))
    def done(result, error):
        time.sleep(0.002)  # releases the GIL inside the callback
    def spin():
        while True:
            c.get_blocking(("test", "exit", 1, None), None, False, None)
    for _ in range(2):
        threading.Thread(target=spin, daemon=True).start()
    for i in range(300):
        c.put(done, ("test", "exit", i, None), {"n": i}, None)
    q = c.query("test", "exit", None, None, None, 0, None, 10)
    time.sleep(0.002)
    """
)

# The shape of examples/batch_load.py and examples/query_to_dataframe.py, smaller.
FLUENT = textwrap.dedent(
    """
    import asyncio
    import aerospike_fluent as af
    async def main():
        async with af.connect("embedded://") as db:
            s = db.namespace("test").set("exit")
            await asyncio.gather(*(s.put_many({i: {"n": i} for i in range(j, j + 500)})
                                   for j in range(0, 2000, 500)))
            await asyncio.gather(*(s.key(i).get() for i in range(300)))
            async for _ in s.query().chunk_size(50).stream():
                break
            assert await s.query().count() == 2000
    asyncio.run(main())
    """
)


@pytest.mark.parametrize("script", [NATIVE, FLUENT], ids=["native", "fluent"])
def test_exit_with_native_work_in_flight_is_clean(script: str) -> None:
    for run in range(20):
        p = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
        )
        assert p.returncode == 0, f"run {run}: exit code {p.returncode}\n{p.stderr[-2000:]}"
        assert "Fatal Python error" not in p.stderr
