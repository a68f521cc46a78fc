"""Health and lifecycle: ``db.ping()`` and ``await db.close()``."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor


async def test_ping_is_true_while_a_node_answers_and_false_once_none_does(fl: Flavor) -> None:
    srv = EmbeddedServer()
    async with fl.connect(srv.seeds) as db:
        assert await fl.run(db.ping()) is True
        srv.stop()
        assert await fl.run(db.ping(timeout=0.2)) is False
    with pytest.raises(errors.ClientClosedError):
        await fl.run(db.ping())


async def test_ping_refuses_a_bad_timeout(fl: Flavor) -> None:
    with pytest.raises(errors.InvalidArgumentError):
        await fl.run(fl.db.ping(timeout=-1))


async def test_an_async_client_s_close_can_be_awaited(fl: Flavor) -> None:
    async with fl.connect(fl.seeds) as db:
        if fl.is_async:
            await db.close()
        else:
            assert db.close() is None
        assert "closed" in repr(db)
        with pytest.raises(errors.ClientClosedError):
            await fl.run(db.namespace("test").set("s").key(1).get())
