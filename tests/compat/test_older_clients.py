"""What clients nobody here wrote send (the Rust crate 1.x/2.x and the packages built on it),
answered as a real 8.1.2 node answers (issue 56)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers import cdt_ctx  # type: ignore[import-untyped]
from aerospike_helpers.operations import list_operations as lo  # type: ignore[import-untyped]
from aerospike_helpers.operations import map_operations as mo

from . import _replay

pytestmark = pytest.mark.compat

# Expression `$.a == 1`: [EQ, [BIN, INT, "a"], 1] packed.
A_EQUALS_1 = bytes([0x93, 0x01, 0x93, 0x51, 0x02, 0xA1]) + b"a" + bytes([0x01])


def test_a_batch_whose_length_counts_the_filter_field_is_served(
    server_address: tuple[str, int], client: Any, set_name: str
) -> None:
    client.put(("test", set_name, "passes"), {"a": 1})
    client.put(("test", set_name, "filtered"), {"a": 2})
    digests = [aerospike.calc_digest("test", set_name, k) for k in ("absent", "filtered", "passes")]
    request = _replay.crate_batch_with_filter("test", digests, A_EQUALS_1)

    replies = _replay.exchange(server_address, request)

    rows = {r.slot: r.result_code for r in replies[:-1]}
    assert rows == {0: 2, 1: 27, 2: 0}  # not found, filtered out, read
    assert replies[-1].info3 & _replay.INFO3_LAST and replies[-1].result_code == 0


def _by_key_list(client: Any, key: tuple[str, str, str], ctx: list[Any] | None = None) -> Any:
    op = mo.map_get_by_key_list("m", ["a", "z"], aerospike.MAP_RETURN_VALUE, ctx=ctx)
    _, _, bins = client.operate(key, [op])
    return bins["m"]


def test_put_items_leaves_an_unordered_map_in_key_order(client: Any, set_name: str) -> None:
    # A real node rewrites an unordered map that put_items changes in key order, so
    # by-key-list reads (which answer in stored order) come back in key order.
    key = ("test", set_name, "put-items")
    client.put(key, {"m": {"z": 0}})
    client.operate(key, [mo.map_put_items("m", {"a": 1})])
    assert _by_key_list(client, key) == [1, 0]
    op = mo.map_get_by_value_list("m", [0, 1], aerospike.MAP_RETURN_KEY)
    assert client.operate(key, [op])[2]["m"] == ["a", "z"]


def test_put_items_orders_a_nested_unordered_map_too(client: Any, set_name: str) -> None:
    key = ("test", set_name, "put-items-ctx")
    client.put(key, {"m": [{"z": 0}]})
    ctx = [cdt_ctx.cdt_ctx_list_index(0)]
    client.operate(key, [mo.map_put_items("m", {"a": 1}, ctx=ctx)])
    assert _by_key_list(client, key, ctx) == [1, 0]


def test_put_leaves_an_unordered_map_in_key_order(client: Any, set_name: str) -> None:
    # A real node stores every unordered map in key order: a put of a new key lands in place.
    key = ("test", set_name, "put-one")
    client.put(key, {"m": {"z": 0}})
    client.operate(key, [mo.map_put("m", "a", 1)])
    assert _by_key_list(client, key) == [1, 0]


def _s(text: str) -> bytes:
    """A msgpack string as clients pack one (its first byte the string particle type)."""
    return bytes([0xA1 + len(text), _replay.STRING]) + text.encode()


def test_a_written_map_is_stored_in_key_order_at_every_level(
    server_address: tuple[str, int], set_name: str
) -> None:
    # {"z": 0, "m": 5, "a": [{"y": 1, "b": 2}], 7: nil} as written, and as a real node stores it.
    inner = (b"\x82", _s("y") + b"\x01", _s("b") + b"\x02")
    written = b"\x84" + _s("z") + b"\x00" + _s("m") + b"\x05" + _s("a") + b"\x91"
    written += inner[0] + inner[1] + inner[2] + b"\x07\xc0"
    stored = b"\x84\x07\xc0" + _s("a") + b"\x91" + inner[0] + inner[2] + inner[1]
    stored += _s("m") + b"\x05" + _s("z") + b"\x00"
    digest = aerospike.calc_digest("test", set_name, "plain-write")
    for ptype, data, expected in [
        (_replay.MAP, written, stored),
        (_replay.LIST, b"\x92\x03" + written, b"\x92\x03" + stored),  # the list keeps its order
    ]:
        put = _replay.write_bin(set_name, digest, b"m", ptype, data)
        assert [r.result_code for r in _replay.exchange(server_address, put)] == [0]

        (reply,) = _replay.exchange(server_address, _replay.read_bin(set_name, digest, b"m"))

        assert reply.values == (expected,)


def test_a_map_a_list_op_inserts_is_stored_in_key_order(
    server_address: tuple[str, int], client: Any, set_name: str
) -> None:
    key = ("test", set_name, "list-insert")
    client.put(key, {"l": [3]})
    inserts = [lo.list_append("l", {"q": 1, "c": 2}), lo.list_insert("l", 0, {"y": 0, 1: 0})]
    client.operate(key, inserts)
    digest = aerospike.calc_digest(*key)

    (reply,) = _replay.exchange(server_address, _replay.read_bin(set_name, digest, b"l"))

    first = b"\x82\x01\x00" + _s("y") + b"\x00"
    last = b"\x82" + _s("c") + b"\x02" + _s("q") + b"\x01"
    assert reply.values == (b"\x93" + first + b"\x03" + last,)


def test_by_key_list_answers_indexes_in_the_order_asked_and_no_ranks(
    client: Any, set_name: str
) -> None:
    key = ("test", set_name, "key-list-index")
    client.put(key, {"m": {"z": 0}})
    client.operate(key, [mo.map_put("m", "a", 1), mo.map_put("m", "m", 2)])  # stored a, m, z

    def get(keys: list[str], return_type: int, inverted: bool = False) -> Any:
        op = mo.map_get_by_key_list("m", keys, return_type, inverted=inverted)
        return client.operate(key, [op])[2]["m"]

    assert get(["a", "z"], aerospike.MAP_RETURN_INDEX) == [0, 2]
    assert get(["z", "a"], aerospike.MAP_RETURN_INDEX) == [2, 0]
    assert get(["m"], aerospike.MAP_RETURN_INDEX, inverted=True) == [0, 2]
    assert get(["z", "a"], aerospike.MAP_RETURN_VALUE) == [1, 0]  # stored (key) order
    assert get(["z", "a"], aerospike.MAP_RETURN_KEY) == ["a", "z"]
    with pytest.raises(ex.OpNotApplicable):
        get(["a"], aerospike.MAP_RETURN_RANK)


BUMP = "function bump(rec, n) rec['n'] = rec['n'] + n aerospike:update(rec) end\n"
# The packed argument list [1000].
BY_1000 = bytes([0x91, 0xCD, 0x03, 0xE8])


def _job(client: Any, job_id: int) -> dict[str, str]:
    """The finished job as `query-show` reports it (a real node runs it after answering)."""
    for _ in range(100):
        reply = client.info_random_node(f"query-show:id={job_id}").split("\t")[-1].strip()
        job = dict(item.split("=", 1) for item in reply.split(":") if "=" in item)
        if job.get("status", "").startswith("done"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish: {reply}")


def _values(client: Any, set_name: str) -> list[int]:
    return sorted(bins["n"] for _, _, bins in client.query("test", set_name).results())


@pytest.mark.parametrize("by_index", [False, True], ids=["every-record", "index-range"])
def test_a_background_udf_sent_with_the_read_flag_runs_as_a_job(
    server_address: tuple[str, int], client: Any, set_name: str, tmp_path: Path, by_index: bool
) -> None:
    module = tmp_path / f"{set_name}.lua"
    module.write_text(BUMP)
    client.udf_put(str(module))
    for i in range(10):
        client.put(("test", set_name, i), {"n": i})
    index = f"{set_name}_n"
    if by_index:
        client.index_single_value_create("test", set_name, "n", aerospike.INDEX_NUMERIC, index)
    try:
        time.sleep(0.5)  # the module and the index reach every node
        job_id = random.getrandbits(63) or 1
        index_range = _replay.int_range("n", 0, 4) if by_index else None
        request = _replay.crate_background_udf(
            set_name, job_id, (set_name, "bump", BY_1000), index_range
        )

        replies = _replay.exchange(server_address, request)

        assert [(r.result_code, r.info3 & _replay.INFO3_LAST) for r in replies] == [(0, 1)]
        job = _job(client, job_id)
        assert (job["job-type"], job["udf-function"]) == ("background-udf", "bump")
        changed = 5 if by_index else 10
        assert (job["recs-succeeded"], job["recs-failed"]) == (str(changed), "0")
        expected = [i + 1000 for i in range(changed)] + list(range(changed, 10))
        assert _values(client, set_name) == sorted(expected)
    finally:
        if by_index:
            client.index_remove("test", index)
        client.udf_remove(f"{set_name}.lua")


def test_a_short_background_udf_is_refused(server_address: tuple[str, int], set_name: str) -> None:
    info1 = _replay.INFO1_READ | _replay.INFO1_SHORT_QUERY
    request = _replay.crate_background_udf(set_name, 1, ("m", "f", bytes([0x90])), info1=info1)

    replies = _replay.exchange(server_address, request)

    assert [r.result_code for r in replies] == [4]  # parameter error


def test_inverted_selections_answer_index_and_rank_lists_run_by_run(
    client: Any, set_name: str
) -> None:
    key = ("test", set_name, "inverted-runs")
    client.put(key, {"m": {0: 0, 1: 7, 2: 0, 3: 5, 4: 0}, "l": [0, 7, 0, 5, 0]})
    rev_index, rev_rank = aerospike.MAP_RETURN_REVERSE_INDEX, aerospike.MAP_RETURN_REVERSE_RANK

    def get(op: Any) -> Any:
        return next(iter(client.operate(key, [op])[2].values()))

    # Nothing selected: a map answers everything as one run, ascending.
    assert get(mo.map_get_by_value("m", 9, rev_index, inverted=True)) == [0, 1, 2, 3, 4]
    assert get(mo.map_get_by_index_range("m", 9, 2, rev_rank, inverted=True)) == [0, 1, 2, 3, 4]
    # A value is the run of ranks it holds (rank 3 here): the runs around it, one by one.
    assert get(mo.map_get_by_value("m", 5, rev_rank, inverted=True)) == [2, 3, 4, 0]
    assert get(lo.list_get_by_value("l", 5, rev_rank, inverted=True)) == [2, 3, 4, 0]
    assert get(lo.list_get_by_value("l", 9, rev_index, inverted=True)) == [4, 3, 2, 1, 0]
    # Keys that sit together (a key range, a key list) are a run of indexes; others a mask.
    assert get(mo.map_get_by_key_range("m", 1, 3, rev_index, inverted=True)) == [4, 0, 1]
    assert get(mo.map_get_by_key_list("m", [2, 1], rev_index, inverted=True)) == [4, 0, 1]
    assert get(mo.map_get_by_key_list("m", [1, 3], rev_index, inverted=True)) == [4, 2, 0]
