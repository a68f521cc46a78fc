"""A client nobody closed gives its connections back when it is collected."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import subprocess
import sys
import time
import warnings

import pytest

import aerospike_fluent as af
from aerospike_fluent.server import EmbeddedServer

from ._util import open_fds, seeds_of


def _fds_back_to(baseline: int, slack: int, seconds: float = 10.0) -> int:
    """Collect garbage and wait (bounded) for the fd count to come down to the baseline."""
    deadline = time.monotonic() + seconds
    while True:
        gc.collect()
        if open_fds() <= baseline + slack or time.monotonic() > deadline:
            return open_fds()
        time.sleep(0.05)


def test_unclosed_async_clients_release_their_sockets(server: EmbeddedServer) -> None:
    seeds = seeds_of(server)

    async def one(i: int) -> None:
        db = await af.connect(seeds)
        await db.namespace("test").set("unclosed").key(i).put({"i": i})

    asyncio.run(one(-1))  # the worker runtime and its threads start once
    base = _fds_back_to(open_fds(), 0, 1.0)
    for i in range(40):
        asyncio.run(one(i))
    fds = _fds_back_to(base, 8)
    assert fds <= base + 8, f"40 unclosed clients kept sockets: {base} -> {fds}"


def test_unclosed_sync_clients_release_their_sockets(server: EmbeddedServer) -> None:
    seeds = seeds_of(server)
    af.sync.connect(seeds).namespace("test").set("unclosed").key(-1).get()
    base = _fds_back_to(open_fds(), 0, 1.0)
    for i in range(40):
        db = af.sync.connect(seeds)
        db.namespace("test").set("unclosed").key(i).get()
        del db
    fds = _fds_back_to(base, 8)
    assert fds <= base + 8, f"40 unclosed clients kept sockets: {base} -> {fds}"


def test_an_unclosed_client_warns_and_a_closed_one_does_not(server: EmbeddedServer) -> None:
    seeds = seeds_of(server)
    with pytest.warns(ResourceWarning, match="unclosed aerospike_fluent client"):
        db = af.sync.connect(seeds)
        del db
        gc.collect()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        db = af.sync.connect(seeds)
        db.close()
        del db
        gc.collect()


def test_the_password_is_not_kept_after_connecting(server: EmbeddedServer) -> None:
    async def main() -> None:
        connecting = af.connect(seeds_of(server), user="u", password="s3cret")
        with contextlib.suppress(af.errors.AerospikeError):
            (await connecting).close()  # whether this server accepts the login is not the point
        kept = [getattr(connecting, slot, None) for slot in type(connecting).__slots__]
        assert "s3cret" not in repr(kept)
        with pytest.raises(af.errors.InvalidArgumentError, match="awaited once"):
            await connecting

    asyncio.run(main())


def test_a_client_collected_while_an_exception_propagates_leaves_it_in_place(
    server: EmbeddedServer,
) -> None:
    # The client is on the value stack when the exception is raised (as when Ctrl-C lands
    # right after connecting): its ResourceWarning must not report or clear the exception.
    code = (
        "import sys, warnings\n"
        "from aerospike_fluent import sync\n"
        "warnings.simplefilter('always')\n"
        "try:\n"
        "    x = [sync.connect(sys.argv[1]), 1 / 0]\n"
        "except ZeroDivisionError:\n"
        "    print('caught')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, seeds_of(server)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "caught"), done.stderr[-2000:]
    assert "ResourceWarning" in done.stderr
