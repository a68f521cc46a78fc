"""Inputs the aerospike crate panics on come back as typed errors, never PanicException."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from aerospike_fluent import _bridge
from aerospike_fluent import _native as n
from aerospike_fluent.errors import ClientError, InvalidArgumentError

NS = "test"
_ids = itertools.count()
NO_POLICY = (0, 0)


@pytest.fixture(scope="module")
def client(server_address: tuple[str, int]) -> Iterator[n.Client]:
    host, port = server_address
    c = n.connect_blocking(n.ClientConfig(f"{host}:{port}"))
    yield c
    c.close()


@pytest.fixture(params=["blocking", "asyncio", "trio"])
def call(request: pytest.FixtureRequest, client: n.Client) -> Callable[..., Any]:
    mode: str = request.param

    def run(name: str, *args: Any) -> Any:
        if mode == "blocking":
            return getattr(client, f"{name}_blocking")(*args)
        method = getattr(client, name)

        async def main() -> Any:
            return await _bridge.wait(lambda done: method(done, *args))

        return anyio.run(main, backend=mode)

    return run


def key() -> n.Key:
    return (NS, "panics", f"p{next(_ids)}", None)


def _seeded(call: Callable[..., Any]) -> n.Key:
    k = key()
    call("put", k, {"l": [1, 2, 3]}, None)
    return k


def _refused(call: Callable[..., Any], k: n.Key, op: tuple[Any, ...], name: str) -> None:
    with pytest.raises(InvalidArgumentError, match=name):
        call("operate", k, [op], None)
    with pytest.raises(InvalidArgumentError, match=name):
        call("batch", [("write", k, [op], None)], None)


def test_list_set_none(call: Callable[..., Any]) -> None:
    k = _seeded(call)
    _refused(call, k, ("list_set", "l", None, 0, None), "list_set")


def test_list_set_with_policy_none(call: Callable[..., Any]) -> None:
    k = _seeded(call)
    _refused(
        call, k, ("list_set_with_policy", "l", None, NO_POLICY, 0, None), "list_set_with_policy"
    )


def test_list_append_items_empty(call: Callable[..., Any]) -> None:
    k = _seeded(call)
    _refused(call, k, ("list_append_items", "l", None, NO_POLICY, []), "list_append_items")


def test_list_insert_items_empty(call: Callable[..., Any]) -> None:
    k = _seeded(call)
    _refused(call, k, ("list_insert_items", "l", None, NO_POLICY, 0, []), "list_insert_items")


def test_record_untouched_after_refusals(call: Callable[..., Any]) -> None:
    k = _seeded(call)
    ops: list[tuple[Any, ...]] = [
        ("list_set", "l", None, 0, None),
        ("list_append_items", "l", None, NO_POLICY, []),
    ]
    for op in ops:
        with pytest.raises(InvalidArgumentError):
            call("operate", k, [op], None)
    rec = call("get", k, None, False, None)
    assert rec.bins == {"l": [1, 2, 3]}


def test_remaining_crate_panic_is_client_error(call: Callable[..., Any]) -> None:
    """A return type the crate has no case for panics inside it: ClientError, not a panic."""
    k = _seeded(call)
    bad = ("lists.get_by_value", 99, ("int_val", 1), ("list_bin", "l"), None)
    with pytest.raises(ClientError, match="panicked"):
        call("operate", k, [("exp_read", "x", bad, 0)], None)
    with pytest.raises(ClientError, match="panicked"):
        n.Policy(filter=bad)
    # the client still works afterwards
    assert call("get", k, None, False, None).bins == {"l": [1, 2, 3]}
