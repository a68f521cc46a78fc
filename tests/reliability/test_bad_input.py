"""Bad input catalogue: every malformed key, bin, value, policy and expression gets a typed error,
nothing reaches the wire (server counters unchanged) and the process never crashes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerospike_fluent import F, errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedServer

pytestmark = pytest.mark.timeout(120)

WIRE_KINDS = ("read", "write", "operate", "batch", "scan", "query", "udf", "delete")
INT64 = (-(2**63), 2**63 - 1)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def catalogue_server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def sdb(catalogue_server: EmbeddedServer) -> Iterator[af_sync.SyncClient]:
    with af_sync.connect(catalogue_server.seeds) as db:
        db.namespace("test").set("bad").key("k").put({"n": 1})
        yield db


def _wire(server: EmbeddedServer) -> dict[str, int]:
    stats = server.stats()
    return {k: stats.get(k, 0) for k in WIRE_KINDS}


def _rejected(server: EmbeddedServer, action: Callable[[], object]) -> errors.InvalidArgumentError:
    """Run ``action``: it must raise InvalidArgumentError and send nothing."""
    before = _wire(server)
    with pytest.raises(errors.InvalidArgumentError) as info:
        action()
    assert _wire(server) == before, "a rejected request reached the server"
    assert isinstance(info.value, errors.AerospikeError | ValueError)
    return info.value


# ------------------------------------------------------------------ strategies
out_of_range_ints = st.one_of(
    st.integers(min_value=INT64[1] + 1, max_value=2**200),
    st.integers(min_value=-(2**200), max_value=INT64[0] - 1),
)
not_a_key = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.tuples(st.integers()),
    st.sets(st.integers(), max_size=2),
    st.complex_numbers(allow_nan=False),
    out_of_range_ints,
)
bad_bin_names = st.one_of(
    st.just(""),
    st.text(min_size=16, max_size=40).filter(lambda s: len(s.encode()) > 15),
    st.integers(),
    st.binary(max_size=5),
    st.none(),
)
unstorable_leaf = st.one_of(
    st.sets(st.integers(), max_size=2),
    st.tuples(st.integers()),
    st.complex_numbers(allow_nan=False),
    st.builds(object),
    st.frozensets(st.integers(), max_size=2),
    out_of_range_ints,
)
bad_values = st.recursive(
    unstorable_leaf,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: [1, "a", *xs]),
        st.dictionaries(st.text(max_size=4), inner, min_size=1, max_size=3),
    ),
    max_leaves=5,
)
bad_map_keys = st.one_of(
    st.floats(allow_nan=False), st.none(), st.tuples(st.integers()), st.booleans()
)
bad_ttls = st.one_of(
    st.integers(max_value=-3),
    st.integers(min_value=2**32 - 1, max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: f != int(f)),
    st.text(max_size=3),
)
bad_generations = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=2**16, max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=3),
)
bad_timeouts = st.one_of(
    st.floats(max_value=-0.001, allow_nan=False, allow_infinity=False),
    st.integers(max_value=-1),
    st.text(max_size=3),
    st.floats(min_value=1e7, max_value=1e12),  # beyond u32 milliseconds
)
bad_retries = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=1001),
    st.floats(allow_nan=False),
    st.text(max_size=2),
)
broken_ael = st.one_of(
    st.text(max_size=20).map(lambda t: f"$.a == '{t.replace(chr(39), '')}"),  # unterminated
    st.text(max_size=10).map(lambda t: f"({t}"),
    st.sampled_from(["$.a >>> ", "$.", "and and", "$.a ==", "== 3", "$.a + ", "((($.a))"]),
)
not_an_expression = st.one_of(
    st.integers(), st.floats(allow_nan=False), st.none(), st.lists(st.integers(), max_size=2)
)


# ------------------------------------------------------------------ the catalogue
@SETTINGS
@given(key=not_a_key)
def test_malformed_keys(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, key: object
) -> None:
    s = sdb.namespace("test").set("bad")
    _rejected(catalogue_server, lambda: s.key(key).get())  # type: ignore[arg-type]
    _rejected(catalogue_server, lambda: s.key(key).put({"n": 1}))  # type: ignore[arg-type]
    _rejected(catalogue_server, lambda: s.keys(["ok", key]).get())  # type: ignore[list-item]


@SETTINGS
@given(name=bad_bin_names)
def test_malformed_bin_names(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, name: object
) -> None:
    rec = sdb.namespace("test").set("bad").key("k")
    _rejected(catalogue_server, lambda: rec.put({name: 1}))
    _rejected(catalogue_server, lambda: rec.get(name))  # type: ignore[call-overload]
    _rejected(catalogue_server, lambda: rec.add(name, 1).execute())  # type: ignore[arg-type]


@SETTINGS
@given(value=bad_values)
def test_unstorable_values(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, value: Any
) -> None:
    rec = sdb.namespace("test").set("bad").key("k")
    _rejected(catalogue_server, lambda: rec.put({"v": value}))
    _rejected(catalogue_server, lambda: rec.bin("v").list.append(value).execute())


@SETTINGS
@given(map_key=bad_map_keys)
def test_bad_map_keys(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, map_key: Any
) -> None:
    rec = sdb.namespace("test").set("bad").key("k")
    _rejected(catalogue_server, lambda: rec.put({"m": {map_key: 1}}))


@SETTINGS
@given(ttl=bad_ttls, generation=bad_generations)
def test_bad_write_policies(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, ttl: Any, generation: Any
) -> None:
    rec = sdb.namespace("test").set("bad").key("k")
    _rejected(catalogue_server, lambda: rec.put({"n": 1}, ttl=ttl))
    _rejected(catalogue_server, lambda: rec.put({"n": 1}, generation=generation))


@SETTINGS
@given(total=bad_timeouts, retries=bad_retries)
def test_bad_transaction_limits(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, total: Any, retries: Any
) -> None:
    s = sdb.namespace("test").set("bad")
    _rejected(catalogue_server, lambda: s.key("k").timeout(total).get())
    _rejected(catalogue_server, lambda: s.key("k").timeout(socket=total).get())
    _rejected(catalogue_server, lambda: s.key("k").timeout(retries=retries).get())
    _rejected(catalogue_server, lambda: s.query().timeout(total).collect())


@SETTINGS
@given(text=broken_ael)
def test_broken_ael_filters(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, text: str
) -> None:
    s = sdb.namespace("test").set("bad")
    exc = _rejected(catalogue_server, lambda: s.key("k").where(text).get())
    assert isinstance(exc, errors.AelSyntaxError | errors.InvalidTypeError)
    _rejected(catalogue_server, lambda: s.query().where(text).count())


@SETTINGS
@given(thing=not_an_expression, operand=unstorable_leaf)
def test_malformed_expressions(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, thing: Any, operand: Any
) -> None:
    s = sdb.namespace("test").set("bad")
    _rejected(catalogue_server, lambda: s.key("k").where(thing).get())
    _rejected(catalogue_server, lambda: s.key("k").where(F.bin("a") == operand).get())


@SETTINGS
@given(
    ns=st.one_of(st.just(""), st.text(min_size=32, max_size=40), st.integers(), st.none()),
    set_name=st.one_of(st.just(""), st.text(min_size=64, max_size=70), st.integers()),
)
def test_malformed_namespace_and_set_names(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, ns: Any, set_name: Any
) -> None:
    _rejected(catalogue_server, lambda: sdb.namespace(ns).set("s").key("k").get())
    _rejected(catalogue_server, lambda: sdb.namespace("test").set(set_name).key("k").get())


def test_the_client_still_works_after_the_catalogue(sdb: af_sync.SyncClient) -> None:
    rec = sdb.namespace("test").set("bad").key("k")
    rec.put({"n": 5})
    got = rec.get()
    assert got is not None and got["n"] == 5


# ------------------------------------------------------------------ known gaps (bugs)
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_nan_and_infinite_timeouts(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, bad: float
) -> None:
    _rejected(catalogue_server, lambda: sdb.namespace("test").set("bad").key("k").timeout(bad))


@pytest.mark.parametrize("where", ["key", "value", "bin", "set"])
def test_unencodable_strings(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, where: str
) -> None:
    bad = "a\ud800"
    s = sdb.namespace("test").set("bad")
    actions: dict[str, Callable[[], object]] = {
        "key": lambda: s.key(bad).put({"n": 1}),
        "value": lambda: s.key("k").put({"n": bad}),
        "bin": lambda: s.key("k").put({bad: 1}),
        "set": lambda: sdb.namespace("test").set(bad).key("k").get(),
    }
    _rejected(catalogue_server, actions[where])


def _self_referencing() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def _deep(depth: int) -> list[Any]:
    v: list[Any] = []
    for _ in range(depth):
        v = [v]
    return v


@pytest.mark.parametrize("make", [_self_referencing, lambda: _deep(50_000)], ids=["cycle", "deep"])
def test_cyclic_and_too_deep_values(
    sdb: af_sync.SyncClient, catalogue_server: EmbeddedServer, make: Callable[[], object]
) -> None:
    value = make()
    _rejected(catalogue_server, lambda: sdb.namespace("test").set("bad").key("k").put({"v": value}))
