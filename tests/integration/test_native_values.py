"""Values round-trip; bad input fails with a typed error before any request is sent."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerospike_fluent import _native as n

_ids = itertools.count()


@pytest.fixture(scope="module")
def server() -> Iterator[n.EmbeddedServer]:
    """A private embedded server, so request counters belong to this module alone."""
    s = n.EmbeddedServer()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def client(server: n.EmbeddedServer) -> Iterator[n.Client]:
    c = n.connect_blocking(n.ClientConfig(f"{server.host}:{server.port}"))
    yield c
    c.close()


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text()
    | st.binary()
)
keys = (
    st.text(max_size=8)
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.binary(max_size=8)
)
values = st.recursive(
    scalars.filter(lambda v: v is not None),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=values)
def test_value_round_trip(client: n.Client, value: Any) -> None:
    k = ("test", "values", f"v{next(_ids)}", None)
    client.put_blocking(k, {"v": value}, None)
    rec = client.get_blocking(k, None, False, None)
    assert rec is not None
    assert rec["v"] == value
    assert type(rec["v"]) is type(value)


def test_bytearray_and_geojson(client: n.Client) -> None:
    k = ("test", "values", "geo", None)
    point = '{"type": "Point", "coordinates": [1.5, 2.5]}'
    client.put_blocking(k, {"b": bytearray(b"xy"), "g": n.GeoJSON(point)}, None)
    rec = client.get_blocking(k, None, False, None)
    assert rec is not None
    assert rec["b"] == b"xy"
    assert isinstance(rec["g"], n.GeoJSON)
    assert rec["g"] == n.GeoJSON(point)


@pytest.mark.parametrize("user_key", ["s", 7, -(2**63), b"\x00bytes"])
def test_key_types(client: n.Client, user_key: Any) -> None:
    k = ("test", "keys", user_key, None)
    client.put_blocking(k, {"a": 1}, n.Policy(send_key=True))
    rec = client.get_blocking(k, None, False, None)
    assert rec is not None and rec.key is not None
    assert rec.key[2] == user_key


class Weird:
    pass


def _cycle() -> list[Any]:
    """A list that contains itself (no stack overflow: nesting is bounded natively too)."""
    v: list[Any] = []
    v.append(v)
    return v


BAD_PUTS: list[tuple[Any, type[BaseException], str]] = [
    ({"big": 2**64}, OverflowError, "big"),
    ({"neg": -(2**63) - 1}, OverflowError, "neg"),
    ({"obj": Weird()}, TypeError, "obj"),
    ({"set": {1, 2}}, TypeError, "set"),
    ({"tup": (1, 2)}, TypeError, "tup"),
    ({"nested": [1, {"x": object()}]}, TypeError, "nested"),
    ({"mkey": {1.5: 1}}, TypeError, "mkey"),
    ({"inf": n.INFINITY}, TypeError, "inf"),
    ({1: "x"}, TypeError, "bin names"),
    ({"cyc": _cycle()}, n.InvalidArgumentError, "cyc.*nested more than"),
]


@pytest.mark.parametrize(("bins", "error", "names"), BAD_PUTS)
def test_bad_values_send_nothing(
    server: n.EmbeddedServer,
    client: n.Client,
    bins: dict[Any, Any],
    error: type[BaseException],
    names: str,
) -> None:
    before = server.stats()
    with pytest.raises(error, match=names):
        client.put_blocking(("test", "bad", "k", None), bins, None)
    with pytest.raises(error, match=names):
        client.put(lambda r, e: None, ("test", "bad", "k", None), bins, None)
    assert server.stats() == before


BAD_KEYS: list[tuple[Any, type[BaseException]]] = [
    ("not a tuple", n.InvalidArgumentError),
    (("test", "s"), n.InvalidArgumentError),
    (("test", "s", None, None), n.InvalidArgumentError),
    (("test", "s", None, b"short"), n.InvalidArgumentError),
    (("test", "s", 1.5, None), TypeError),
    (("test", "s", True, None), n.InvalidArgumentError),
    ((1, "s", "k", None), n.InvalidArgumentError),
]


@pytest.mark.parametrize(("key", "error"), BAD_KEYS)
def test_bad_keys_send_nothing(
    server: n.EmbeddedServer, client: n.Client, key: Any, error: type[BaseException]
) -> None:
    before = server.stats()
    with pytest.raises(error):
        client.get_blocking(key, None, False, None)
    assert server.stats() == before


BAD_OPS: list[tuple[Any, str]] = [
    ([], "at least one op"),
    ([("frobnicate", "a")], "frobnicate"),
    ([("add", "a", "x")], "add"),
    ([("list_append", "l", (), (0, 0))], "list_append"),
    ([("list_append", "l", (("nope", 1),), (0, 0), 1)], "nope"),
    ([("map_put", "m", (), (7, 0), "k", 1)], "map order"),
    ([("exp_read", "x", ("gt", ("int_bin", "a")), 0)], '"gt"'),
    ([("exp_read", "x", ("no_such_node",), 0)], "no_such_node"),
    ([("read",)], "read"),
]


@pytest.mark.parametrize(("ops", "names"), BAD_OPS)
def test_bad_ops_send_nothing(
    server: n.EmbeddedServer, client: n.Client, ops: Any, names: str
) -> None:
    before = server.stats()
    with pytest.raises(n.InvalidArgumentError, match=names):
        client.operate_blocking(("test", "s", "k", None), ops, None)
    assert server.stats() == before


def test_bad_policies_and_config() -> None:
    with pytest.raises(n.InvalidArgumentError, match="ttl"):
        n.Policy(ttl=-3)
    with pytest.raises(n.InvalidArgumentError, match="exists"):
        n.Policy(exists=9)
    with pytest.raises(n.InvalidArgumentError, match='"and"'):
        n.Policy(filter=("and",))
    with pytest.raises(n.InvalidArgumentError):
        n.ClientConfig("")
    with pytest.raises(n.InvalidArgumentError):
        n.ClientConfig("h:1", user="u")
    with pytest.raises(n.InvalidArgumentError, match="CA file"):
        n.connect_blocking(n.ClientConfig("127.0.0.1:1", tls_ca_file="/nonexistent/ca.pem"))


def test_bad_batch_and_query_send_nothing(server: n.EmbeddedServer, client: n.Client) -> None:
    before = server.stats()
    with pytest.raises(n.InvalidArgumentError, match="batch row"):
        client.batch_blocking([("upsert", ("test", "s", "k", None))], None)
    with pytest.raises(OverflowError):
        client.batch_blocking(
            [("write", ("test", "s", "k", None), [("write", "a", 2**70)], None)], None
        )
    with pytest.raises(n.InvalidArgumentError, match="at least one bin"):
        client.batch_blocking([("put", ("test", "s", "k", None), {}, None)], None)
    with pytest.raises(TypeError, match="bin names must be str"):
        client.batch_blocking([("put", ("test", "s", "k", None), {1: 2}, None)], None)
    with pytest.raises(n.InvalidArgumentError, match="partition"):
        client.query("test", "s", None, None, None, 0, (4000, 200), 10)
    with pytest.raises(n.InvalidArgumentError, match="token"):
        client.query("test", "s", None, None, None, 0, b"garbage", 10)
    with pytest.raises(n.InvalidArgumentError, match="index filter"):
        client.query("test", "s", None, ("between", "a", 1, 2), None, 0, None, 10)
    assert server.stats() == before


def test_put_rows_write_each_bin(client: n.Client) -> None:
    key = ("test", "putrow", f"k{next(_ids)}", None)
    client.put_blocking(key, {"old": 1, "gone": 2}, None)
    (row,) = client.batch_blocking([("put", key, {"a": [1, "x"], "gone": None}, None)], None)
    assert row.result_code == 0
    got = client.get_blocking(key, None, False, None)
    assert got is not None and got.bins == {"old": 1, "a": [1, "x"]}


def test_error_for_code_mapping() -> None:
    cases = {
        2: n.RecordNotFoundError,
        3: n.GenerationError,
        5: n.RecordExistsError,
        9: n.TimeoutError,
        12: n.BinTypeError,
        13: n.RecordTooBigError,
        14: n.KeyBusyError,
        27: n.FilteredOutError,
        200: n.IndexAlreadyExistsError,
        201: n.IndexNotFoundError,
        100: n.UdfError,
        83: n.QuotaExceededError,
        1: n.ServerError,
        -1: n.ClientError,
    }
    k = ("test", "s", "k", None)
    for code, cls in cases.items():
        e = n.error_for_code(code, "m", True, k)
        assert type(e) is cls
        assert (e.result_code, e.in_doubt, e.key) == (code, True, k)
    assert isinstance(n.error_for_code(9, "t"), TimeoutError)
    assert issubclass(n.InvalidArgumentError, ValueError)


def test_server_fault_maps_to_typed_error(server: n.EmbeddedServer, client: n.Client) -> None:
    k = ("test", "faults", "k", None)
    client.put_blocking(k, {"a": 1}, None)
    server.fault_fail(14, 1)
    try:
        with pytest.raises(n.KeyBusyError) as info:
            client.get_blocking(k, None, False, n.Policy(max_retries=0))
        assert info.value.result_code == 14
    finally:
        server.clear_faults()
