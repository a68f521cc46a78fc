"""TTLs and bin names a write may carry, refused as a real 8.1.2 node refuses them (issue 55)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers.operations import operations as op  # type: ignore[import-untyped]

from . import _replay

pytestmark = pytest.mark.compat

TEN_YEARS = 315_360_000
NEVER_EXPIRE = 0xFFFF_FFFF
KEEP_TTL = 0xFFFF_FFFE


@pytest.mark.parametrize("ttl", [TEN_YEARS + 1, 4_000_000_000])
def test_a_ttl_over_ten_years_is_a_parameter_error(client: Any, set_name: str, ttl: int) -> None:
    key = ("test", set_name, "over")
    with pytest.raises(ex.InvalidRequest) as err:
        client.put(key, {"a": 1}, policy={"ttl": ttl})
    assert err.value.code == 4
    client.put(key, {"a": 1})
    writes: list[Callable[[], Any]] = [
        lambda: client.put(key, {"a": 2}, policy={"ttl": ttl}),
        lambda: client.touch(key, ttl),
        lambda: client.operate(key, [op.write("a", 3)], policy={"ttl": ttl}),
    ]
    for write in writes:
        with pytest.raises(ex.InvalidRequest):
            write()
    _, meta, bins = client.get(key)
    assert bins == {"a": 1} and meta["gen"] == 1


def test_the_clients_default_ttl_sentinel_is_no_ttl_to_a_node(
    server_address: tuple[str, int], set_name: str
) -> None:
    # 0xFFFFFFFD means "the client's default" inside clients; a node defines no such value.
    digest = aerospike.calc_digest("test", set_name, "sentinel")
    request = _replay.write_int(set_name, digest, b"a", 1, ttl=0xFFFF_FFFD)
    assert [r.result_code for r in _replay.exchange(server_address, request)] == [4]


def test_ttls_a_real_node_takes(client: Any, set_name: str) -> None:
    key = ("test", set_name, "ok")
    client.put(key, {"a": 1}, policy={"ttl": TEN_YEARS})
    assert TEN_YEARS - 10 <= client.get(key)[1]["ttl"] <= TEN_YEARS
    client.put(key, {"a": 2}, policy={"ttl": KEEP_TTL})
    assert TEN_YEARS - 10 <= client.get(key)[1]["ttl"] <= TEN_YEARS
    client.put(key, {"a": 3}, policy={"ttl": NEVER_EXPIRE})
    assert client.get(key)[1]["ttl"] == NEVER_EXPIRE


def test_a_bin_name_holding_a_nul_is_refused(
    server_address: tuple[str, int], client: Any, set_name: str
) -> None:
    digest = aerospike.calc_digest("test", set_name, "nul")
    replies = _replay.exchange(server_address, _replay.write_int(set_name, digest, b"a\x00b", 1))
    assert [r.result_code for r in replies] == [21]
    with pytest.raises(ex.RecordNotFound):
        client.get(("test", set_name, "nul"))
    client.put(("test", set_name, "nul"), {"a": 1})
    replies = _replay.exchange(server_address, _replay.read_bin(set_name, digest, b"a\x00b"))
    assert [r.result_code for r in replies] == [21]
