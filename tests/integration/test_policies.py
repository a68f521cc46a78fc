"""``connect(policy=...)``: defaults per command family reach every path a call can take, a
call's own options win over them, and views and profiles layer over the client's."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.policy import Replica
from aerospike_fluent.server import EmbeddedCluster

from ._flavor import Flavor

FAMILIES = ("read", "write", "batch", "udf")

EMBEDDED_ONLY = pytest.mark.skipif(
    bool(os.environ.get("AEROSPIKE_HOST")), reason="injects faults into the embedded server"
)


async def _stored_keys(fl: Flavor, db: af.Client[Any], set_name: str) -> dict[int, object]:
    """Per record's ``n`` bin, the user key the server stored with it (``None``: none)."""
    records = await fl.run(db.namespace("test").set(set_name).query().collect())
    return {r["n"]: r.user_key for r in records}


async def test_send_key_by_default_on_every_write_path(fl: Flavor, set_name: str) -> None:
    async with fl.connect(fl.seeds, policy=af.Policy(send_key=True)) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key("single").put({"n": 1}))
        await fl.run(s.key("chain").add("n", 2).execute())
        await fl.run(s.keys(["many1", "many2"]).put({"n": 3}))
        await fl.run(s.put_many({"bulk": {"n": 4}}))
        await fl.run(db.batch().put(s.key("row"), {"n": 5}).execute())
        await fl.run(s.key("opt_out").put({"n": 6}, send_key=False))
        stored = await _stored_keys(fl, db, set_name)
    assert stored[1] == "single"
    assert stored[2] == "chain"
    assert stored[3] in ("many1", "many2")
    assert stored[4] == "bulk"
    assert stored[5] == "row"
    assert stored[6] is None  # the call's own send_key=False wins


async def test_without_a_policy_no_key_is_stored(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("k").put({"n": 1}))
    await fl.run(s.key("k2").put({"n": 2}, send_key=True))
    assert await _stored_keys(fl, fl.db, set_name) == {1: None, 2: "k2"}


async def test_a_default_ttl_applies_until_a_call_gives_its_own(fl: Flavor, set_name: str) -> None:
    async with fl.connect(fl.seeds, policy=af.Policy(ttl=5000)) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key(1).put({"a": 1}))
        await fl.run(s.keys([2, 3]).put({"a": 1}))
        await fl.run(s.key(4).put({"a": 1}, ttl=100))
        records = (await fl.run(s.keys([1, 2, 4]).get())).records
        ttls = [r.ttl if r is not None else None for r in records]
        assert all(isinstance(t, int) for t in ttls), ttls
        assert 4990 <= ttls[0] <= 5000 and 4990 <= ttls[1] <= 5000, ttls  # type: ignore[operator]
        assert 90 <= ttls[2] <= 100, ttls  # type: ignore[operator]
        keeping = db.with_policy(ttl="keep")
        await fl.run(keeping.namespace("test").set(set_name).key(4).put({"b": 2}))
        rec = await fl.run(s.key(4).get())
        assert rec is not None and 90 <= rec.ttl <= 100 and rec["b"] == 2


@EMBEDDED_ONLY
async def test_durable_delete_by_default_reaches_the_server(fl: Flavor, set_name: str) -> None:
    # a Community server refuses durable deletes: the refusal shows the flag was sent
    async with fl.connect(fl.seeds, policy=af.Policy(durable_delete=True)) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key(1).put({"a": 1}))
        with pytest.raises(errors.EnterpriseOnlyError):
            await fl.run(s.key(1).delete())
        result = await fl.run(db.batch().delete(s.key(1)).execute())
        with pytest.raises(errors.EnterpriseOnlyError):
            result.raise_on_error()
        assert await fl.run(s.key(1).delete(durable=False)) is True


@EMBEDDED_ONLY
def test_retry_writes_by_default_retries_a_refused_write(set_name: str) -> None:
    key_busy = 14
    with af_sync.connect("embedded://", policy=af.Policy(retry_writes=True)) as db:
        server = db.embedded_server
        assert server is not None
        s = db.namespace("test").set(set_name)
        server.fault_fail(key_busy, 1)
        s.key(1).put({"a": 1})  # the first attempt is refused, the retry lands
        assert s.key(1).get() is not None
        server.fault_fail(key_busy, 1)
        with pytest.raises(errors.KeyBusyError):
            s.key(1).timeout(retry_writes=False).put({"a": 2})  # the call's own choice wins
        once = db.with_policy(retry_writes=False)
        server.fault_fail(key_busy, 1)
        with pytest.raises(errors.KeyBusyError):
            once.namespace("test").set(set_name).key(1).put({"a": 3})


@EMBEDDED_ONLY
@pytest.mark.parametrize("patient", ["read", "write", "batch", "udf"])
def test_each_family_has_its_own_timeout(patient: str, set_name: str) -> None:
    # every answer comes 0.4 s late: only the family given 5 s sees it
    sections: dict[str, Any] = {f: {"total_timeout": 5 if f == patient else 0.1} for f in FAMILIES}
    with af_sync.connect("embedded://", policy=af.Policy(max_retries=0, **sections)) as db:
        server = db.embedded_server
        assert server is not None
        s = db.namespace("test").set(set_name)
        s.key(1).put({"a": 1})
        calls: dict[str, Callable[[], object]] = {
            "read": lambda: s.key(1).get(),
            "write": lambda: s.key(1).put({"a": 2}),
            "batch": lambda: s.keys([1, 2]).get().raise_on_error(),
            "udf": lambda: s.key(1).udf("no_such_module", "f"),
        }
        server.fault_delay(400)
        try:
            for family, call in calls.items():
                if family == patient and family == "udf":
                    with pytest.raises(errors.UdfError, match="UDF: Execution Error 1"):
                        call()
                elif family == patient:
                    call()
                else:
                    with pytest.raises(errors.TimeoutError):
                        call()
        finally:
            server.clear_faults()


@EMBEDDED_ONLY
def test_master_reads_one_node_and_master_proles_reads_both() -> None:
    with EmbeddedCluster(nodes=2, replication_factor=2) as cluster:
        cases: tuple[tuple[Replica, int], ...] = (("master", 1), ("master_proles", 2))
        for replica, nodes_read in cases:
            with af_sync.connect(cluster.seeds, policy=af.Policy(replica=replica)) as db:
                k = db.namespace("test").set("replicas").key(replica)
                k.put({"a": 1})
                for node in cluster.nodes:
                    node.reset_stats()
                for _ in range(20):
                    assert k.get() is not None
                reads = [node.stats()["read"] for node in cluster.nodes]
                assert sum(reads) == 20, reads
                assert sum(1 for r in reads if r) == nodes_read, (replica, reads)


def test_profiles_and_views_layer_over_the_client(seeds: str) -> None:
    nightly = af.Policy(total_timeout=30, max_retries=5)
    with af_sync.connect(
        seeds,
        policy=af.Policy(send_key=True, read={"total_timeout": 0.25}),
        profiles={"nightly": nightly, "nightly_quiet": nightly.derive(send_key=False)},
    ) as db:
        view = db.with_policy("nightly")
        assert view.policy == af.Policy(
            total_timeout=30, max_retries=5, send_key=True, read={"total_timeout": 0.25}
        )
        full = view.policy.resolved()
        assert full.write == af.Limits(
            total_timeout=30, socket_timeout=0, max_retries=5, retry_pause=0
        )
        # a family's own setting wins over the top level, wherever each was set
        assert full.read is not None and full.read == af.Limits(
            total_timeout=0.25, socket_timeout=0, max_retries=5, retry_pause=0
        )
        assert db.with_policy("nightly_quiet").policy.resolved().send_key is False
        assert view.native.call_defaults == view.policy._call_defaults()
        assert db.native.call_defaults != view.native.call_defaults
        with pytest.raises(errors.InvalidArgumentError, match="unknown profile 'nighlty'"):
            db.with_policy("nighlty")
        with pytest.raises(errors.InvalidArgumentError, match="did you mean 'max_retries'"):
            db.with_policy(max_retry=1)  # type: ignore[call-arg]


@EMBEDDED_ONLY
def test_strong_consistency_read_modes_route_reads_and_ap_namespaces_refuse_them() -> None:
    with EmbeddedCluster(
        nodes=2, replication_factor=2, edition="enterprise", strong_consistency=["test"]
    ) as cluster:
        # On a strong-consistency namespace a session read goes to the master whatever the
        # replica setting; allow_replica follows it; linearize reads answer as well.
        cases: tuple[tuple[str, int], ...] = (
            ("session", 1),
            ("allow_replica", 2),
            ("linearize", 0),
        )
        for mode, nodes_read in cases:
            policy = af.Policy(replica="master_proles", read_mode_sc=mode)  # type: ignore[arg-type]
            with af_sync.connect(cluster.seeds, policy=policy) as db:
                k = db.namespace("test").set("sc_reads").key(mode)
                k.put({"a": 1})
                for node in cluster.nodes:
                    node.reset_stats()
                for _ in range(20):
                    assert k.get() is not None and k.exists()
                reads = [node.stats()["read"] for node in cluster.nodes]
                assert sum(reads) == 40, reads
                if nodes_read:
                    assert sum(1 for r in reads if r) == nodes_read, (mode, reads)
                # AP namespace 'bar': a strong-consistency mode is refused before it is sent
                ap = db.namespace("bar").set("sc_reads").key(mode)
                ap.put({"a": 1})
                if mode == "session":
                    assert ap.get() is not None
                    continue
                for call in (ap.get, ap.exists):
                    with pytest.raises(errors.InvalidArgumentError, match="read_mode_ap"):
                        call()
        with af_sync.connect(cluster.seeds, policy=af.Policy(read_mode_ap="all")) as db:
            assert db.namespace("bar").set("sc_reads").key("session").get() is not None
