"""TTL and bin-name rules against a server, and what injected transient failures surface as.

The TTLs and bin names a real node misreads or refuses are refused before sending (issue 55):
the record on the server shows that nothing was sent. Runs on the embedded server, or on the
node ``AEROSPIKE_HOST`` names.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedServer

KEEP_TTL_ON_THE_WIRE = 0xFFFF_FFFE


def test_a_ttl_that_is_a_sentinel_on_the_wire_is_refused(sdb: af.SyncClient, set_name: str) -> None:
    rec = sdb.namespace("test").set(set_name).key("k")
    rec.put({"n": 1}, ttl=100)
    for ttl in (KEEP_TTL_ON_THE_WIRE, 0xFFFF_FFFF, 315_360_001):
        with pytest.raises(errors.InvalidArgumentError, match=r"af\.KEEP_TTL"):
            rec.put({"n": 2}, ttl=ttl)
        with pytest.raises(errors.InvalidArgumentError, match=r"af\.NEVER_EXPIRE"):
            rec.touch(ttl=ttl)
    kept = rec.get()
    assert kept is not None and kept.bins == {"n": 1}
    assert kept.ttl is not None and 0 < kept.ttl <= 100


def test_the_named_ttls_do_what_they_say(sdb: af.SyncClient, set_name: str) -> None:
    rec = sdb.namespace("test").set(set_name).key("k")
    rec.put({"n": 1}, ttl=100)
    rec.put({"n": 2}, ttl=af.KEEP_TTL)
    kept = rec.get()
    assert kept is not None and kept.bins == {"n": 2}
    assert kept.ttl is not None and 0 < kept.ttl <= 100
    rec.put({"n": 3}, ttl=315_360_000)
    longest = rec.get()
    assert longest is not None and longest.ttl is not None
    assert 315_359_000 < longest.ttl <= 315_360_000


def test_nul_in_a_bin_name_is_refused_before_sending(sdb: af.SyncClient, set_name: str) -> None:
    rec = sdb.namespace("test").set(set_name).key("k")
    with pytest.raises(errors.InvalidArgumentError, match="NUL"):
        rec.put({"a\x00b": 1})
    with pytest.raises(errors.InvalidArgumentError, match="NUL"):
        rec.put({"ok": 1, "\x00": 2})
    assert rec.get() is None


@pytest.fixture
def faulty() -> Iterator[EmbeddedServer]:
    """A server of its own: its faults must not reach other tests."""
    with EmbeddedServer() as srv:
        yield srv


def test_key_busy_past_the_retries_is_a_key_busy_error(faulty: EmbeddedServer) -> None:
    key_busy = 14
    with af_sync.connect(faulty.seeds) as db:
        rec = db.namespace("test").set("busy").key("k")
        rec.put({"n": 1})
        faulty.fault_fail(key_busy, 3)
        with pytest.raises(errors.KeyBusyError) as caught:
            rec.timeout(2, retries=2).get()
        assert caught.value.result_code == key_busy and caught.value.in_doubt is False
        assert not isinstance(caught.value, TimeoutError)
        faulty.fault_fail(key_busy, 2)
        read = rec.timeout(2, retries=2).get()  # two refusals, the third attempt answers
        assert read is not None and read.bins == {"n": 1}
