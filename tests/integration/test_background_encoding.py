"""The SDK writes background queries itself (``crates/native/src/request/background.rs``): byte
for byte what the crate sends for the same job, and the same records changed. Both clients talk
through a relay that records their requests; op chains (scalar, list, map, expression), a UDF
with arguments, with and without an index condition and a filter expression, and write policies
are sent by each and compared (header, fields and ops; only the task id and the timeouts the
server is told may differ)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from aerospike_fluent import _native as n

from ._recorder import CRATE, ClientPair, recording, without_timeout

pytestmark = pytest.mark.skipif(bool(os.environ.get(CRATE)), reason="the wire path is off")

_RUN = uuid.uuid4().hex[:8]
NS = "test"
FIELD_TASK_ID = 7
FIELD_SOCKET_TIMEOUT = 9

BUMP = b"""
function bump(rec, bin, n, tags, extra)
  rec[bin] = (rec[bin] or 0) + n
  rec["t"] = #tags
  rec["e"] = extra["k"]
  aerospike:update(rec)
end
"""
MODULE = f"bg_enc_{_RUN}"
UDF = (MODULE, "bump", ["n", 7, [1, "two"], {"k": 3}])

CHAINS: dict[str, list[Any]] = {
    "scalar": [("write", "a", 1), ("add", "n", 5), ("append", "s", "x"), ("prepend", "s", "y")],
    "list": [("list_append", "l", None, (0, 0), 7), ("list_sort", "l", None, 0)],
    "map": [
        ("map_put", "m", None, (0, 0), "k", 5),
        ("map_increment_value", "m", None, (0, 0), "j", 2),
    ],
    "expression": [("exp_write", "b", ("num_mul", ("int_bin", "n"), ("int_val", 10)), 0)],
    "touch": [("touch", None)],
}
INDEX = ("range", "n", 2, 6)
FILTER = ("gt", ("int_bin", "n"), ("int_val", 3))


def normalized(msg: bytes | str) -> bytes | str:
    """A background request with its header timeout, task id and socket timeout blanked."""
    msg = without_timeout(msg)
    if isinstance(msg, str):
        return msg
    fields = int.from_bytes(msg[18:20], "big")
    out, at = bytearray(msg[:22]), 22
    for _ in range(fields):
        size = int.from_bytes(msg[at : at + 4], "big")
        kind, data = msg[at + 4], msg[at + 5 : at + 4 + size]
        if kind in (FIELD_TASK_ID, FIELD_SOCKET_TIMEOUT):
            data = bytes(len(data))
        out += msg[at : at + 5] + data
        at += 4 + size
    return bytes(out + msg[at:])


def wire_bytes_sent(client: n.Client) -> int:
    """What the client's own connections sent (the crate's are not counted)."""
    return sum(node["bytes_sent"] for node in client.metrics()["nodes"])


class Pair(ClientPair):
    """The two clients, each starting one background query at a time."""

    def sent(
        self,
        client: n.Client,
        set_name: str,
        index: tuple[Any, ...] | None,
        policy: n.Policy | None,
        ops: list[Any] | None,
        udf: tuple[str, str, list[Any]] | None,
    ) -> bytes | str:
        """The request sent to the node, or the name of the error that kept it from leaving."""
        self.rec.take()
        refused = "nothing sent"
        before = wire_bytes_sent(client)
        try:
            task = client.query_background_blocking(NS, set_name, index, policy, ops, udf)
            task.wait_blocking(30)
        except n.AerospikeError as e:
            refused = type(e).__name__  # a server's refusal still leaves the request to compare
        on_wire = wire_bytes_sent(client) > before
        assert on_wire == (client is self.wire), "a client took the other road"
        sent = self.rec.take()
        assert len(sent) <= 1, "one node, one request"
        return sent[-1] if sent else refused


@pytest.fixture(scope="module")
def pair(server_address: tuple[str, int]) -> Iterator[Pair]:
    with recording(server_address) as rec:
        p = Pair(rec, (NS, f"bge{_RUN}", "probe", None))
        p.wire.udf_register_blocking(BUMP, f"{MODULE}.lua")
        yield p
        p.wire.udf_remove_blocking(f"{MODULE}.lua")
        p.close()


@pytest.fixture(scope="module")
def sets(pair: Pair) -> Iterator[tuple[str, str]]:
    """Two sets of the same records, indexed on ``n``: one the crate changes, one the SDK."""
    names = (f"bgc{_RUN}", f"bgw{_RUN}")
    for s in names:
        pair.wire.create_index_blocking(NS, s, "n", f"{s}_n", "numeric", None, None, None)
    yield names
    for s in names:
        pair.wire.drop_index_blocking(NS, s, f"{s}_n")
        pair.wire.truncate_blocking(NS, s, 0)


@pytest.fixture
def fresh(pair: Pair, sets: tuple[str, str]) -> tuple[str, str]:
    """The two sets, their records as each test starts (whole records replaced)."""
    for s in sets:
        for i in range(8):
            bins = {"n": i, "s": f"r{i}", "l": [3, 1, i], "m": {"k": i}}
            pair.wire.put_blocking((NS, s, i, None), bins, n.Policy(send_key=True, exists=2))
    return sets


def records(client: n.Client, set_name: str) -> dict[Any, dict[str, Any]]:
    out: dict[Any, dict[str, Any]] = {}
    stream = client.query(NS, set_name, None, None, None, 0, None, 100)
    while (chunk := stream.next_chunk_blocking()) is not None:
        for r in chunk:
            assert r.key is not None
            out[r.key[2]] = r.bins  # the user key, stored with the record
    return out


SHAPES = [(None, None), (INDEX, None), (None, FILTER), (INDEX, FILTER)]
SHAPE_IDS = ["scan", "index", "filter", "index_and_filter"]


@pytest.mark.parametrize(("index", "filter"), SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("chain", CHAINS, ids=str)
def test_op_chains_are_sent_as_the_crate_sends_them_and_change_the_same_records(
    pair: Pair, fresh: tuple[str, str], chain: str, index: Any, filter: Any
) -> None:
    policy = n.Policy(filter=filter) if filter else None
    crate_set, wire_set = fresh
    before = records(pair.wire, wire_set)
    crate = pair.sent(pair.crate, crate_set, index, policy, CHAINS[chain], None)
    wire = pair.sent(pair.wire, wire_set, index, policy, CHAINS[chain], None)
    assert isinstance(wire, bytes), wire
    assert normalized(wire.replace(wire_set.encode(), crate_set.encode())) == normalized(crate)
    after = records(pair.wire, wire_set)
    assert after == records(pair.wire, crate_set)
    assert chain == "touch" or after != before, "the job changed no record"


@pytest.mark.parametrize(("index", "filter"), SHAPES, ids=SHAPE_IDS)
def test_a_udf_with_args_is_sent_as_the_crate_sends_it_and_changes_the_same_records(
    pair: Pair, fresh: tuple[str, str], index: Any, filter: Any
) -> None:
    policy = n.Policy(filter=filter) if filter else None
    crate_set, wire_set = fresh
    crate = pair.sent(pair.crate, crate_set, index, policy, None, UDF)
    wire = pair.sent(pair.wire, wire_set, index, policy, None, UDF)
    assert isinstance(wire, bytes), wire
    assert normalized(wire.replace(wire_set.encode(), crate_set.encode())) == normalized(crate)
    changed = records(pair.wire, wire_set)
    assert changed == records(pair.wire, crate_set)
    assert any(r.get("e") == 3 and r.get("t") == 2 for r in changed.values())


@pytest.mark.parametrize(
    "policy",
    [
        n.Policy(ttl=60),
        n.Policy(ttl=-1),
        n.Policy(ttl=-2),
        n.Policy(exists=1),
        n.Policy(send_key=True),
        n.Policy(durable_delete=True),
        n.Policy(generation=3),
        n.Policy(records_per_second=50),
        n.Policy(total_timeout_ms=5000, socket_timeout_ms=700),
    ],
    ids=repr,
)
@pytest.mark.parametrize("work", ["ops", "udf"])
def test_write_policies_are_sent_as_the_crate_sends_them(
    pair: Pair, policy: n.Policy, work: str
) -> None:
    set_name = f"bgp{_RUN}"
    ops, udf = (CHAINS["scalar"], None) if work == "ops" else (None, UDF)
    crate = pair.sent(pair.crate, set_name, None, policy, ops, udf)
    wire = pair.sent(pair.wire, set_name, None, policy, ops, udf)
    assert isinstance(wire, bytes), wire
    assert normalized(wire) == normalized(crate)
