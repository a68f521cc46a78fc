"""TLS and password authentication end to end: SDK -> rustls / admin protocol -> embedded server.

Certificates are generated per session (``conftest.pki``); every connection is loopback and
bounded by the client's connect/total timeouts.
"""

from __future__ import annotations

import logging
from typing import TypedDict

import pytest

import aerospike_fluent as af
from aerospike_fluent import _native
from aerospike_fluent import sync as afs
from aerospike_fluent.errors import AerospikeError, AuthenticationError
from aerospike_fluent.server import EmbeddedServer

from .conftest import TLS_NAME, USERS, Pki

pytestmark = pytest.mark.timeout(60)

PASSWORD = USERS["admin"]


class Fast(TypedDict):
    """Connect options that give up sooner (these keys only, to add to any others)."""

    connect_timeout: float
    total_timeout: float


FAST: Fast = {"connect_timeout": 2, "total_timeout": 2}


def _roundtrip(db: afs.SyncClient, key: str) -> None:
    k = db.namespace("test").set("sec").key(key)
    k.put({"a": 1, "s": "x"})
    rec = k.get()
    assert rec is not None and rec.bins == {"a": 1, "s": "x"}


# ---- TLS ------------------------------------------------------------------------------------


def test_tls_round_trip_sync(tls_server: EmbeddedServer, pki: Pki) -> None:
    assert tls_server._server.tls
    with afs.connect(tls_server.seeds, tls_ca_file=pki.ca, tls_name=TLS_NAME, **FAST) as db:
        _roundtrip(db, "tls-sync")
        rows = db.namespace("test").set("sec").keys(["tls-sync", "nope"]).get()
        assert len(rows) == 2


@pytest.mark.anyio
async def test_tls_round_trip_async(tls_server: EmbeddedServer, pki: Pki) -> None:
    async with af.connect(tls_server.seeds, tls_ca_file=pki.ca, tls_name=TLS_NAME, **FAST) as db:
        k = db.namespace("test").set("sec").key("tls-async")
        await k.put({"n": 7})
        rec = await k.get()
        assert rec is not None and rec.bins == {"n": 7}
        n = 0
        async for _ in db.namespace("test").set("sec").query().stream():
            n += 1
        assert n >= 1


def test_untrusted_certificate_is_a_clear_error(tls_server: EmbeddedServer, pki: Pki) -> None:
    with pytest.raises(AerospikeError) as err:
        afs.connect(tls_server.seeds, tls_ca_file=pki.other_ca, tls_name=TLS_NAME, **FAST)
    text = str(err.value).lower()
    assert "certificate" in text or "tls" in text, str(err.value)


def test_wrong_tls_name_is_a_clear_error(tls_server: EmbeddedServer, pki: Pki) -> None:
    with pytest.raises(AerospikeError) as err:
        afs.connect(tls_server.seeds, tls_ca_file=pki.ca, tls_name="someone.else", **FAST)
    text = str(err.value).lower()
    assert "certificate" in text or "tls" in text, str(err.value)


def test_plain_client_against_tls_server_fails_without_hanging(
    tls_server: EmbeddedServer,
) -> None:
    with pytest.raises(AerospikeError):
        afs.connect(tls_server.seeds, **FAST)


def test_server_needs_both_tls_files(pki: Pki) -> None:
    with pytest.raises(ValueError, match="go together"):
        _native.EmbeddedServer(tls_cert_file=pki.cert)


def test_server_rejects_unreadable_tls_files(pki: Pki) -> None:
    with pytest.raises(AerospikeError, match="TLS"):
        EmbeddedServer(tls_cert_file=pki.cert + ".missing", tls_key_file=pki.key)


# ---- authentication -------------------------------------------------------------------------


def test_password_login_round_trip(auth_server: EmbeddedServer) -> None:
    assert auth_server._server.security
    with afs.connect(auth_server.seeds, user="admin", password=PASSWORD, **FAST) as db:
        _roundtrip(db, "auth-sync")


@pytest.mark.anyio
async def test_password_login_async(auth_server: EmbeddedServer) -> None:
    async with af.connect(auth_server.seeds, user="admin", password=PASSWORD, **FAST) as db:
        k = db.namespace("test").set("sec").key("auth-async")
        await k.put({"v": 1})
        assert (await k.get()) is not None


def test_wrong_password_is_a_clear_error_without_the_password(
    auth_server: EmbeddedServer,
) -> None:
    with pytest.raises(AerospikeError) as err:
        afs.connect(auth_server.seeds, user="admin", password="wrong-guess-9", **FAST)
    assert "invalid credential" in str(err.value).lower(), str(err.value)
    assert "wrong-guess-9" not in str(err.value) and "wrong-guess-9" not in repr(err.value)


def test_unknown_user_is_a_clear_error(auth_server: EmbeddedServer) -> None:
    with pytest.raises(AerospikeError) as err:
        afs.connect(auth_server.seeds, user="mallory", password=PASSWORD, **FAST)
    assert "invalid user" in str(err.value).lower(), str(err.value)
    assert PASSWORD not in str(err.value)


def test_wrong_password_is_an_authentication_error(auth_server: EmbeddedServer) -> None:
    with pytest.raises(AuthenticationError) as err:
        afs.connect(auth_server.seeds, user="admin", password="wrong-guess-9", **FAST)
    assert err.value.result_code == 65  # INVALID_CREDENTIAL


def test_unknown_user_is_an_authentication_error(auth_server: EmbeddedServer) -> None:
    with pytest.raises(AuthenticationError) as err:
        afs.connect(auth_server.seeds, user="mallory", password=PASSWORD, **FAST)
    assert err.value.result_code == 60  # INVALID_USER


def test_data_commands_need_a_login(auth_server: EmbeddedServer) -> None:
    with afs.connect(auth_server.seeds, **FAST) as db:
        with pytest.raises(AuthenticationError) as err:
            db.namespace("test").set("sec").key("anon").get()
        assert err.value.result_code == 80  # NOT_AUTHENTICATED


def test_tls_and_password_together(pki: Pki) -> None:
    with EmbeddedServer(tls_cert_file=pki.cert, tls_key_file=pki.key, users=USERS) as srv:
        with afs.connect(
            srv.seeds,
            tls_ca_file=pki.ca,
            tls_name=TLS_NAME,
            user="admin",
            password=PASSWORD,
            **FAST,
        ) as db:
            _roundtrip(db, "tls-auth")
        with pytest.raises(AerospikeError, match=r"(?i)invalid credential"):
            afs.connect(
                srv.seeds,
                tls_ca_file=pki.ca,
                tls_name=TLS_NAME,
                user="admin",
                password="nope-nope",
                **FAST,
            )


# ---- credentials never leak -----------------------------------------------------------------


def test_credentials_never_appear_in_reprs_logs_or_errors(
    auth_server: EmbeddedServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    cfg = _native.ClientConfig(auth_server.seeds, user="admin", password=PASSWORD)
    assert PASSWORD not in repr(cfg) and PASSWORD not in str(cfg)
    texts = [repr(cfg), repr(auth_server), repr(auth_server._server)]
    with afs.connect(auth_server.seeds, user="admin", password=PASSWORD, **FAST) as db:
        texts += [repr(db), str(db)]
    for bad in ("wrong-1", PASSWORD + "x"):
        with pytest.raises(AerospikeError) as err:
            afs.connect(auth_server.seeds, user="admin", password=bad, **FAST)
        texts += [str(err.value), repr(err.value), repr(err.value.args)]
        texts += [str(e) for e in (err.value.__cause__, err.value.__context__) if e]
    texts += [r.getMessage() for r in caplog.records]
    for text in texts:
        assert PASSWORD not in text
        assert "wrong-1" not in text
        assert "$2a$" not in text  # nor the hash the client sends


def test_a_logged_in_client_runs_admin_commands(auth_server: EmbeddedServer) -> None:
    with afs.connect(auth_server.seeds, user="admin", password=PASSWORD, **FAST) as db:
        s = db.namespace("test").set("auth-admin")
        s.key("k").put({"n": 1})
        index = s.create_index("n", "numeric")
        s.drop_index(index)
        s.truncate()
        assert s.key("k").get() is None
