"""Read-only batches of plain reads go over the SDK's own connections (the wire path, the
default) and give exactly the rows the crate's batch gives (``AEROSPIKE_FLUENT_CRATE_RECORDS=1``):
records, missing keys, header-only rows, named bins, a server's refusal, a dropped connection
and a timeout, sync and async, batched by hand and auto-batched.

A batch of one key shows the path taken: the wire path sends it as a batch request, the crate
as a single-record read. Across the nodes of a cluster: ``test_batch_wire_cluster.py``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor

CRATE = "AEROSPIKE_FLUENT_CRATE_RECORDS"

counting = pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_HOST")), reason="counts requests at the embedded server"
)


@pytest.fixture
def srv() -> Iterator[EmbeddedServer]:
    """A server of its own: its counters and faults belong to one test."""
    with EmbeddedServer() as s:
        yield s


def snapshot(result: Any) -> list[tuple[Any, ...]]:
    """Everything a batch's rows say: key, code, error (class, code, in doubt, text), record."""
    out: list[tuple[Any, ...]] = []
    for row in result:
        e, rec = row.error, row.record
        error = None if e is None else (type(e).__name__, e.result_code, e.in_doubt, str(e))
        record = None if rec is None else (rec.key, rec.generation, rec.bins)
        out.append((row.key, row.result_code, error, record))
    return out


Build = Callable[[af.Client[Any]], Any]


def use_crate(monkeypatch: pytest.MonkeyPatch, crate: bool) -> None:
    """Clients connected from now on read through the crate's path (True) or the wire path."""
    if crate:
        monkeypatch.setenv(CRATE, "1")
    else:
        monkeypatch.delenv(CRATE, raising=False)


async def both_paths(
    fl: Flavor, seeds: str, monkeypatch: pytest.MonkeyPatch, build: Build, fault: Any = None
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The snapshot of ``build(db)`` run by a client on the crate's path, then on the wire path
    (``fault()`` is called before each)."""
    out = []
    for crate in (True, False):
        use_crate(monkeypatch, crate)
        async with fl.connect(seeds) as db:
            if fault is not None:
                fault()
            out.append(snapshot(await fl.rows(lambda: build(db))))
    return out[0], out[1]


async def load(db: af.Client[Any], fl: Flavor, set_name: str) -> None:
    s = db.namespace("test").set(set_name)
    for i in range(12):
        bins = {
            "i": i,
            "s": f"é{i}",
            "f": i / 7,
            "b": bytes([i]) * i,
            "t": i % 2 == 0,
            "l": [i, "x", [1.5, None]],
            "m": {"a": i, 7: b"raw"},
        }
        await fl.run(s.key(i).put(bins, send_key=i % 3 == 0))


async def test_plain_reads_give_the_crate_path_s_rows(
    fl: Flavor, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    await load(fl.db, fl, set_name)

    def keyed(db: af.Client[Any]) -> Any:
        return db.namespace("test").set(set_name).keys([*range(0, 16, 2), 3, 3, 99]).get()

    def mixed(db: af.Client[Any]) -> Any:
        s = db.namespace("test").set(set_name)
        return (
            db.batch()
            .get(s.key(1))
            .get_header(s.key(2))
            .get(s.key(3), "i", "l")
            .get(s.key(50))
            .get_header(s.key(51))
            .get(s.key(4), "nope")
            .execute()
        )

    for build in (keyed, mixed):
        crate, wire = await both_paths(fl, fl.seeds, monkeypatch, build)
        assert wire == crate
    _, wire = await both_paths(fl, fl.seeds, monkeypatch, mixed)
    assert [row[1] for row in wire] == [0, 0, 0, 2, 2, 0]
    assert wire[1][3][2] == {} and wire[2][3][2].keys() == {"i", "l"}
    assert wire[0][3][2]["m"] == {"a": 1, 7: b"raw"}


async def requests_per_path(
    fl: Flavor,
    srv: EmbeddedServer,
    monkeypatch: pytest.MonkeyPatch,
    build: Build,
    single: str,
) -> list[tuple[int, int]]:
    """The single-record (``single``: the server's counter) and batch requests ``build(db)``
    made on the crate's path, then on the wire path; each row must have succeeded."""
    out = []
    for crate in (True, False):
        use_crate(monkeypatch, crate)
        async with fl.connect(srv.seeds) as db:
            before = srv.stats()
            rows = await fl.run(build(db))
            after = srv.stats()
            assert [row.result_code for row in rows] == [0] * len(rows)
            out.append((after[single] - before[single], after["batch"] - before["batch"]))
    return out


@counting
async def test_a_one_key_batch_is_a_batch_request_on_the_wire_path(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    async with fl.connect(srv.seeds) as db:
        await fl.run(db.namespace("test").set(set_name).key(1).put({"i": 1}))

    def build(db: af.Client[Any]) -> Any:
        return db.namespace("test").set(set_name).keys([1]).get()

    assert await requests_per_path(fl, srv, monkeypatch, build, "read") == [(1, 0), (0, 1)]


@pytest.mark.parametrize("code", [14, 4])
@pytest.mark.parametrize("retries", [0, 2])
async def test_a_refused_batch_gives_the_crate_path_s_rows(
    fl: Flavor,
    srv: EmbeddedServer,
    monkeypatch: pytest.MonkeyPatch,
    set_name: str,
    code: int,
    retries: int,
) -> None:
    async with fl.connect(srv.seeds) as db:
        await load(db, fl, set_name)

    def build(db: af.Client[Any]) -> Any:
        s = db.namespace("test").set(set_name)
        return s.keys([0, 1, 2, 30]).timeout(2, retries=retries).get()

    crate, wire = await both_paths(
        fl, srv.seeds, monkeypatch, build, lambda: srv.fault_fail(code, 1)
    )
    assert wire == crate
    # The failure is the first row's; the request stopped there.
    assert [row[1] for row in wire] == [code, -15, -15, -15]


@pytest.mark.parametrize(("retries", "codes"), [(0, [9, 9, 9]), (1, [0, 0, 2])])
async def test_a_dropped_connection_gives_the_crate_path_s_rows(
    fl: Flavor,
    srv: EmbeddedServer,
    monkeypatch: pytest.MonkeyPatch,
    set_name: str,
    retries: int,
    codes: list[int],
) -> None:
    async with fl.connect(srv.seeds) as db:
        await load(db, fl, set_name)

    def build(db: af.Client[Any]) -> Any:
        s = db.namespace("test").set(set_name)
        return s.keys([0, 1, 40]).timeout(2, retries=retries).get()

    crate, wire = await both_paths(fl, srv.seeds, monkeypatch, build, lambda: srv.fault_drop(0))
    assert [row[1] for row in wire] == codes
    if retries == 0:
        # The failure's text names the crate's attempts: compare what it says, not how.
        assert [(*r[:2], r[2] and r[2][:3]) for r in wire] == [
            (*r[:2], r[2] and r[2][:3]) for r in crate
        ]
        assert all(r[2] and r[2][:3] == ("ConnectionError", -8, False) for r in wire)
    else:
        assert wire == crate


async def test_a_late_node_times_the_rows_out(
    fl: Flavor, srv: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(srv.seeds) as db:
        await load(db, fl, set_name)
        srv.fault_delay(800, 1)
        rows = await fl.rows(
            lambda: db.namespace("test").set(set_name).keys([0, 1]).timeout(0.2, retries=0).get()
        )
    assert [row.result_code for row in rows] == [9, 9]
    assert all(isinstance(row.error, errors.TimeoutError) for row in rows)
    assert not any(row.in_doubt for row in rows)


@pytest.fixture
def anyio_backend() -> str:
    """asyncio: auto-batching under trio is in ``test_fluent_autobatch_verbs.py``."""
    return "asyncio"


@counting
@pytest.mark.anyio
async def test_auto_batched_gets_and_exists_read_over_the_wire_path(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds) as plain:
        s = plain.namespace("test").set(set_name)
        await s.put_many({i: {"i": i, "l": [i]} for i in range(40)})
        keys = [*range(50), 7, 7]
        want = [await s.key(k).get() for k in keys]
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        for k in range(20):  # the loop's own runtime and pool are ready after these
            await s.key(k).get()
        before = srv.stats()
        got, found = await asyncio.gather(
            asyncio.gather(*(s.key(k).get() for k in keys)),
            asyncio.gather(*(s.key(k).exists() for k in keys)),
        )
        after = srv.stats()
    assert [r and (r.key, r.generation, r.bins) for r in got] == [
        r and (r.key, r.generation, r.bins) for r in want
    ]
    assert found == [k < 40 for k in keys]
    assert after["batch"] > before["batch"]
