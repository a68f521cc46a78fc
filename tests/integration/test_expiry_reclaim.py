"""The embedded server reclaims expired records in the background (its record count drops);
a record whose TTL was extended or cleared before it fell due is kept."""

from __future__ import annotations

import time

from aerospike_fluent import _native as n
from aerospike_fluent import sync as af_sync


def _records_after(server: n.EmbeddedServer, expected: int, seconds: float) -> int:
    """The server's record count once it reaches `expected`, or when `seconds` have passed."""
    deadline = time.monotonic() + seconds
    while server.stats()["records"] != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return server.stats()["records"]


def test_expired_records_are_reclaimed_and_extended_ones_kept(
    server: n.EmbeddedServer, set_name: str
) -> None:
    with af_sync.connect(f"{server.host}:{server.port}") as db:
        s = db.namespace("test").set(set_name)
        s.put_many({i: {"i": i} for i in range(40)}, ttl=1).raise_on_error()
        s.put_many({i: {"i": i} for i in range(40, 60)}).raise_on_error()
        for i in range(5):
            s.key(i).touch(ttl=600)
        for i in range(5, 8):
            s.key(i).put({"i": i}, ttl=-1)
        assert server.stats()["records"] == 60
        assert _records_after(server, 28, seconds=15) == 28
        kept = sorted(r["i"] for r in s.query().collect())
        assert kept == [*range(8), *range(40, 60)]
        time.sleep(1.5)
        assert server.stats()["records"] == 28
