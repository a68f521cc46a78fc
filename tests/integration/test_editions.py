"""Community rules by default (as the server most teams run), Enterprise rules on request."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster, EmbeddedServer


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
