"""A batch whose node fails as a whole raises its error, the rows answered in ``.partial``.

A node's part of a batch that timed out, lost its connection or was stopped by a whole-batch
error is not "not found": every batch terminal raises. A row's own outcome (not found,
generation) stays on its row.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from aerospike_fluent import errors
from aerospike_fluent.results import BatchResult
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor

PARAMETER_ERROR = 4


@pytest.fixture
def srv() -> Iterator[EmbeddedServer]:
    """A server of its own, for its faults."""
    with EmbeddedServer() as server:
        yield server


def _terminals(db: Any, set_name: str) -> dict[str, Any]:
    """Each batch terminal, under a 50 ms timeout without retries."""
    s = db.namespace("test").set(set_name)
    keys = s.keys(["a", "b"]).timeout(0.05, retries=0)
    return {
        "get": lambda: keys.get(),
        "exists": lambda: keys.exists(),
        "to_arrow": lambda: keys.to_arrow(),
        "to_numpy": lambda: keys.to_numpy(),
        "keys.put": lambda: keys.put({"n": 2}),
        "keys.touch": lambda: keys.touch(),
        "batch.operate": lambda: (
            db.batch().operate(s.key("a").add("n", 1)).timeout(0.05, retries=0).execute()
        ),
        "batch": lambda: (
            db.batch().get(s.key("a")).put(s.key("c"), {"n": 3}).timeout(0.05, retries=0).execute()
        ),
        "put_many": lambda: s.put_many({"d": {"n": 4}}, timeout=0.05),
    }


async def test_every_batch_terminal_raises_the_timeout_of_a_slow_node(
    fl: Flavor, srv: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(srv.seeds) as db:
        await fl.run(db.namespace("test").set(set_name).key("a").put({"n": 1}))
        for name, terminal in _terminals(db, set_name).items():
            srv.fault_delay(1000)
            with pytest.raises(errors.TimeoutError) as raised:
                await fl.run(terminal())
            srv.clear_faults()
            partial = raised.value.partial
            if name not in ("to_arrow", "to_numpy"):
                assert isinstance(partial, BatchResult), name
                assert partial.errors, name
                assert all(row.node_failed for row in partial.errors), name


async def test_a_whole_batch_server_error_raises_its_typed_error(
    fl: Flavor, srv: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(srv.seeds) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key("a").put({"n": 1}))
        srv.fault_fail(PARAMETER_ERROR, 1)
        with pytest.raises(errors.ParameterError) as raised:
            await fl.run(s.keys(["a", "b"]).get())
        assert raised.value.result_code == PARAMETER_ERROR
        assert len(raised.value.partial) == 2


async def test_per_record_outcomes_stay_on_their_rows(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("a").put({"n": 1}))
    got = await fl.run(s.keys(["a", "missing"]).get())
    assert [r["n"] if r else None for r in got.records] == [1, None]
    assert await fl.run(s.keys(["a", "missing"]).exists()) == [True, False]
    updated = await fl.run(s.keys(["a", "missing"]).update({"n": 2}))
    assert [row.result_code for row in updated] == [0, 2]
    assert isinstance(updated[1].error, errors.RecordNotFoundError)
    assert not any(row.node_failed for row in updated)
