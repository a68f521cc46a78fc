"""Settings that could only misbehave are refused where they are given, the same way on every
client flavor: a duration under 1 ms (it would mean no limit), ``replica="prefer_rack"`` on a
client with no rack (every read would fail), a seed with a scheme, and an empty record key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.models import Key

from ._flavor import Flavor

BELOW_1_MS = "is below 1 ms"
NO_RACK = r"replica='prefer_rack' .* give connect\(rack_id=...\)"


@dataclass
class User:
    name: str
    id: Annotated[str, Key] = ""


async def test_a_timeout_under_a_millisecond_is_refused(
    fl: Flavor, seeds: str, set_name: str
) -> None:
    key = fl.db.namespace("test").set(set_name).key("k")
    with pytest.raises(errors.InvalidArgumentError, match=BELOW_1_MS):
        await fl.run(key.timeout(0.0004, retries=0).get())
    with pytest.raises(errors.InvalidArgumentError, match=BELOW_1_MS):
        fl.db.with_policy(total_timeout=0.0004)
    with pytest.raises(errors.InvalidArgumentError, match=BELOW_1_MS):
        fl.db.with_policy(af.Policy(read=af.Limits(total_timeout=0.0004)))
    with pytest.raises(errors.InvalidArgumentError, match=BELOW_1_MS):
        async with fl.connect(seeds, total_timeout=0.0004):
            pass
    with pytest.raises(errors.InvalidArgumentError, match="whole seconds"):
        fl.db.transaction(timeout=0.0004)
    with pytest.raises(errors.InvalidArgumentError, match="whole seconds"):
        await fl.run(fl.db.run_transaction(lambda tx: None, timeout=0.0004))
    try:  # 1 ms itself is accepted (on a loaded machine it may run out)
        assert await fl.run(key.timeout(0.001).exists()) is False
    except errors.TimeoutError as e:
        assert "total timeout 1 ms" in str(e)


async def test_prefer_rack_without_a_rack_is_refused_where_it_is_set(
    fl: Flavor, seeds: str
) -> None:
    prefer_rack = af.Policy(replica="prefer_rack")
    with pytest.raises(errors.InvalidArgumentError, match=f"policy: {NO_RACK}"):
        async with fl.connect(seeds, policy=prefer_rack):
            pass
    with pytest.raises(errors.InvalidArgumentError, match=f"profile 'near': {NO_RACK}"):
        async with fl.connect(seeds, profiles={"near": {"replica": "prefer_rack"}}):
            pass
    with pytest.raises(errors.InvalidArgumentError, match=f"with_policy: {NO_RACK}"):
        fl.db.with_policy(replica="prefer_rack")
    with pytest.raises(errors.InvalidArgumentError, match=f"with_policy: {NO_RACK}"):
        fl.db.with_policy(prefer_rack)


async def test_prefer_rack_with_a_rack_reads(fl: Flavor, seeds: str, set_name: str) -> None:
    near_rack = {"near": af.Policy(replica="prefer_rack")}
    async with fl.connect(seeds, rack_id=1, profiles=near_rack) as db:
        near = db.with_policy("near").namespace("test").set(set_name)
        await fl.run(near.key("k").put({"n": 1}))
        assert (await fl.run(near.key("k").get()))["n"] == 1  # a Community node: any rack
        assert db.with_policy(replica="prefer_rack").policy.replica == "prefer_rack"


async def test_a_seed_with_a_scheme_is_refused(fl: Flavor) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="not host:port: give it without a"):
        async with fl.connect("http://127.0.0.1:3000"):
            pass


async def test_an_empty_or_missing_record_key_is_refused(fl: Flavor, set_name: str) -> None:
    users = fl.db.namespace("test").set(set_name)
    for write in (users.put, users.insert, users.replace):
        with pytest.raises(errors.InvalidArgumentError, match=r"User\.id is '', an empty key"):
            await fl.run(write(User("forgotten")))
    with pytest.raises(errors.InvalidArgumentError, match=r"User\.id is '', an empty key"):
        await fl.run(users.put_many([User("a", "1"), User("forgotten")]))
    with pytest.raises(errors.InvalidTypeError, match=r"User\.id is None"):
        await fl.run(users.put(User("nobody", None)))  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidArgumentError, match="put_many key is b'', an empty key"):
        await fl.run(users.put_many({"a": {"n": 1}, b"": {"n": 2}}))
    with pytest.raises(errors.InvalidTypeError, match=r"put_many key is 1\.5: .* not float"):
        await fl.run(users.put_many({1.5: {"n": 1}}))
    assert await fl.run(users.query().count()) == 0
    await fl.run(users.put(User("ann", "u1")))
    assert await fl.run(users.query().count()) == 1


async def test_an_unsupported_value_is_named_by_its_type(fl: Flavor, set_name: str) -> None:
    key = fl.db.namespace("test").set(set_name).key("k")
    with pytest.raises(errors.InvalidTypeError, match=r"of type numpy\.bool"):
        await fl.run(key.put({"flag": np.bool_(True)}))
    with pytest.raises(errors.InvalidTypeError, match=r"of type numpy\.datetime64"):
        await fl.run(key.put({"at": [np.datetime64("2024-01-01")]}))


async def test_a_typed_query_streams_and_counts(fl: Flavor, set_name: str) -> None:
    users = fl.db.namespace("test").set(set_name)
    await fl.run(users.put_many([User(f"n{i}", f"u{i}") for i in range(5)]))
    query = users.query().as_(User)
    assert await fl.run(query.count()) == 5
    names: list[Any] = []
    stream: Any = query.stream()
    if fl.is_async:
        async with stream:
            async for user in stream:
                names.append(user)
    else:
        with stream:
            names.extend(stream)
    assert sorted(u.name for u in names) == [f"n{i}" for i in range(5)]
    assert all(isinstance(u, User) for u in names)
