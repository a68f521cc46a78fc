"""An aggregation is sent once and ends by its total timeout: a resent one would count records
twice, and an endless stream function must not hold the caller forever."""

from __future__ import annotations

from pathlib import Path

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedServer

from ._util import settle

pytestmark = pytest.mark.timeout(60)

CODE = (Path(__file__).parents[1] / "lua" / "aggregations.lua").read_bytes()
N = 20


def _loaded(db: af_sync.SyncClient) -> af.RecordSet[af.Sync]:
    db.udf_register(CODE, "agg.lua")
    s = db.namespace("test").set("agg")
    for i in range(N):
        s.key(i).put({"n": i})
    return s


def _scans_after_a_while(server: EmbeddedServer) -> int:
    """The scans counted once a second one would have come (the delayed first one is counted
    only when its delay ends)."""
    settle(lambda: server.stats()["scan"] >= 2, 1.5)
    return server.stats()["scan"]


def test_a_slow_node_is_waited_for_not_asked_again(server: EmbeddedServer) -> None:
    with af_sync.connect(server.seeds) as db:
        s = _loaded(db)
        server.reset_stats()
        server.fault_delay(800, count=1)
        # The socket timeout would end the first attempt early and resend it: an aggregation
        # has the one deadline only.
        got = s.query().timeout(20, socket=0.1).aggregate("agg", "count")
        assert got == [N]
        assert _scans_after_a_while(server) == 1


def test_an_aggregation_past_its_deadline_is_a_timeout_not_resent(server: EmbeddedServer) -> None:
    with af_sync.connect(server.seeds) as db:
        s = _loaded(db)
        server.reset_stats()
        server.fault_delay(1000, count=1)
        with pytest.raises(errors.TimeoutError):
            s.query().timeout(0.3).aggregate("agg", "count")
        settle(lambda: server.stats()["scan"] >= 1, 5.0)
        assert _scans_after_a_while(server) == 1


def test_a_lost_connection_fails_the_aggregation_without_resending(
    server: EmbeddedServer,
) -> None:
    with af_sync.connect(server.seeds) as db:
        s = _loaded(db)
        server.reset_stats()
        server.fault_drop(after=0)
        with pytest.raises(errors.ConnectionError, match="not sent again"):
            s.query().timeout(20).aggregate("agg", "count")
        assert server.stats()["scan"] == 0
        assert s.query().aggregate("agg", "count") == [N]


def test_an_endless_stream_function_ends_at_the_deadline(server: EmbeddedServer) -> None:
    with af_sync.connect(server.seeds) as db:
        s = _loaded(db)
        with pytest.raises(errors.TimeoutError):
            s.query().timeout(0.3).aggregate("agg", "endless")
        # The server stopped it soon after the client gave up, and serves the next one.
        assert s.query().timeout(20).aggregate("agg", "count") == [N]
