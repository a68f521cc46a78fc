"""Login and TLS take the same wire path as a plain cluster: gets, puts, batches and scans go
over the client's own connections, which log in once per session and present the token after.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, TypedDict

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as afs
from aerospike_fluent.errors import AuthenticationError
from aerospike_fluent.server import EmbeddedServer

from .conftest import TLS_NAME, USERS, Pki

pytestmark = pytest.mark.timeout(60)

PASSWORD = USERS["admin"]


class Fast(TypedDict):
    """Connect options that give up sooner (these keys only, to add to any others)."""

    connect_timeout: float
    total_timeout: float


FAST: Fast = {"connect_timeout": 2, "total_timeout": 2}


@pytest.fixture(scope="module")
def secured(pki: Pki) -> Iterator[EmbeddedServer]:
    with EmbeddedServer(tls_cert_file=pki.cert, tls_key_file=pki.key, users=USERS) as srv:
        yield srv


def _secured_options(pki: Pki) -> dict[str, Any]:
    return {"tls_ca_file": pki.ca, "tls_name": TLS_NAME, "user": "admin", "password": PASSWORD}


def _bins(rec: af.Record | None) -> dict[str, Any]:
    assert rec is not None and rec.bins is not None
    return rec.bins


def _wire_total(db: afs.SyncClient | af.Client[af.Async]) -> int:
    return sum(db.native.wire_connections().values())


def test_sync_records_batches_and_scans_use_the_wire_path(
    secured: EmbeddedServer, pki: Pki
) -> None:
    with afs.connect(secured.seeds, **_secured_options(pki), **FAST) as db:
        s = db.namespace("test").set("wire-sec")
        assert _wire_total(db) == 0
        for i in range(20):
            s.key(i).put({"i": i, "tag": "x"})
        opened = _wire_total(db)
        assert opened >= 1, "puts went around the wire path"
        assert [_bins(r.record)["i"] for r in s.keys(list(range(20))).get()] == list(range(20))
        assert _bins(s.key(3).get()) == {"i": 3, "tag": "x"}
        seen = sorted(_bins(r)["i"] for r in s.query())
        assert seen == list(range(20))
        # the scan leased a pooled connection: it is open and counted after the stream ends
        assert _wire_total(db) >= opened


@pytest.mark.anyio
async def test_async_calls_share_one_login_session(secured: EmbeddedServer, pki: Pki) -> None:
    async with af.connect(secured.seeds, **_secured_options(pki), **FAST) as db:
        s = db.namespace("test").set("wire-sec-async")
        got: dict[int, object] = {}

        async def put_then_get(i: int) -> None:
            await s.key(i).put({"i": i})
            rec = await s.key(i).get()
            got[i] = _bins(rec)["i"]

        async with anyio.create_task_group() as tg:
            for i in range(64):
                tg.start_soon(put_then_get, i)
        assert got == {i: i for i in range(64)}
        # several connections were opened concurrently, each authenticated
        assert _wire_total(db) >= 2
        rows = [r async for r in s.query()]
        assert len(rows) == 64


def test_calls_go_on_after_the_server_restarts() -> None:
    with (
        EmbeddedServer(users=USERS) as srv,
        afs.connect(srv.seeds, user="admin", password=PASSWORD, **FAST) as db,
    ):
        k = db.namespace("test").set("renew").key("k")
        k.put({"v": 1})
        assert _wire_total(db) >= 1
        srv.restart()
        # pooled connections died with the old process: new ones log in again
        for _ in range(50):
            try:
                assert _bins(k.get()) == {"v": 1}
                break
            except af.errors.AerospikeError:
                time.sleep(0.1)
        else:
            pytest.fail("no get succeeded after the restart")
        k.put({"v": 2})
        assert _bins(k.get()) == {"v": 2}


def test_a_client_without_login_is_refused_on_the_wire_path(
    secured: EmbeddedServer, pki: Pki
) -> None:
    with (
        afs.connect(secured.seeds, tls_ca_file=pki.ca, tls_name=TLS_NAME, **FAST) as db,
        pytest.raises(AuthenticationError),
    ):
        db.namespace("test").set("wire-sec").key(1).get()


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"auth_mode": "ldap", "user": "u", "password": "p"}, "must be 'internal'"),
        ({"auth_mode": "external", "user": "u", "password": "p"}, "needs TLS"),
        ({"auth_mode": "external"}, "needs user and password"),
        ({"auth_mode": "pki", "user": "u", "password": "p"}, "give no user"),
        ({"auth_mode": "pki", "tls_name": TLS_NAME}, "client certificate"),
    ],
)
def test_a_bad_auth_mode_is_refused_before_connecting(options: dict[str, Any], says: str) -> None:
    # nothing listens on port 1: the refusal comes from the options, not the network
    with pytest.raises(af.errors.InvalidArgumentError, match=says):
        afs.connect("127.0.0.1:1", **options, **FAST)


def test_an_external_login_goes_over_tls_on_the_wire_path(
    secured: EmbeddedServer, pki: Pki
) -> None:
    options = {**_secured_options(pki), "auth_mode": "external"}
    with afs.connect(secured.seeds, **options, **FAST) as db:
        k = db.namespace("test").set("wire-sec-ext").key("e")
        k.put({"v": 1})
        assert _bins(k.get()) == {"v": 1}
        assert _wire_total(db) >= 1
