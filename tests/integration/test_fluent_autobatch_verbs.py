"""Auto-batching of every single-record verb: put, delete, exists, touch, operate (and get).

Run on asyncio, uvloop and trio. Each caller of a batched call must get what the same call
alone gives: its result, or its own error with the right ``in_doubt``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Iterator
from typing import Any

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

counting = pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_HOST")), reason="counts requests at the embedded server"
)
_SINGLE = ("read", "write", "operate", "delete", "udf")


@pytest.fixture(params=["asyncio", "uvloop", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> Any:
    if request.param == "uvloop":
        pytest.importorskip("uvloop")
        return ("asyncio", {"use_uvloop": True})
    return request.param


@pytest.fixture
def srv() -> Iterator[EmbeddedServer]:
    """A server of its own: its counters and faults belong to one test."""
    with EmbeddedServer() as s:
        yield s


async def gather(*calls: Awaitable[Any]) -> list[Any]:
    """Await every call in a task of its own, all started together; errors as values."""
    out: list[Any] = [None] * len(calls)

    async def one(i: int, call: Awaitable[Any]) -> None:
        try:
            out[i] = await call
        except errors.AerospikeError as exc:
            out[i] = exc

    async with anyio.create_task_group() as tg:
        for i, call in enumerate(calls):
            tg.start_soon(one, i, call)
    return out


def _counts(server: EmbeddedServer, before: dict[str, int]) -> dict[str, int]:
    after = server.stats()
    single = sum(after.get(k, 0) - before.get(k, 0) for k in _SINGLE)
    return {"single": single, "batch": after.get("batch", 0) - before.get("batch", 0)}


def _same(value: Any) -> Any:
    """What to compare of a result: a record's user key, bins and generation; an error's kind."""
    if isinstance(value, af.Record):
        return (value.key and value.key[2], value.bins, value.generation)
    if isinstance(value, errors.AerospikeError):
        return (type(value), value.result_code, value.in_doubt, value.key and value.key[2])
    return value


async def _every_verb(db: af.AsyncClient, set_name: str) -> list[Any]:
    s = db.namespace("test").set(set_name)
    calls: list[Awaitable[Any]] = []
    calls += [s.key(i).put({"i": i, "gone": None}) for i in range(4)]  # 0-3 written
    calls += [s.key(i).exists() for i in (10, 11, 20)]
    calls += [s.key(i).touch() for i in (10, 20)]  # 20 is missing: RecordNotFoundError
    calls += [s.key(i).delete() for i in (12, 21)]  # 21 is missing: False
    calls += [s.key(13).add("n", 5).read("n").read("i").execute()]
    calls += [s.key(14).add("n", 1).execute()]  # writes only
    calls += [s.key(22).read("i").execute()]  # read-only on a missing record: None
    calls += [s.key(23).append("t", "x").read("t").execute()]  # creates the record
    calls += [s.key(i).get() for i in (11, 24)]
    calls += [s.key(15).get_header(), s.key(15).get("i")]
    return [_same(r) for r in await gather(*calls)]


async def _seed(db: af.AsyncClient, set_name: str) -> None:
    await db.namespace("test").set(set_name).put_many({i: {"i": i, "n": 1} for i in range(10, 16)})


async def test_each_caller_gets_what_its_call_alone_gives(seeds: str, set_name: str) -> None:
    async with af.connect(seeds) as plain, af.connect(seeds, auto_batch=4) as db:
        await _seed(plain, set_name + "p")
        await _seed(db, set_name + "b")
        want = [await one for one in _sequential(plain, set_name + "p")]
        got = await _every_verb(db, set_name + "b")
        assert got == want
        # and the records hold what they would
        after = [
            _same(await db.namespace("test").set(set_name + "b").key(i).get()) for i in range(25)
        ]
        before = [
            _same(await plain.namespace("test").set(set_name + "p").key(i).get()) for i in range(25)
        ]
        assert after == before


def _sequential(db: af.AsyncClient, set_name: str) -> Iterator[Awaitable[Any]]:
    """The calls of ``_every_verb``, one at a time, their results as ``_same`` gives them."""

    async def alone(call: Awaitable[Any]) -> Any:
        try:
            return _same(await call)
        except errors.AerospikeError as exc:
            return _same(exc)

    s = db.namespace("test").set(set_name)
    for i in range(4):
        yield alone(s.key(i).put({"i": i, "gone": None}))
    for i in (10, 11, 20):
        yield alone(s.key(i).exists())
    for i in (10, 20):
        yield alone(s.key(i).touch())
    for i in (12, 21):
        yield alone(s.key(i).delete())
    yield alone(s.key(13).add("n", 5).read("n").read("i").execute())
    yield alone(s.key(14).add("n", 1).execute())
    yield alone(s.key(22).read("i").execute())
    yield alone(s.key(23).append("t", "x").read("t").execute())
    for i in (11, 24):
        yield alone(s.key(i).get())
    yield alone(s.key(15).get_header())
    yield alone(s.key(15).get("i"))


@counting
async def test_writes_of_one_iteration_are_batch_writes(srv: EmbeddedServer, set_name: str) -> None:
    async with af.connect(srv.seeds, auto_batch=4) as db:
        s = db.namespace("test").set(set_name)
        await s.key("x").put({"i": 0})
        before = srv.stats()
        await gather(*(s.key(i).put({"i": i}) for i in range(9)))
        # the first goes out at once; the other 8 wait for the end of the iteration: 2 x 4
        assert _counts(srv, before) == {"single": 1, "batch": 2}
        before = srv.stats()
        await gather(*(s.key(i).add("i", 1).execute() for i in range(5)))
        assert _counts(srv, before) == {"single": 1, "batch": 1}
        assert [r["i"] for r in await gather(*(s.key(i).get() for i in range(9)))] == [
            1, 2, 3, 4, 5, 5, 6, 7, 8
        ]  # fmt: skip


@counting
async def test_reads_and_writes_go_in_separate_requests(srv: EmbeddedServer, set_name: str) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in (0, 1, 2, 3, 10, 11)})
        before = srv.stats()
        out = await gather(
            s.key("new").put({"i": 9}),  # first: alone
            *(s.key(i).get() for i in range(4)),  # one batch read
            *(s.key(i).exists() for i in range(4)),  # the same batch read
            *(s.key(i).delete() for i in (10, 11)),  # one batch write
            s.key(3).touch(),  # the same batch write
        )
        assert _counts(srv, before) == {"single": 1, "batch": 2}
        assert [r["i"] for r in out[1:5]] == [0, 1, 2, 3]
        assert out[5:] == [True] * 4 + [True, True, None]


@counting
async def test_calls_with_options_go_out_alone(srv: EmbeddedServer, set_name: str) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(4)})
        before = srv.stats()
        await gather(*(s.key(i).put({"i": i}, ttl=100) for i in range(4)))
        await gather(*(s.key(i).touch(ttl=200) for i in range(4)))
        await gather(*(s.key(i).add("i", 1).execute(generation=2) for i in range(4)))
        await gather(*(s.key(i).timeout(2).delete() for i in range(4)))
        assert _counts(srv, before) == {"single": 16, "batch": 0}


async def test_a_failed_row_fails_only_its_caller(srv: EmbeddedServer, set_name: str) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        out = await gather(
            s.key(0).put({"i": 0}),
            s.key(1).put({"i": 1}),
            s.key(2).put({"big": b"x" * (9 << 20)}),  # more than a record may hold
            s.key(3).touch(),  # missing
            s.key(4).put({"i": 4}),
        )
        assert out[:2] == [None, None] and out[4] is None
        assert isinstance(out[2], errors.RecordTooBigError) and out[2].in_doubt is False
        assert out[2].key is not None and out[2].key[2] == 2
        assert isinstance(out[3], errors.RecordNotFoundError) and out[3].in_doubt is False
        assert out[3].key is not None and out[3].key[2] == 3
        assert [await s.key(i).exists() for i in range(5)] == [True, True, False, False, True]


async def test_a_refused_batch_write_is_not_in_doubt(srv: EmbeddedServer, set_name: str) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        srv.fault_fail(14, count=2)  # the lone first put and the batch of the other four
        out = await gather(*(s.key(i).put({"i": i}) for i in range(5)))
        assert all(isinstance(e, errors.KeyBusyError) for e in out), out
        assert [e.in_doubt for e in out] == [False] * 5
        assert [e.key[2] for e in out] == list(range(5))  # each names its own record
        assert len({id(e) for e in out}) == 5  # each caller raises its own exception


async def test_timed_out_batch_writes_are_in_doubt_and_reads_are_not(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=True, total_timeout=0.3) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(5)})
        srv.fault_delay(1000)
        writes = await gather(*(s.key(i).add("i", 1).execute() for i in range(5)))
        reads = await gather(*(s.key(i).get() for i in range(5)))
        srv.clear_faults()
    assert all(isinstance(e, errors.TimeoutError) for e in writes + reads), writes + reads
    assert [e.in_doubt for e in writes] == [True] * 5
    assert [e.in_doubt for e in reads] == [False] * 5
    assert [e.key[2] for e in writes] == list(range(5))


async def test_a_close_fails_batched_writes_in_doubt(srv: EmbeddedServer, set_name: str) -> None:
    db = await af.connect(srv.seeds, auto_batch=True)
    s = db.namespace("test").set(set_name)
    await s.key(0).put({"i": 0})
    srv.fault_delay(3000)
    out: list[Any] = []

    async def writes() -> None:
        out.extend(await gather(*(s.key(i).put({"i": i}) for i in range(5))))

    async with anyio.create_task_group() as tg:
        tg.start_soon(writes)
        await anyio.sleep(0.5)  # every write is out (also on a loaded machine), its reply held
        db.close()
    assert all(isinstance(e, errors.ClientClosedError) for e in out), out
    assert [e.in_doubt for e in out] == [True] * 5


async def test_a_close_fails_batched_puts_on_the_loops_runtime_in_doubt(
    srv: EmbeddedServer, set_name: str, anyio_backend: Any
) -> None:
    # A busy client sends small batches from the loop's own runtime: cut short by a close,
    # their writes are in doubt there too.
    if anyio_backend == "trio":
        pytest.skip("the completer of an asyncio loop is read here")
    from aerospike_fluent import _aio

    completer = _aio.completer(asyncio.get_running_loop())
    assert completer is not None
    db = await af.connect(srv.seeds, auto_batch=True)
    s = db.namespace("test").set(set_name)
    for i in range(5000):  # until the loop's runtime has its pool
        before = completer.loop_ops_started
        await s.key(i % 10).put({"i": i})
        if i and completer.loop_ops_started > before:
            break
        await anyio.sleep(0.001)
    srv.fault_delay(3000)
    out: list[Any] = []

    async def writes() -> None:
        out.extend(await gather(*(s.key(i).put({"i": -i}) for i in range(5))))

    before = completer.loop_ops_started
    async with anyio.create_task_group() as tg:
        tg.start_soon(writes)
        await anyio.sleep(0.5)
        assert completer.loop_ops_started - before == 2  # the lone first call, then the batch
        db.close()
    assert all(isinstance(e, errors.ClientClosedError) for e in out), out
    assert [e.in_doubt for e in out] == [True] * 5


@counting
async def test_calls_dropped_before_the_flush_are_not_sent(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        before = srv.stats()
        calls = [s.key(i).put({"i": i}) for i in range(5)]
        calls[2].close()
        calls[3].close()
        assert await gather(calls[0], calls[1], calls[4]) == [None] * 3
        assert _counts(srv, before) == {"single": 1, "batch": 1}
        assert [await s.key(i).exists() for i in range(5)] == [True, True, False, False, True]


@counting
@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_trio_tasks_cancelled_before_the_flush_are_not_sent(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        before = srv.stats()
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tg:
                for i in range(5):
                    tg.start_soon(s.key(i).put, {"i": i})
                await anyio.lowlevel.checkpoint()  # the tasks have run: 0 is out, 1-4 wait
                scope.cancel()
        assert _counts(srv, before)["batch"] == 0
        assert [await s.key(i).exists() for i in range(1, 5)] == [False] * 4


async def test_a_cancelled_caller_leaves_the_others_their_results(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await s.put_many({i: {"i": i} for i in range(6)})
        srv.fault_delay(200, count=3)
        got: dict[int, Any] = {}

        async def add(i: int, scope: anyio.CancelScope) -> None:
            with scope:
                got[i] = await s.key(i).add("i", 10).read("i").execute()

        scopes = [anyio.CancelScope() for _ in range(6)]
        async with anyio.create_task_group() as tg:
            for i in range(6):
                tg.start_soon(add, i, scopes[i])
            await anyio.sleep(0.05)  # every call is out, its reply held back
            scopes[2].cancel()
            scopes[4].cancel()
        assert {i: r["i"] for i, r in got.items()} == {0: 10, 1: 11, 3: 13, 5: 15}


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_asyncio_gather_of_many_puts_and_gets(seeds: str, set_name: str) -> None:
    async with af.connect(seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        assert await asyncio.gather(*(s.key(i).put({"i": i}) for i in range(300))) == [None] * 300
        got = await asyncio.gather(*(s.key(i).get() for i in range(300)))
        assert [r and r["i"] for r in got] == list(range(300))
