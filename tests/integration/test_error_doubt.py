"""Which errors say a write is in doubt, and which class a failure raises: a refusal the server
answered applied nothing; a connection lost before any answer is a ConnectionError."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor


@pytest.fixture
def faulty() -> Iterator[EmbeddedServer]:
    """A server of its own: its faults must not reach other tests."""
    with EmbeddedServer() as srv:
        yield srv


@pytest.mark.parametrize(("code", "error"), [(14, errors.KeyBusyError), (11, errors.ServerError)])
@pytest.mark.parametrize("retries", [0, 2])
async def test_a_refused_write_is_not_in_doubt(
    fl: Flavor,
    faulty: EmbeddedServer,
    set_name: str,
    code: int,
    error: type[errors.AerospikeError],
    retries: int,
) -> None:
    async with fl.connect(faulty.seeds) as db:
        rec = db.namespace("test").set(set_name).key("k")
        faulty.fault_fail(code, retries + 1)
        with pytest.raises(error) as caught:
            await fl.run(rec.timeout(2, retries=retries, retry_writes=True).put({"n": 1}))
        assert caught.value.result_code == code
        assert caught.value.in_doubt is False
        assert await fl.run(rec.get()) is None


async def test_a_write_whose_connection_dropped_is_a_connection_error_in_doubt(
    fl: Flavor, faulty: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(faulty.seeds) as db:
        rec = db.namespace("test").set(set_name).key("k")
        faulty.fault_drop(0)
        with pytest.raises(errors.ConnectionError) as caught:
            await fl.run(rec.timeout(2, retries=0).put({"n": 1}))
        assert caught.value.in_doubt is True  # the client cannot know whether it was applied
        faulty.fault_drop(0)
        with pytest.raises(errors.ConnectionError) as read:
            await fl.run(rec.timeout(2, retries=0).get())
        assert read.value.in_doubt is False


async def test_a_missing_udf_module_is_not_in_doubt(
    fl: Flavor, faulty: EmbeddedServer, set_name: str
) -> None:
    async with fl.connect(faulty.seeds) as db:
        rec = db.namespace("test").set(set_name).key("k")
        with pytest.raises(errors.UdfError, match="UDF: Execution Error 1") as caught:
            await fl.run(rec.udf("no_such_module", "f"))
        assert caught.value.in_doubt is False


async def test_errors_name_the_record_they_are_about(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("nobody")
    with pytest.raises(errors.RecordNotFoundError) as caught:
        await fl.run(k.touch())
    assert f"[namespace 'test', set '{set_name}', key 'nobody']" in str(caught.value)
    assert caught.value.key is not None and caught.value.key[2] == "nobody"
