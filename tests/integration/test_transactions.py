"""Multi-record transactions: commit, abort, conflicts, retries and typed errors, on a
strong-consistency namespace (the embedded server's, or ``AEROSPIKE_HOST`` when it has one)."""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor

LUA = """
function add_to(rec, bin, n)
  rec[bin] = (rec[bin] or 0) + n
  aerospike:update(rec)
  return rec[bin]
end
"""


@pytest.fixture
def seeds(sc_seeds: str) -> str:
    return sc_seeds


@pytest.fixture
def accounts() -> str:
    return "tx_" + uuid.uuid4().hex[:10]


@asynccontextmanager
async def transaction(fl: Flavor, **options: Any) -> AsyncIterator[af.Transaction[Any]]:
    """``async with db.transaction()`` on the async flavors, ``with`` on the sync one."""
    tx = fl.db.transaction(**options)
    if fl.is_async:
        async with tx:
            yield tx
    else:
        with tx:
            yield tx


async def balance(fl: Flavor, accounts: str, key: str) -> Any:
    rec = await fl.run(fl.db.namespace("test").set(accounts).key(key).get())
    return None if rec is None else rec.bins["v"]


async def test_a_clean_exit_commits_every_write_at_once(fl: Flavor, accounts: str) -> None:
    plain = fl.db.namespace("test").set(accounts)
    await fl.run(plain.key("a").put({"v": 1}))
    async with transaction(fl) as tx:
        s = tx.namespace("test").set(accounts)
        await fl.run(s.key("a").put({"v": 10}))
        await fl.run(s.key("b").put({"v": 20}))
        assert (await fl.run(s.key("a").get())).bins == {"v": 10}
        assert await balance(fl, accounts, "a") == 1
        assert await balance(fl, accounts, "b") is None
    assert tx.state == "committed"
    assert await balance(fl, accounts, "a") == 10
    assert await balance(fl, accounts, "b") == 20


async def test_an_exception_aborts_and_is_raised(fl: Flavor, accounts: str) -> None:
    plain = fl.db.namespace("test").set(accounts)
    await fl.run(plain.key("a").put({"v": 1}))
    await fl.run(plain.key("gone").put({"v": 5}))
    with pytest.raises(ZeroDivisionError):
        async with transaction(fl) as tx:
            s = tx.namespace("test").set(accounts)
            await fl.run(s.key("a").put({"v": 2}))
            await fl.run(s.key("new").put({"v": 3}))
            assert await fl.run(s.key("gone").delete()) is True
            assert await fl.run(s.key("gone").get()) is None
            _ = 1 / 0
    assert tx.state == "aborted"
    assert await balance(fl, accounts, "a") == 1
    assert await balance(fl, accounts, "new") is None
    assert await balance(fl, accounts, "gone") == 5


async def test_commit_and_abort_finish_it_and_later_calls_are_refused(
    fl: Flavor, accounts: str
) -> None:
    tx = fl.db.transaction()
    s = tx.namespace("test").set(accounts)
    await fl.run(s.key("a").put({"v": 1}))
    assert await fl.run(tx.commit()) == af.CommitStatus.COMMITTED
    with pytest.raises(errors.TransactionFinishedError, match="committed"):
        await fl.run(s.key("a").put({"v": 2}))
    with pytest.raises(errors.TransactionFinishedError):
        await fl.run(tx.batch().put(s.key("b"), {"v": 1}).execute())
    assert await fl.run(tx.commit()) == af.CommitStatus.ALREADY_COMMITTED
    with pytest.raises(errors.TransactionCommittedError):
        await fl.run(tx.abort())
    other = fl.db.transaction()
    await fl.run(other.namespace("test").set(accounts).key("c").put({"v": 1}))
    assert await fl.run(other.abort()) == af.AbortStatus.ABORTED
    assert await fl.run(other.abort()) == af.AbortStatus.ALREADY_ABORTED
    with pytest.raises(errors.TransactionAbortedError):
        await fl.run(other.commit())
    assert await balance(fl, accounts, "a") == 1
    assert await balance(fl, accounts, "c") is None


async def test_a_locked_record_blocks_other_writers(fl: Flavor, accounts: str) -> None:
    plain = fl.db.namespace("test").set(accounts)
    await fl.run(plain.key("a").put({"v": 1}))
    first, second = fl.db.transaction(), fl.db.transaction()
    await fl.run(first.namespace("test").set(accounts).key("a").put({"v": 2}))
    with pytest.raises(errors.TransactionBlockedError) as caught:
        await fl.run(second.namespace("test").set(accounts).key("a").put({"v": 3}))
    assert caught.value.result_code == 120
    with pytest.raises(errors.TransactionBlockedError):
        await fl.run(plain.key("a").put({"v": 4}))
    with pytest.raises(errors.TransactionBlockedError):
        await fl.run(second.namespace("test").set(accounts).key("a").get())
    assert await balance(fl, accounts, "a") == 1
    assert await fl.run(first.commit()) == af.CommitStatus.COMMITTED
    assert await fl.run(second.abort()) == af.AbortStatus.ABORTED
    assert await balance(fl, accounts, "a") == 2
    await fl.run(plain.key("a").put({"v": 5}))


async def test_a_read_changed_before_commit_fails_verify(fl: Flavor, accounts: str) -> None:
    plain = fl.db.namespace("test").set(accounts)
    await fl.run(plain.key("a").put({"v": 1}))
    tx = fl.db.transaction()
    s = tx.namespace("test").set(accounts)
    assert (await fl.run(s.key("a").get())).bins == {"v": 1}
    await fl.run(s.key("b").put({"v": 1}))
    await fl.run(plain.key("a").put({"v": 2}))
    with pytest.raises(errors.CommitError) as caught:
        await fl.run(tx.commit())
    assert caught.value.stage == "verify" and not caught.value.in_doubt
    assert tx.state == "aborted"
    assert await balance(fl, accounts, "b") is None


async def test_run_transaction_retries_a_conflict_and_returns_the_result(
    fl: Flavor, accounts: str
) -> None:
    plain = fl.db.namespace("test").set(accounts)
    await fl.run(plain.key("a").put({"v": 100}))
    await fl.run(plain.key("b").put({"v": 0}))
    attempts = 0

    async def move(tx: af.Transaction[Any]) -> int:
        nonlocal attempts
        attempts += 1
        s = tx.namespace("test").set(accounts)
        a = (await fl.run(s.key("a").get())).bins["v"]
        if attempts == 1:
            # Another writer changes the balance this attempt read: its verify fails.
            await fl.run(plain.key("a").put({"v": a + 1}))
        await fl.run(s.key("a").put({"v": a - 30}))
        await fl.run(s.key("b").add("v", 30).execute())
        return int(a)

    async def run() -> Any:
        if fl.is_async:
            return await fl.db.run_transaction(move, backoff=0.001)

        def sync_move(tx: af.Transaction[Any]) -> int:
            coro = move(tx)
            try:
                coro.send(None)
            except StopIteration as done:
                return int(done.value)
            raise AssertionError("a sync transaction body suspended")

        return fl.db.run_transaction(sync_move, backoff=0.001)

    assert await run() == 101
    assert attempts == 2
    assert await balance(fl, accounts, "a") == 71
    assert await balance(fl, accounts, "b") == 30


async def test_run_transaction_raises_other_errors_at_once(fl: Flavor, accounts: str) -> None:
    attempts = 0

    async def fail(tx: af.Transaction[Any]) -> None:
        nonlocal attempts
        attempts += 1
        await fl.run(tx.namespace("test").set(accounts).key("a").put({"v": 1}))
        raise KeyError("not a conflict")

    def sync_fail(tx: af.Transaction[Any]) -> None:
        coro = fail(tx)
        try:
            coro.send(None)
        except StopIteration:
            return

    with pytest.raises(KeyError):
        if fl.is_async:
            await fl.db.run_transaction(fail)
        else:
            fl.db.run_transaction(sync_fail)
    assert attempts == 1
    assert await balance(fl, accounts, "a") is None


async def test_batches_operate_and_udf_run_inside(fl: Flavor, accounts: str) -> None:
    await fl.run(fl.db.udf_register(LUA.encode(), "txn_add.lua"))
    plain = fl.db.namespace("test").set(accounts)
    await fl.run(plain.key("u").put({"v": 1}))
    with pytest.raises(RuntimeError):
        async with transaction(fl) as tx:
            s = tx.namespace("test").set(accounts)
            batch = tx.batch()
            for i in range(3):
                batch = batch.put(s.key(f"k{i}"), {"v": i})
            await fl.run(batch.execute())
            got = await fl.run(s.keys(["k0", "k1", "k2"]).get())
            assert [r.bins["v"] for r in got.records if r is not None] == [0, 1, 2]
            assert await fl.run(s.key("u").udf("txn_add", "add_to", "v", 5)) == 6
            await fl.run(s.key("u").add("v", 1).execute())
            raise RuntimeError("abort")
    assert [await balance(fl, accounts, f"k{i}") for i in range(3)] == [None] * 3
    assert await balance(fl, accounts, "u") == 1
    async with transaction(fl) as tx:
        s = tx.namespace("test").set(accounts)
        assert await fl.run(s.key("u").udf("txn_add", "add_to", "v", 5)) == 6
        await fl.run(s.keys(["k0", "k1"]).put({"v": 9}))
    assert await balance(fl, accounts, "u") == 6
    assert await balance(fl, accounts, "k1") == 9


async def test_one_namespace_per_transaction(fl: Flavor, accounts: str) -> None:
    tx = fl.db.transaction()
    tx.namespace("test")
    with pytest.raises(errors.InvalidArgumentError, match="one namespace"):
        tx.namespace("bar")
    assert tx.state == "open"


async def test_queries_read_committed_data_and_background_tasks_are_refused(
    fl: Flavor, accounts: str, caplog: pytest.LogCaptureFixture
) -> None:
    plain = fl.db.namespace("test").set(accounts)
    await fl.run(plain.key("a").put({"v": 1}))
    tx = fl.db.transaction()
    s = tx.namespace("test").set(accounts)
    await fl.run(s.key("a").put({"v": 2}))
    await fl.run(s.key("b").put({"v": 3}))
    with caplog.at_level(logging.WARNING, logger="aerospike_fluent.transactions"):
        rows = await fl.run(s.query().collect())
    assert sorted(r.bins["v"] for r in rows) == [1]
    assert "reads committed data" in caplog.text
    with pytest.raises(errors.TransactionError, match="background"):
        await fl.run(s.query().background().set_bins({"x": 1}).execute())
    await fl.run(tx.abort())


async def test_an_expired_transaction_is_refused_and_rolled_back(fl: Flavor, accounts: str) -> None:
    plain = fl.db.namespace("test").set(accounts)
    await fl.run(plain.key("a").put({"v": 1}))
    tx = fl.db.transaction(timeout=1)
    assert tx.timeout == 1
    s = tx.namespace("test").set(accounts)
    await fl.run(s.key("a").put({"v": 2}))
    await fl.sleep(3.5)
    with pytest.raises(errors.TransactionExpiredError):
        await fl.run(s.key("b").put({"v": 1}))
    assert await balance(fl, accounts, "a") == 1
    await fl.run(plain.key("a").put({"v": 3}))
    with pytest.raises((errors.CommitError, errors.TransactionError)):
        await fl.run(tx.commit())
    assert await balance(fl, accounts, "a") == 3


async def test_non_strong_consistency_namespaces_refuse_transactions(fl: Flavor) -> None:
    tx = fl.db.transaction()
    with pytest.raises(errors.ServerError) as caught:
        await fl.run(tx.namespace("bar").set("tx").key("a").put({"v": 1}))
    assert caught.value.result_code == 16


def test_bad_timeouts_are_refused_before_anything_is_sent(seeds: str) -> None:
    with af_sync.connect(seeds) as db:
        for bad in (1.5, -1, "10", True):
            with pytest.raises(errors.InvalidArgumentError, match="timeout"):
                db.transaction(timeout=bad)  # type: ignore[arg-type]
        for bad_attempts in (0, 1.5):
            with pytest.raises(errors.InvalidArgumentError, match="attempts"):
                db.run_transaction(lambda tx: None, attempts=bad_attempts)  # type: ignore[arg-type]


def test_a_community_server_refuses_transactions() -> None:
    with EmbeddedServer() as server, af_sync.connect(server.seeds) as db:
        tx = db.transaction()
        with pytest.raises(errors.EnterpriseOnlyError):
            tx.namespace("test").set("tx").key("a").put({"v": 1})
        assert db.namespace("test").set("tx").key("a").get() is None


def test_strong_consistency_is_reported_and_deletes_must_be_durable(seeds: str) -> None:
    with af_sync.connect(seeds) as db:
        config = str(db.info("get-config:context=namespace;id=test"))
        assert "strong-consistency=true" in config
        assert "strong-consistency=false" in str(db.info("get-config:context=namespace;id=bar"))
        k = db.namespace("test").set("tx_sc").key(uuid.uuid4().hex)
        k.put({"v": 1})
        with pytest.raises(errors.ForbiddenError):
            k.delete()
        assert k.delete(durable=True) is True


def test_strong_consistency_needs_the_enterprise_edition() -> None:
    with pytest.raises(errors.ClientError, match="enterprise"):
        EmbeddedServer(strong_consistency=["test"])
    with pytest.raises(errors.ClientError, match="not one of the namespaces"):
        EmbeddedServer(edition="enterprise", strong_consistency=["nope"])


async def test_a_view_with_other_defaults_shares_the_transaction(fl: Flavor, accounts: str) -> None:
    tx = fl.db.transaction()
    slow = tx.with_policy(total_timeout=5, send_key=True)
    assert slow.id == tx.id
    await fl.run(slow.namespace("test").set(accounts).key("a").put({"v": 1}))
    with pytest.raises(errors.InvalidArgumentError, match="one namespace"):
        tx.namespace("bar")
    await fl.run(tx.namespace("test").set(accounts).key("b").put({"v": 2}))
    assert await balance(fl, accounts, "a") is None
    assert await fl.run(tx.commit()) == af.CommitStatus.COMMITTED
    assert slow.state == "committed"
    rows = await fl.run(fl.db.namespace("test").set(accounts).query().collect())
    keys = {r.key[2] for r in rows}
    assert "a" in keys and sorted(r.bins["v"] for r in rows) == [1, 2]


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="fault injection")
def test_a_commit_in_doubt_refuses_abort_and_settles_when_retried() -> None:
    with (
        EmbeddedServer(edition="enterprise", strong_consistency=["test"]) as server,
        af_sync.connect(server.seeds) as db,
    ):
        s = db.namespace("test").set("tx_doubt")
        tx = db.transaction()
        tx.namespace("test").set("tx_doubt").key("a").put({"v": 1})
        server.fault_fail(9, 1000)  # every answer: the server timed out (in doubt)
        try:
            with pytest.raises(errors.CommitError) as caught:
                tx.commit()
        finally:
            server.clear_faults()
        assert caught.value.in_doubt and caught.value.stage == "mark_roll_forward"
        assert tx.state == "commit_failed"
        with pytest.raises(errors.TransactionError, match="in-doubt"):
            tx.abort()
        assert tx.commit() == af.CommitStatus.COMMITTED
        rec = s.key("a").get()
        assert rec is not None and rec.bins == {"v": 1}
