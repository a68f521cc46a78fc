"""Single-record gets, puts, exists, operates, touches and deletes over the SDK's own
connections (the default)
give exactly what the crate's path gives (``AEROSPIKE_FLUENT_CRATE_RECORDS=1``): records,
missing keys, named bins, metadata, a server's refusal, a dropped connection and a timeout,
with the same error class, result code and in-doubt flag; sync, asyncio and trio.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor

CRATE = "AEROSPIKE_FLUENT_CRATE_RECORDS"

SCALARS = {"i": -(2**40), "f": 0.125, "s": "é-text", "b": b"\x00\xff", "t": True, "e": ""}


@pytest.fixture
def srv() -> Iterator[EmbeddedServer]:
    """A server of its own: its faults belong to one test."""
    with EmbeddedServer() as s:
        yield s


async def attempt(fl: Flavor, verb: Callable[[], Any]) -> tuple[Any, ...]:
    """What a call ended with: its record or value, or its error's class, code and in-doubt
    flag."""
    try:
        got = await fl.run(verb())
    except af.errors.AerospikeError as e:
        return ("error", type(e).__name__, e.result_code, e.in_doubt)
    return ("ok", _record(got) if isinstance(got, af.Record) else got)


async def both_paths(
    fl: Flavor,
    seeds: str,
    monkeypatch: pytest.MonkeyPatch,
    run: Callable[[af.Client[Any], str], Any],
    set_name: str,
) -> tuple[Any, Any]:
    """``await run(db, set)`` by a client on the crate's path, then by one on the wire path,
    each in a set of its own."""
    out = []
    for crate in (True, False):
        if crate:
            monkeypatch.setenv(CRATE, "1")
        else:
            monkeypatch.delenv(CRATE, raising=False)
        async with fl.connect(seeds) as db:
            out.append(await run(db, f"{set_name}-{'crate' if crate else 'wire'}"))
    return out[0], out[1]


def _record(rec: af.Record | None) -> Any:
    if rec is None or rec.key is None:
        return None
    return (rec.key[2], rec.generation, rec.bins)


async def test_records_and_missing_keys_read_the_same(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    async def run(db: af.Client[Any], set_name: str) -> Any:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key("a").put(SCALARS))
        await fl.run(s.key("a").put({"i": 1}))
        await fl.run(s.key(7).put({"x": None, "y": 2}, send_key=True))
        return [
            _record(await fl.run(s.key("a").get())),
            _record(await fl.run(s.key("a").get("s", "i", "absent"))),
            _record(await fl.run(s.key(7).get())),
            _record(await fl.run(s.key("missing").get())),
            await fl.run(s.key("a").exists()),
            await fl.run(s.key("missing").exists()),
            await fl.run(s.key(7).delete()),
            await fl.run(s.key(7).delete()),
            await fl.run(s.key(7).exists()),
        ]

    crate, wire = await both_paths(fl, srv.seeds, monkeypatch, run, set_name)
    assert wire == crate
    assert wire[0][1] == 2 and wire[0][2] == {**SCALARS, "i": 1}
    assert wire[1][2] == {"s": "é-text", "i": 1}
    assert wire[2][2] == {"y": 2}
    assert wire[3] is None
    assert wire[4:] == [True, False, True, False, False]


def each_verb(
    fl: Flavor, fault: Callable[[], None], timeout: float | None = None, pause: float = 0.0
) -> Callable[[af.Client[Any], str], Any]:
    """A run that reads a record, writes it, asks whether it exists, operates on it, touches it
    and deletes it, each right after ``fault()`` (with ``timeout``: that total timeout and no
    retries; ``pause``: a wait after each)."""

    async def run(db: af.Client[Any], set_name: str) -> Any:
        k = db.namespace("test").set(set_name).key("k")
        await fl.run(k.put({"v": 0}))
        if timeout is not None:
            k = k.timeout(timeout, retries=0)
        out: list[tuple[Any, ...]] = []
        operate = k.add("v", 1).read("v").execute
        for verb in (k.get, lambda: k.put({"v": 1}), k.exists, operate, k.touch, k.delete):
            fault()
            out.append(await attempt(fl, verb))
            if pause:
                await fl.sleep(pause)
        return out

    return run


@pytest.mark.parametrize("code", [14, 22])
async def test_a_refusal_raises_the_same_error(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str, code: int
) -> None:
    run = each_verb(fl, lambda: srv.fault_fail(code, 1))
    crate, wire = await both_paths(fl, srv.seeds, monkeypatch, run, set_name)
    assert wire == crate
    if code == 22:  # refused for good
        assert [o[:3] for o in wire] == [("error", "ForbiddenError", 22)] * 6
        assert not any(o[3] for o in wire)
    else:  # key busy: reads are retried and go through; writes report the refusal
        assert wire[0] == ("ok", ("k", 1, {"v": 0}))
        assert wire[1][:3] == ("error", "KeyBusyError", 14)
        assert wire[2] == ("ok", True)
        assert [o[:3] for o in wire[3:]] == [("error", "KeyBusyError", 14)] * 3


async def test_a_late_reply_times_out_the_same(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    run = each_verb(fl, lambda: srv.fault_delay(800, 1), timeout=0.2, pause=0.9)
    crate, wire = await both_paths(fl, srv.seeds, monkeypatch, run, set_name)
    assert wire == crate
    # a read that timed out changed nothing; a write that did may have been applied
    read, write = ("error", "TimeoutError", 9, False), ("error", "TimeoutError", 9, True)
    assert wire == [read, write, read, write, write, write]


async def test_a_dropped_connection_fails_the_same(
    fl: Flavor, srv: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, set_name: str
) -> None:
    run = each_verb(fl, lambda: srv.fault_drop(0), timeout=2)
    crate, wire = await both_paths(fl, srv.seeds, monkeypatch, run, set_name)
    assert wire == crate
    assert [o[0] for o in wire] == ["error"] * 6


async def test_a_node_that_is_down_is_named_not_a_busy_pool(fl: Flavor) -> None:
    with EmbeddedServer() as down:
        async with fl.connect(down.seeds) as db:
            k = db.namespace("test").set("down").key("k")
            await fl.run(k.put({"v": 1}))
            down.stop()
            # the first call finds the pooled connection dead, the second cannot connect, the
            # third finds no node answering for the partition
            verbs = (k.get, lambda: k.put({"v": 2}), k.get, k.add("v", 1).execute, k.touch)
            for verb in verbs:
                with pytest.raises(af.errors.ConnectionError) as caught:
                    await fl.run(verb())
                text = str(caught.value)
                assert "Server not available" in text, text
                assert "pool exhausted" not in text
