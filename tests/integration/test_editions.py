"""Community rules by default (as the server most teams run), Enterprise rules on request."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster, EmbeddedServer

from ._flavor import Flavor


def test_community_refuses_durable_deletes_and_keeps_the_record() -> None:
    with EmbeddedServer() as server, af_sync.connect(server.seeds) as db:
        k = db.namespace("test").set("ce").key("k")
        k.put({"a": 1})
        with pytest.raises(errors.EnterpriseOnlyError) as caught:
            k.delete(durable=True)
        assert caught.value.result_code == 25 and not caught.value.in_doubt
        assert k.get() is not None
        assert "Community" in db.info("edition")["edition"]


@pytest.mark.parametrize("make", [EmbeddedServer, EmbeddedCluster])
def test_enterprise_takes_durable_deletes(make: type[EmbeddedServer | EmbeddedCluster]) -> None:
    with make(edition="enterprise") as server, af_sync.connect(server.seeds) as db:
        k = db.namespace("test").set("ee").key("k")
        k.put({"a": 1})
        assert k.delete(durable=True) is True
        assert k.get() is None
        assert "Enterprise" in db.info("edition")["edition"]


def test_an_unknown_edition_is_refused() -> None:
    with pytest.raises(ValueError, match="edition must be 'community' or 'enterprise'"):
        EmbeddedServer(edition="platinum")  # type: ignore[arg-type]


async def test_a_login_to_a_community_server_is_refused_with_its_code(fl: Flavor) -> None:
    # A Community node has no security: it answers a login with 51, SECURITY_NOT_SUPPORTED.
    with EmbeddedServer() as server, pytest.raises(errors.AuthenticationError) as caught:
        async with fl.connect(server.seeds, user="app", password="secret"):
            pass
    assert caught.value.result_code == 51
    assert "Security not supported" in str(caught.value)
    assert "secret" not in str(caught.value)


def test_an_enterprise_server_without_users_takes_any_login() -> None:
    # Security off (52, SECURITY_NOT_ENABLED): clients log in to nothing, as on a real node.
    with (
        EmbeddedServer(edition="enterprise") as server,
        af_sync.connect(server.seeds, user="app", password="secret") as db,
    ):
        assert db.namespace("test").set("ee").key("k").get() is None
