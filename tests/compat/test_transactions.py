"""Multi-record transactions through the official C client's API, on a strong-consistency
namespace: commit, abort, locks, expiry, a failed verify, and transactions shared with the SDK."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex

import aerospike_fluent.sync as afs
from aerospike_fluent import errors
from aerospike_fluent.transaction import AbortStatus, CommitStatus

pytestmark = pytest.mark.compat

MRT_BLOCKED = 120
MRT_EXPIRED = 122
UNSUPPORTED_FEATURE = 16


@pytest.fixture(scope="module")
def txc(sc_seeds: str, lua_path: Path) -> Iterator[Any]:
    """The official client connected to the strong-consistency server."""
    host, _, port = sc_seeds.rpartition(":")
    config = {"hosts": [(host, int(port))], "lua": {"user_path": str(lua_path)}}
    c = aerospike.client(config).connect()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def db(sc_seeds: str) -> Iterator[afs.SyncClient]:
    """The SDK's blocking client on the same server."""
    with afs.connect(sc_seeds) as client:
        yield client


def txn_policy(t: Any) -> dict[str, Any]:
    return {"txn": t}


def bins_of(txc: Any, key: tuple[str, str, str]) -> Any:
    """The committed bins seen by a plain read, or None when there is no record."""
    try:
        _, _, bins = txc.get(key)
    except ex.RecordNotFound:
        return None
    return bins


def sdk_bins(db: afs.SyncClient, set_name: str, key: str) -> Any:
    rec = db.namespace("test").set(set_name).key(key).get()
    return None if rec is None else rec.bins


def test_commit_publishes_both_writes_at_once(txc: Any, set_name: str) -> None:
    k1, k2 = ("test", set_name, "c1"), ("test", set_name, "c2")
    txc.put(k1, {"v": 1})
    txc.put(k2, {"v": 2})
    t = aerospike.Transaction()
    txc.put(k1, {"v": 10}, policy=txn_policy(t))
    txc.put(k2, {"v": 20}, policy=txn_policy(t))
    _, _, inside = txc.get(k1, policy=txn_policy(t))
    assert inside == {"v": 10}
    assert bins_of(txc, k1) == {"v": 1}
    assert bins_of(txc, k2) == {"v": 2}
    assert txc.commit(transaction=t) == aerospike.COMMIT_OK
    assert t.state == aerospike.TXN_STATE_COMMITTED
    assert bins_of(txc, k1) == {"v": 10}
    assert bins_of(txc, k2) == {"v": 20}


def test_abort_restores_updated_deleted_and_created_records(txc: Any, set_name: str) -> None:
    kept, dropped, fresh = (("test", set_name, k) for k in ("upd", "del", "new"))
    txc.put(kept, {"v": 1})
    txc.put(dropped, {"v": 2})
    t = aerospike.Transaction()
    txc.put(kept, {"v": 100}, policy=txn_policy(t))
    # SC namespaces refuse non-durable deletes (FORBIDDEN) unless they allow expunges
    txc.remove(dropped, policy={"txn": t, "durable_delete": True})
    txc.put(fresh, {"v": 3}, policy=txn_policy(t))
    _, _, inside = txc.get(fresh, policy=txn_policy(t))
    assert inside == {"v": 3}
    assert bins_of(txc, fresh) is None
    assert txc.abort(transaction=t) == aerospike.ABORT_OK
    assert t.state == aerospike.TXN_STATE_ABORTED
    assert bins_of(txc, kept) == {"v": 1}
    assert bins_of(txc, dropped) == {"v": 2}
    assert bins_of(txc, fresh) is None


def test_plain_write_to_a_locked_record_is_blocked(txc: Any, set_name: str) -> None:
    key = ("test", set_name, "locked")
    txc.put(key, {"v": 1})
    t = aerospike.Transaction()
    txc.put(key, {"v": 2}, policy=txn_policy(t))
    with pytest.raises(ex.AerospikeError) as blocked:
        txc.put(key, {"v": 3})
    assert blocked.value.code == MRT_BLOCKED
    assert bins_of(txc, key) == {"v": 1}
    assert txc.commit(transaction=t) == aerospike.COMMIT_OK
    assert bins_of(txc, key) == {"v": 2}
    txc.put(key, {"v": 4})
    assert bins_of(txc, key) == {"v": 4}


def test_second_transaction_writing_a_locked_record_is_blocked(txc: Any, set_name: str) -> None:
    key = ("test", set_name, "contended")
    txc.put(key, {"v": 1})
    first, second = aerospike.Transaction(), aerospike.Transaction()
    txc.put(key, {"v": 2}, policy=txn_policy(first))
    with pytest.raises(ex.AerospikeError) as blocked:
        txc.put(key, {"v": 3}, policy=txn_policy(second))
    assert blocked.value.code == MRT_BLOCKED
    assert txc.abort(transaction=second) == aerospike.ABORT_OK
    assert txc.commit(transaction=first) == aerospike.COMMIT_OK
    assert bins_of(txc, key) == {"v": 2}


def test_expired_transaction_refuses_writes_and_abort_unlocks(txc: Any, set_name: str) -> None:
    k1, k2 = ("test", set_name, "e1"), ("test", set_name, "e2")
    txc.put(k1, {"v": 1})
    t = aerospike.Transaction()
    t.timeout = 1
    txc.put(k1, {"v": 2}, policy=txn_policy(t))
    time.sleep(3)
    with pytest.raises(ex.AerospikeError) as expired:
        txc.put(k2, {"v": 2}, policy=txn_policy(t))
    assert expired.value.code == MRT_EXPIRED
    txc.abort(transaction=t)
    assert bins_of(txc, k1) == {"v": 1}
    assert bins_of(txc, k2) is None
    txc.put(k1, {"v": 3})
    assert bins_of(txc, k1) == {"v": 3}


def test_commit_fails_when_a_read_record_changed(txc: Any, set_name: str) -> None:
    read, written = ("test", set_name, "r"), ("test", set_name, "w")
    txc.put(read, {"v": 1})
    txc.put(written, {"v": 1})
    t = aerospike.Transaction()
    _, _, seen = txc.get(read, policy=txn_policy(t))
    assert seen == {"v": 1}
    txc.put(written, {"v": 2}, policy=txn_policy(t))
    txc.put(read, {"v": 50})
    with pytest.raises(ex.TransactionFailed):
        txc.commit(transaction=t)
    assert t.state == aerospike.TXN_STATE_ABORTED
    assert bins_of(txc, read) == {"v": 50}
    assert bins_of(txc, written) == {"v": 1}
    txc.put(written, {"v": 3})


def test_sdk_reads_what_the_c_client_committed(txc: Any, db: afs.SyncClient, set_name: str) -> None:
    txc.put(("test", set_name, "a"), {"v": 1})
    t = aerospike.Transaction()
    txc.put(("test", set_name, "a"), {"v": 11}, policy=txn_policy(t))
    txc.put(("test", set_name, "b"), {"v": 12}, policy=txn_policy(t))
    assert sdk_bins(db, set_name, "a") == {"v": 1}
    assert sdk_bins(db, set_name, "b") is None
    assert txc.commit(transaction=t) == aerospike.COMMIT_OK
    assert sdk_bins(db, set_name, "a") == {"v": 11}
    assert sdk_bins(db, set_name, "b") == {"v": 12}


def test_c_client_reads_what_the_sdk_committed(txc: Any, db: afs.SyncClient, set_name: str) -> None:
    db.namespace("test").set(set_name).key("a").put({"v": 1})
    with db.transaction() as tx:
        s = tx.namespace("test").set(set_name)
        s.key("a").put({"v": 21})
        s.key("b").put({"v": 22})
        assert bins_of(txc, ("test", set_name, "a")) == {"v": 1}
    assert tx.state == "committed"
    assert bins_of(txc, ("test", set_name, "a")) == {"v": 21}
    assert bins_of(txc, ("test", set_name, "b")) == {"v": 22}


def test_sdk_sees_originals_after_a_c_client_abort(
    txc: Any, db: afs.SyncClient, set_name: str
) -> None:
    txc.put(("test", set_name, "a"), {"v": 1})
    t = aerospike.Transaction()
    txc.put(("test", set_name, "a"), {"v": 31}, policy=txn_policy(t))
    txc.put(("test", set_name, "b"), {"v": 32}, policy=txn_policy(t))
    assert txc.abort(transaction=t) == aerospike.ABORT_OK
    assert sdk_bins(db, set_name, "a") == {"v": 1}
    assert sdk_bins(db, set_name, "b") is None


def test_c_client_sees_originals_after_an_sdk_abort(
    txc: Any, db: afs.SyncClient, set_name: str
) -> None:
    db.namespace("test").set(set_name).key("a").put({"v": 1})
    tx = db.transaction()
    s = tx.namespace("test").set(set_name)
    s.key("a").put({"v": 41})
    s.key("b").put({"v": 42})
    assert tx.abort() == AbortStatus.ABORTED
    assert bins_of(txc, ("test", set_name, "a")) == {"v": 1}
    assert bins_of(txc, ("test", set_name, "b")) is None


def test_sdk_lock_blocks_a_c_client_plain_write(
    txc: Any, db: afs.SyncClient, set_name: str
) -> None:
    key = ("test", set_name, "k")
    txc.put(key, {"v": 1})
    tx = db.transaction()
    tx.namespace("test").set(set_name).key("k").put({"v": 2})
    with pytest.raises(ex.AerospikeError) as blocked:
        txc.put(key, {"v": 3})
    assert blocked.value.code == MRT_BLOCKED
    assert bins_of(txc, key) == {"v": 1}
    assert tx.commit() == CommitStatus.COMMITTED
    assert bins_of(txc, key) == {"v": 2}
    txc.put(key, {"v": 4})
    assert bins_of(txc, key) == {"v": 4}


def test_c_client_lock_blocks_an_sdk_plain_write(
    txc: Any, db: afs.SyncClient, set_name: str
) -> None:
    txc.put(("test", set_name, "k"), {"v": 1})
    t = aerospike.Transaction()
    txc.put(("test", set_name, "k"), {"v": 2}, policy=txn_policy(t))
    plain = db.namespace("test").set(set_name).key("k")
    with pytest.raises(errors.TransactionBlockedError) as blocked:
        plain.put({"v": 3})
    assert blocked.value.result_code == MRT_BLOCKED
    assert sdk_bins(db, set_name, "k") == {"v": 1}
    assert txc.abort(transaction=t) == aerospike.ABORT_OK
    plain.put({"v": 4})
    assert sdk_bins(db, set_name, "k") == {"v": 4}


def test_transaction_on_a_non_sc_namespace_is_refused(txc: Any, set_name: str) -> None:
    key = ("bar", set_name, "ap")
    t = aerospike.Transaction()
    with pytest.raises(ex.AerospikeError) as write:
        txc.put(key, {"v": 1}, policy=txn_policy(t))
    assert write.value.code == UNSUPPORTED_FEATURE
    with pytest.raises(ex.AerospikeError) as read:
        txc.get(key, policy=txn_policy(t))
    assert read.value.code == UNSUPPORTED_FEATURE
    assert bins_of(txc, key) is None
