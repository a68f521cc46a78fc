"""Opt-in auto-batching: concurrent plain gets of one loop iteration become batch reads.

Async only, on asyncio (the other verbs, and trio and uvloop, are in
``test_fluent_autobatch_verbs.py``); a sync client has no loop and refuses the option (tested
below), so these tests are not flavored (see ``_flavor.py``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

_KINDS = ("read", "batch")
counting = pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_HOST")), reason="counts requests at the embedded server"
)


@pytest.fixture
def anyio_backend() -> str:
    """asyncio (trio: ``test_fluent_autobatch_verbs.py``)."""
    return "asyncio"


@pytest.fixture
def srv() -> Iterator[EmbeddedServer]:
    """A server of its own: its counters and faults belong to one test."""
    with EmbeddedServer() as s:
        yield s


@pytest.fixture
async def seeded(seeds: str, set_name: str) -> AsyncIterator[str]:
    """``set_name`` holding records 0..19 (``{"i": i}``)."""
    async with af.connect(seeds) as db:
        await db.namespace("test").set(set_name).put_many({i: {"i": i} for i in range(20)})
    yield set_name


def _counts(server: EmbeddedServer, before: dict[str, int]) -> dict[str, int]:
    after = server.stats()
    return {k: after.get(k, 0) - before.get(k, 0) for k in _KINDS}


async def test_concurrent_gets_each_get_their_own_record(seeds: str, seeded: str) -> None:
    keys = [*range(25), 3, 3]  # five missing, one key asked three times
    async with af.connect(seeds) as plain, af.connect(seeds, auto_batch=4) as db:
        want = [await plain.namespace("test").set(seeded).key(k).get() for k in keys]
        s = db.namespace("test").set(seeded)
        got = await asyncio.gather(*(s.key(k).get() for k in keys))
    assert got == want
    assert [r and r["i"] for r in got] == [*range(20), None, None, None, None, None, 3, 3]
    for r, k in zip(got, keys, strict=True):
        assert r is None or (r.key is not None and r.key[2] == k)


@counting
async def test_one_iteration_of_gets_is_one_direct_read_then_batches(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=4) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(9)})
        before = srv.stats()
        got = await asyncio.gather(*(s.key(i).get() for i in range(9)))
        assert [r and r["i"] for r in got] == list(range(9))
        # the first goes out at once; the other 8 wait for the end of the iteration: 2 x 4
        assert _counts(srv, before) == {"read": 1, "batch": 2}


@counting
async def test_sequential_and_projected_gets_go_out_alone(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await s.key(1).put({"i": 1, "j": 2})
        before = srv.stats()
        for _ in range(5):
            one = await s.key(1).get()
            assert one is not None and one["i"] == 1
        got = await asyncio.gather(*(s.key(1).get("j") for _ in range(5)))
        assert [r.bins for r in got if r is not None] == [{"j": 2}] * 5
        assert _counts(srv, before) == {"read": 10, "batch": 0}


@counting
async def test_callers_cancelled_before_the_flush_get_cancelled(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(6)})
        before = srv.stats()
        # read 0 goes out at once, reads 1-5 wait for the end of this iteration
        tasks = [asyncio.create_task(s.key(i).get()) for i in range(6)]
        for t in tasks[2:]:
            t.cancel()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        assert [r["i"] for r in done[:2]] == [0, 1]  # type: ignore[index]
        assert all(isinstance(e, asyncio.CancelledError) for e in done[2:])
        # A task's cancel reaches its get at the task's first step, after this iteration's
        # flush: keys 1-5 went as one batch (their answers for 2-5 dropped).
        assert _counts(srv, before) == {"read": 1, "batch": 1}


WORKERS, CALLS_EACH = 50, 20


async def _workers(s: Any, verb: str) -> list[object]:
    """``WORKERS`` tasks, each making ``CALLS_EACH`` calls one after the other (``mixed``: a
    put then a get of the key it wrote); returns what each call gave."""
    got: list[object] = []

    async def worker(w: int) -> None:
        for i in range(CALLS_EACH):
            key = s.key((w * CALLS_EACH + i) % 100)
            if verb == "put" or (verb == "mixed" and i % 2 == 0):
                got.append(await key.put({"i": (w * CALLS_EACH + i) % 100}))
            else:
                rec = await key.get()
                got.append(rec and rec["i"])

    await asyncio.gather(*(worker(w) for w in range(WORKERS)))
    return got


@counting
@pytest.mark.parametrize("verb", ["get", "put", "mixed"])
async def test_callers_in_a_steady_loop_go_out_in_few_batch_requests(
    srv: EmbeddedServer, set_name: str, verb: str
) -> None:
    """The benchmarks' c50 workers: each awaits its next call as soon as the last is answered.

    Before 2026-12-06 a caller answered alone (the first call of an iteration goes alone) sent
    its next call alone, and its next: depending on how replies happened to be read, such a run
    went out in requests of 25-50 rows or mostly one request per call.
    """
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(100)})
        before = srv.stats()
        got = await _workers(s, verb)
        after = srv.stats()
    n = {k: after.get(k, 0) - before.get(k, 0) for k in ("read", "write", "batch")}
    calls = WORKERS * CALLS_EACH
    assert sorted(g for g in got if g is not None) == sorted(  # type: ignore[type-var]
        k % 100 for k in range(calls) if verb == "get" or (verb == "mixed" and k % 2)
    )
    single = n["read"] + n["write"]
    # The run's first call goes alone, and another only when no batch request is out (before
    # the fix: one per round of calls, 18-24 of the 1,000 gets, more in a run that fell apart).
    assert single <= 4, n
    # Two requests of 25 rows per round of calls: 40-42 (before the fix: 63-69). A request
    # carries reads or writes, not both: mixed rounds take 44-55.
    assert n["batch"] + single <= calls // (15 if verb == "mixed" else 20), n


@pytest.mark.parametrize("kind", ["put", "get"])
async def test_a_call_held_behind_a_stream_of_full_batches_goes_at_the_next_answer(
    srv: EmbeddedServer, set_name: str, kind: str
) -> None:
    """16 readers keep 4 full requests of 4 gets out (``auto_batch=4``); one more call, held
    while 2 or more requests are out, goes after at most two answers, not when they stop.

    (Here replies often land together, which lets a held call go sooner anyway: 16-35 reader
    calls were answered meanwhile, with or without the two-answer bound.)
    """
    async with af.connect(srv.seeds, auto_batch=4) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(16)})
        done = asyncio.Event()
        answered_meanwhile = 0

        async def reader(i: int) -> None:
            nonlocal answered_meanwhile
            for _ in range(500):  # a bound, should the held call wait for the readers to stop
                rec = await s.key(i).get()
                assert rec is not None and rec["i"] == i
                if done.is_set():
                    return
                answered_meanwhile += 1

        readers = [asyncio.create_task(reader(i)) for i in range(16)]
        for _ in range(5):
            await asyncio.sleep(0)  # the readers' requests are out
        before = answered_meanwhile
        if kind == "put":
            await s.key(99).put({"i": 99})
        else:
            assert await s.key(3).get() is not None
        done.set()
        waited = answered_meanwhile - before
        await asyncio.gather(*readers)
        if kind == "put":
            assert (await s.key(99).get()) is not None
    # at most the readers of the requests answered before it went: 2 answers (of 4 rows each)
    # and the requests already out when it joined (4), counted generously; with no bound it
    # waits for 16 x 500
    assert waited <= 64, waited


async def test_a_joined_get_closed_before_the_flush_is_not_asked_for(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(3)})
        before = srv.stats()
        first = asyncio.create_task(s.key(0).get())  # goes out at once
        joined = [s.key(i).get() for i in (1, 2)]
        joined[1].close()  # dropped before the flush: key 2 is not asked for
        rec = await joined[0]
        assert rec is not None and rec["i"] == 1 and (await first) is not None
        assert _counts(srv, before) == {"read": 2, "batch": 0}  # key 1 alone: a plain read


async def test_a_failed_batch_fails_each_of_its_callers(srv: EmbeddedServer, set_name: str) -> None:
    async with af.connect(srv.seeds, auto_batch=True, max_retries=0) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(5)})
        srv.fault_fail(14, count=2)  # the direct read and the batch of the other four
        out = await asyncio.gather(*(s.key(i).get() for i in range(5)), return_exceptions=True)
    assert all(isinstance(e, errors.KeyBusyError) for e in out), out
    assert len({id(e) for e in out}) == 5  # each caller raises its own exception


async def test_a_closed_client_fails_each_waiting_caller(
    srv: EmbeddedServer, set_name: str
) -> None:
    db = await af.connect(srv.seeds, auto_batch=True)
    s = db.namespace("test").set(set_name)
    await s.key(1).put({"i": 1})
    # The first read goes alone; the other three join the flush at the next loop pass, which
    # hands their batch to the runtime at once: close before it.
    tasks = [asyncio.ensure_future(s.key(1).get()) for _ in range(4)]
    db.close()
    out = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(e, errors.ClientError) for e in out[1:]), out


async def test_an_unknown_namespace_fails_like_a_plain_get(seeds: str) -> None:
    async with af.connect(seeds) as plain, af.connect(seeds, auto_batch=True) as db:
        with pytest.raises(errors.AerospikeError) as alone:
            await plain.namespace("nope").set("s").key(1).get()
        s = db.namespace("nope").set("s")
        out = await asyncio.gather(*(s.key(i).get() for i in range(4)), return_exceptions=True)
    assert [type(e) for e in out] == [type(alone.value)] * 4, out


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.integers(0, 40), max_size=60), st.integers(2, 8))
async def test_gathered_gets_match_plain_gets(
    seeds: str, set_name: str, keys: list[int], most: int
) -> None:
    async with af.connect(seeds) as plain, af.connect(seeds, auto_batch=most) as db:
        p = plain.namespace("test").set(set_name)
        await p.put_many({i: {"i": i, "sq": i * i} for i in range(0, 41, 3)})
        want = [await p.key(k).get() for k in keys]
        s = db.namespace("test").set(set_name)
        assert await asyncio.gather(*(s.key(k).get() for k in keys)) == want


@pytest.mark.parametrize(
    ("option", "error"),
    [
        ("yes", errors.InvalidTypeError),
        (1.5, errors.InvalidTypeError),
        (1, errors.InvalidArgumentError),
        (5001, errors.InvalidArgumentError),
    ],
)
async def test_bad_auto_batch_option_is_refused_before_connecting(
    option: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match="auto_batch"):
        af.connect("127.0.0.1:1", auto_batch=option)  # type: ignore[arg-type]


def test_auto_batch_is_an_async_option() -> None:
    from aerospike_fluent import sync

    with pytest.raises(errors.InvalidArgumentError, match="async"):
        sync.connect("127.0.0.1:1", auto_batch=True)
