"""``db.with_policy(...)``: a view of the client whose calls default to other limits, sharing
its connections; the client's own defaults stay; a call's ``.timeout(...)`` still wins."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

from ._flavor import Flavor


async def test_a_view_shares_the_connection_and_changes_only_its_defaults(
    fl: Flavor, set_name: str
) -> None:
    db = fl.db
    patient = db.with_policy(total_timeout=timedelta(seconds=30), max_retries=5)
    assert db.policy == af.Policy()
    assert patient.policy == af.Policy(total_timeout=timedelta(seconds=30), max_retries=5)
    assert patient.native.call_defaults == patient.policy._call_defaults()
    s = patient.namespace("test").set(set_name)
    await fl.run(s.key(1).put({"a": 1}))
    rec = await fl.run(db.namespace("test").set(set_name).key(1).get())
    assert rec is not None and rec["a"] == 1
    # one client underneath: the view's calls are in the client's metrics
    assert db.metrics().count("put") == 1
    narrower = patient.with_policy(socket_timeout=0.25)
    assert narrower.policy.resolved().write == af.Limits(
        total_timeout=timedelta(seconds=30), socket_timeout=0.25, max_retries=5, retry_pause=0
    )
    del patient, narrower  # dropping a view closes nothing
    assert db.is_connected


def test_bad_view_limits_are_named(seeds: str) -> None:
    with af_sync.connect(seeds) as db:
        with pytest.raises(errors.InvalidArgumentError, match="policy option total_timeout"):
            db.with_policy(total_timeout=-1)
        with pytest.raises(errors.InvalidTypeError, match="total_timeout"):
            db.with_policy(total_timeout="1")  # type: ignore[arg-type]
        with pytest.raises(errors.InvalidArgumentError, match="max_retries"):
            db.with_policy(max_retries=-1)


def test_closing_a_view_closes_the_client(seeds: str) -> None:
    db = af_sync.connect(seeds)
    view = db.with_policy(total_timeout=5)
    view.close()
    assert db.native.closed
    with pytest.raises(errors.ClientClosedError):
        db.with_policy(total_timeout=1)


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded cluster")
def test_the_view_timeout_applies_and_the_client_keeps_its_own(set_name: str) -> None:
    with (
        EmbeddedCluster(nodes=1, replication_factor=1) as cluster,
        af_sync.connect(cluster.seeds, total_timeout=30, max_retries=0) as db,
    ):
        k = db.namespace("test").set(set_name).key(1)
        k.put({"a": 1})
        hasty = db.with_policy(total_timeout=0.2)
        cluster.nodes[0].pause()
        try:
            with pytest.raises(errors.TimeoutError, match="total timeout 200 ms"):
                hasty.namespace("test").set(set_name).key(1).get()
            # a call's own timeout wins over the view's default
            with pytest.raises(errors.TimeoutError, match="total timeout 100 ms"):
                hasty.namespace("test").set(set_name).key(1).timeout(0.1).get()
        finally:
            cluster.nodes[0].resume()
        assert k.get() is not None  # the client itself still waits up to 30 s
