"""Batches of plain put rows (``put_many``, auto-batched puts) go over the SDK's own connections
(the wire path, the default) and give exactly the rows the crate's batch gives
(``AEROSPIKE_FLUENT_CRATE_RECORDS=1``): values written, a row the server refuses, a refusal that
ends the reply, a dropped connection and a timeout (in doubt), sync and async, on asyncio and trio.

A batch of one key shows the path taken: the wire path sends it as a batch request, the crate
as a single-record write. A dropped connection's error text does too. Across the nodes of a
cluster: ``test_batch_wire_cluster.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor
from .test_batch_wire import both_paths, counting, requests_per_path, use_crate
from .test_fluent_autobatch_verbs import gather

# The wire path's text for a connection lost after the request went out.
LOST = "the connection was lost before the answer"
# ... and for a request with no answer before the deadline.
LATE = "no answer before the deadline"


@pytest.fixture
def srv() -> Iterator[EmbeddedServer]:
    """A server of its own: its counters and faults belong to one test."""
    with EmbeddedServer() as s:
        yield s


def bins_of(i: int) -> dict[str, Any]:
    return {"i": i, "s": f"é{i}", "f": i / 7, "b": bytes([i]) * i, "t": i % 2 == 0, "gone": None}


async def test_put_rows_give_the_crate_path_s_rows_and_values(
    fl: Flavor, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    written = []
    for crate in (True, False):
        use_crate(monkeypatch, crate)
        async with fl.connect(fl.seeds) as db:
            s = db.namespace("test").set(f"{set_name}{int(crate)}")
            rows = await fl.run(s.put_many({i: bins_of(i) for i in range(12)}, ttl=3600))
            keyed = [(r.key[2], r.result_code, r.error, r.in_doubt, r.bins) for r in rows]
            got = [await fl.run(s.key(i).get()) for i in range(12)]
            written.append((keyed, [(r.bins, r.generation, r.ttl and r.ttl > 3000) for r in got]))
    assert written[0] == written[1]
    keyed, got = written[1]
    assert [k[:4] for k in keyed] == [(i, 0, None, False) for i in range(12)]
    assert keyed[0][4] == dict.fromkeys(bins_of(0))
    want = [({k: v for k, v in bins_of(i).items() if v is not None}, 1, True) for i in range(12)]
    assert got == want


@counting
async def test_a_one_key_put_batch_is_a_batch_request_on_the_wire_path(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    def build(db: af.Client[Any]) -> Any:
        return db.namespace("test").set(set_name).put_many({1: {"i": 1}})

    assert await requests_per_path(fl, srv, monkeypatch, build, "write") == [(1, 0), (0, 1)]


async def test_a_row_the_server_refuses_fails_alone(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    def build(db: af.Client[Any]) -> Any:
        s = db.namespace("test").set(set_name)
        return s.put_many({1: {"i": 1}, 2: {"big": b"x" * (9 << 20)}, 3: {"i": 3}})

    crate, wire = await both_paths(fl, srv.seeds, monkeypatch, build)
    # The second run finds the records the first wrote.
    assert [r[:3] for r in wire] == [r[:3] for r in crate]
    assert [r[3] and r[3][1] for r in wire] == [r[3] and r[3][1] + 1 for r in crate]
    assert [(row[1], row[2] and row[2][:3]) for row in wire] == [
        (0, None),
        (13, ("RecordTooBigError", 13, False)),
        (0, None),
    ]
    if not os.environ.get("AEROSPIKE_HOST"):  # a batch request on the wire path, alone too
        async with fl.connect(srv.seeds) as db:
            before = srv.stats()
            big: dict[str | int | bytes, dict[str, Any]] = {2: {"big": b"x" * (9 << 20)}}
            rows = await fl.run(db.namespace("test").set(set_name).put_many(big))
            after = srv.stats()
        assert rows[0].result_code == 13 and not rows[0].in_doubt
        assert (after["batch"] - before["batch"], after["write"] - before["write"]) == (1, 0)


@pytest.mark.parametrize("keys", [[0], [0, 1, 2, 30]])
async def test_a_refusal_that_ends_the_reply_is_not_in_doubt(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str, keys: list[int]
) -> None:
    def build(db: af.Client[Any]) -> Any:
        return db.namespace("test").set(set_name).put_many({k: {"i": k} for k in keys})

    crate, wire = await both_paths(fl, srv.seeds, monkeypatch, build, lambda: srv.fault_fail(14, 1))
    # The crate writes a lone key with a single-record write; either way the words are one.
    assert wire == crate
    # The first row's failure stopped the request: the others were not run.
    assert [row[1] for row in wire] == [14, -15, -15, -15][: len(keys)]
    assert not any(row[2][2] for row in wire)


async def test_a_dropped_connection_leaves_the_rows_in_doubt(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    def build(db: af.Client[Any]) -> Any:
        return db.namespace("test").set(set_name).put_many({k: {"i": k} for k in (0, 1, 40)})

    crate, wire = await both_paths(fl, srv.seeds, monkeypatch, build, lambda: srv.fault_drop(0))
    # The failure's text names the crate's attempts: compare what it says, not how.
    assert [(*r[:2], r[2][:3]) for r in wire] == [(*r[:2], r[2][:3]) for r in crate]
    assert all(r[1] == 9 and r[2][:3] == ("ConnectionError", -8, True) for r in wire)
    assert all(LOST in r[2][3] for r in wire)


async def test_a_late_node_leaves_the_rows_in_doubt(
    fl: Flavor, srv: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(srv.seeds, total_timeout=0.2) as db:
        srv.fault_delay(800, 1)
        rows = await fl.rows(
            lambda: db.namespace("test").set(set_name).put_many({0: {"i": 0}, 1: {"i": 1}})
        )
        srv.clear_faults()
    assert [row.result_code for row in rows] == [9, 9]
    assert all(isinstance(row.error, errors.TimeoutError) for row in rows)
    assert all(row.in_doubt and row.error.in_doubt for row in rows)
    assert all(LATE in str(row.error) for row in rows)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> Any:
    return request.param


@pytest.mark.anyio
async def test_auto_batched_puts_write_over_the_wire_path(
    srv: EmbeddedServer, set_name: str
) -> None:
    async with af.connect(srv.seeds, auto_batch=True) as db:
        s = db.namespace("test").set(set_name)
        await gather(*(s.key(k).put({"w": 0}) for k in range(20)))  # the loop's pool is ready
        out = await gather(*(s.key(k).put(bins_of(k)) for k in range(30)))
        assert out == [None] * 30
        got = await gather(*(s.key(k).get() for k in range(30)))
    async with af.connect(srv.seeds, auto_batch=True, total_timeout=0.3) as db:
        s = db.namespace("test").set(set_name)
        await gather(*(s.key(k).put({"w": 0}) for k in range(20)))
        srv.fault_delay(1000)
        late = await gather(*(s.key(k).put({"i": -1}) for k in range(5)))
        srv.clear_faults()
    want = [{"w": 0, **{k: v for k, v in bins_of(i).items() if v is not None}} for i in range(20)]
    want += [{k: v for k, v in bins_of(i).items() if v is not None} for i in range(20, 30)]
    assert [r.bins for r in got] == want
    # Each caller gets its own in-doubt error, naming its key, in the wire path's words.
    assert all(isinstance(e, errors.TimeoutError) and e.in_doubt for e in late), late
    assert [e.key[2] for e in late] == list(range(5))
    assert len({id(e) for e in late}) == 5
    assert all(LATE in str(e) for e in late), late
