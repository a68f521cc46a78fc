"""trio runs drive their own runtime too: routing, timers, cancellation, end of the run."""

from __future__ import annotations

import gc
import weakref

import pytest
import trio

import aerospike_fluent as af
from aerospike_fluent import _trio
from aerospike_fluent._native import Completer
from aerospike_fluent.server import EmbeddedServer

from ._util import seeds_of, seven_calls, times_out_before_a_slow_reply, until_on_loop

pytestmark = pytest.mark.timeout(60)


def _completer() -> Completer:
    return _trio._COMPLETER.get()


async def _until_on_loop(s: af.RecordSet[af.Async]) -> None:
    await until_on_loop(s, _completer)


def test_single_record_calls_run_on_the_trio_runtime(server: EmbeddedServer) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("tr")
            await _until_on_loop(s)
            c = _completer()
            assert c.runtime_fileno() is not None
            before = c.loop_ops_started
            await seven_calls(s.key("a"))
            assert c.loop_ops_started - before == 7
            async with trio.open_nursery() as nursery:
                for i in range(100):
                    nursery.start_soon(s.key(i).put, {"i": i})
            recs = [await s.key(i).get() for i in range(100)]
            assert [r["i"] if r else None for r in recs] == list(range(100))

    trio.run(main)


def test_a_timeout_fires_under_trio_while_no_reply_arrives(server: EmbeddedServer) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("tr")
            await _until_on_loop(s)
            await times_out_before_a_slow_reply(server, s.key("slow"))

    trio.run(main)


def test_a_cancelled_trio_call_leaves_no_stale_reply(server: EmbeddedServer) -> None:
    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            s = db.namespace("test").set("tr")
            await s.key("a").put({"who": "a"})
            await s.key("b").put({"who": "b"})
            await _until_on_loop(s)
            before = _completer().loop_ops_started
            server.fault_delay(300, count=1)
            with trio.move_on_after(0.05) as scope:
                await s.key("a").get()
            assert scope.cancelled_caught
            server.clear_faults()
            got = await s.key("b").get()
            assert got is not None and got["who"] == "b"
            assert _completer().loop_ops_started - before == 2

    trio.run(main)


def test_a_trio_run_releases_its_completer_when_it_ends(server: EmbeddedServer) -> None:
    refs: list[weakref.ref[Completer]] = []

    async def main() -> None:
        async with af.connect(seeds_of(server)) as db:
            await _until_on_loop(db.namespace("test").set("tr"))
            refs.append(weakref.ref(_completer()))

    trio.run(main)
    trio.run(main)  # a second run gets a completer of its own
    gc.collect()
    assert len(refs) == 2 and all(r() is None for r in refs)


@pytest.mark.parametrize(("spin_wait", "auto_batch"), [(0, False), (0.01, False), (0.01, True)])
def test_lone_trio_calls_poll_for_their_reply_within_the_budget(
    server: EmbeddedServer, spin_wait: float, auto_batch: bool
) -> None:
    """Every reply comes 2 ms late: too late to be read while the call sends, well within a
    10 ms budget. (An undelayed loopback reply is often read while the call sends: the call
    is then answered without polling, and is not counted as polled; in some runs all are.)"""

    async def main() -> None:
        options: af.ConnectOptions = {"spin_wait": spin_wait, "auto_batch": auto_batch}
        async with af.connect(seeds_of(server), **options) as db:
            s = db.namespace("test").set("tr")
            await _until_on_loop(s)
            server.fault_delay(2)
            before = _completer().loop_ops_polled
            for i in range(50):
                await s.key(f"p{i}").put({"i": i})
                rec = await s.key(f"p{i}").get()
                assert rec is not None and rec["i"] == i
            polled = _completer().loop_ops_polled - before
            server.clear_faults()
            if spin_wait:
                assert polled > 50  # nearly all 100; some start while the run's timer is due
            else:
                assert polled == 0

    trio.run(main)
