"""`bytes_keys="string"`: a `bytes` key addresses the record of the `str` of the same bytes (as
the official C client hashes it); a `bytearray` stays a blob; the option is checked where given."""

from __future__ import annotations

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors

from ._flavor import Flavor


async def test_string_bytes_keys_find_the_str_keys_records(
    fl: Flavor, seeds: str, set_name: str
) -> None:
    blob = fl.db.namespace("test").set(set_name)
    async with fl.connect(seeds, bytes_keys="string") as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key(b"ann").put({"a": 1}))
        await fl.run(s.key(bytearray(b"bob")).put({"a": 2}))
        rows = await fl.run(s.keys([b"ann", bytearray(b"bob")]).get())
        assert [r.record["a"] for r in rows] == [1, 2]
    assert (await fl.run(blob.key("ann").get()))["a"] == 1
    assert await fl.run(blob.key(b"ann").get()) is None
    assert (await fl.run(blob.key(b"bob").get()))["a"] == 2


async def test_a_policy_sets_it_too(fl: Flavor, seeds: str, set_name: str) -> None:
    policy = af.Policy(bytes_keys="string")
    async with fl.connect(seeds, policy=policy) as db:
        await fl.run(db.namespace("test").set(set_name).key(b"k").put({"a": 1}))
    assert await fl.run(fl.db.namespace("test").set(set_name).key("k").exists())


def test_an_unknown_value_is_refused_by_name() -> None:
    with pytest.raises(errors.InvalidArgumentError) as caught:
        af.sync.connect("127.0.0.1:1", bytes_keys="strng")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "connect option bytes_keys must be one of 'blob', 'string', not 'strng'; "
        "did you mean 'string'?"
    )
    with pytest.raises(errors.InvalidArgumentError, match="did you mean 'blob'"):
        af.Policy(bytes_keys="blb")  # type: ignore[arg-type]
