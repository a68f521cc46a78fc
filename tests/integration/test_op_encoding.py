"""The SDK writes operate requests itself (``crates/native/src/ops/wire``): byte for byte what
the crate sends for the same op tuples. Both clients talk through a relay that records their
requests; every list and map op of the SDK's tables, with and without a context, each scalar
op, expression ops, chains and write policies are sent by each and compared (header, fields
and ops; only the timeout the server is told may differ)."""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from aerospike_fluent import _native as n

from ._recorder import CRATE, ClientPair, recording, without_timeout

_RUN = uuid.uuid4().hex[:8]
_ids = itertools.count()

pytestmark = pytest.mark.skipif(bool(os.environ.get(CRATE)), reason="the wire path is off")


def key() -> n.Key:
    return ("test", "encoding", f"e{_RUN}_{next(_ids)}", None)


class Pair(ClientPair):
    """The two clients, each sending one operate (or put, or delete) at a time."""

    def sent(
        self, client: n.Client, k: n.Key, ops: list[Any] | str, policy: n.Policy | None
    ) -> bytes | str:
        """The request sent for ``ops`` (or ``"delete"``, or a put when ``ops`` holds one
        ``("put", bins)``), or the name of the error that kept it from leaving."""
        self.rec.take()
        refused = "nothing sent"
        try:
            if isinstance(ops, str):
                client.delete_blocking(k, policy)
            elif ops[0][0] == "put":
                bins: dict[str, Any] = ops[0][1]
                client.put_blocking(k, bins, policy)
            else:
                client.operate_blocking(k, ops, policy)
        except n.AerospikeError as e:
            refused = type(e).__name__  # a server's refusal still leaves the request to compare
        sent = self.rec.take()
        return sent[-1] if sent else refused

    def both(
        self, ops: list[Any] | str, policy: n.Policy | None = None
    ) -> tuple[bytes | str, bytes | str]:
        k = key()
        return self.sent(self.crate, k, ops, policy), self.sent(self.wire, k, ops, policy)


@pytest.fixture(scope="module")
def pair(server_address: tuple[str, int]) -> Iterator[Pair]:
    with recording(server_address) as rec:
        p = Pair(rec, key())
        yield p
        p.close()


def assert_same(pair: Pair, ops: list[Any] | str, policy: n.Policy | None = None) -> None:
    crate, wire = pair.both(ops, policy)
    assert isinstance(wire, bytes) or wire == "InvalidArgumentError", f"{ops!r}: {wire}"
    assert without_timeout(wire) == without_timeout(crate), f"{ops!r}: {wire!r} != {crate!r}"


def sample(kind: str, pos: int, variant: int) -> Any:
    """A value for tuple position ``pos`` of ``kind``, distinct per position."""
    samples: dict[str, Any] = {
        "int": 1 if pos == 3 and variant else 10 + pos,
        "val": f"v{pos}",
        "open_end": None if variant else f"e{pos}",
        "not_nil": 7 + pos,
        "list": [1, f"x{pos}"],
        "items": [pos, "y"],
        "order_only": variant,
        "byte": 300 if variant and pos > 3 else 2,
        "blob": bytes([pos, 0xFF]),
        "bool": bool(variant),
        "sketches": [bytes([pos]) * 4, b"\x01\x02"],
        "overflow": 4 if variant else 2,
        "signed": bool(variant),
    }
    return samples[kind]


def tuples(
    family: str, name: str, after: int, args: list[tuple[str, int]], ctx: Any
) -> list[tuple[Any, ...]]:
    """Two tuples of the op: list and map ops carry a context, bit and HLL ops do not."""
    out = []
    head: list[Any] = [f"{family}_{name}", "b"]
    if family in ("list", "map"):
        head.append(ctx)
    for variant in (0, 1):
        t: list[Any] = head + [None] * after
        for kind, pos in args:
            if kind in ("order", "flags"):
                t[pos] = (1, 2) if variant else (0, 0)
            else:
                t[pos] = sample(kind, pos, variant)
        if family == "bit" and name in ("add", "subtract"):
            t[5] = bool(variant)  # the signed flag the overflow action rides with
        out.append(tuple(t))
    return out


CTXS = [None, (("map_key", "k"), ("list_index", 2))]
SPECS = n._wire_op_specs()


@pytest.mark.parametrize("ctx", CTXS, ids=["top", "nested"])
@pytest.mark.parametrize(
    ("family", "name", "after_ctx", "args"), SPECS, ids=[f"{s[0]}_{s[1]}" for s in SPECS]
)
def test_every_cdt_bit_and_hll_op_is_encoded_as_the_crate_does(
    pair: Pair, family: str, name: str, after_ctx: int, args: list[tuple[str, int]], ctx: Any
) -> None:
    for t in tuples(family, name, after_ctx, args, ctx):
        assert_same(pair, [t])


CREATE_CTX = [
    None,
    (("map_key_create", "m", 1),),
    (("list_index_create", 0, 1, True),),
    (("list_index_create", 1, 0, False),),
]


@pytest.mark.parametrize(
    "ctx", CREATE_CTX, ids=["top", "map_create", "list_ordered", "list_unordered"]
)
@pytest.mark.parametrize(
    "op",
    [
        ("list_create", 0, False),
        ("list_create", 1, False),
        ("list_create", 0, True),
        ("map_create", 0),
        ("map_create", 1),
        ("map_create", 3),
        ("map_set_policy", (1, 0)),
        ("map_put", (0, 0), "k", 5),
        ("map_put", (1, 0), "k", None),
        ("map_put", (0, 4), "k", None),
        ("map_put", (3, 8), 7, [1, 2]),
        ("map_put_items", (0, 0), {"a": 1}),
        ("map_put_items", (1, 2), {"c": 1, "a": 2, 5: 3}),
        ("map_put_items", (3, 0), {"z": [1], "b": {"n": 1}}),
    ],
    ids=str,
)
def test_create_put_and_policy_ops_are_encoded_as_the_crate_does(
    pair: Pair, op: tuple[Any, ...], ctx: Any
) -> None:
    assert_same(pair, [(op[0], "b", ctx, *op[1:])])


@pytest.mark.parametrize(
    "ops",
    [
        [("read", "a")],
        [("read_all", None)],
        [("read_header", None)],
        [("write", "a", 5)],
        [("write", "a", -1.25)],
        [("write", "a", "text")],
        [("write", "a", b"\x00\x01")],
        [("write", "a", True)],
        [("write", "a", None)],
        [("write", "a", [1, "two", 3.0, None, [b"x"]])],
        [("write", "a", {"k": {"n": [1, 2]}})],
        [("write", "g", n.GeoJSON('{"type": "Point", "coordinates": [1.5, 2.5]}'))],
        [("add", "a", 3)],
        [("add", "a", 0.5)],
        [("append", "s", "x")],
        [("prepend", "s", b"y")],
        [("touch", None)],
        [("delete", None)],
        [("write", "a", 1), ("add", "a", 2), ("read", "a"), ("read", "a")],
        [("list_append", "l", None, (0, 0), 1), ("list_size", "l", None), ("read", "l")],
        [("map_size", "m", None), ("read", "a")],
        [("read_all", None), ("map_size", "m", None)],
        [("exp_read", "x", ("num_add", ("int_bin", "a"), ("int_val", 1)), 0)],
        [("exp_write", "b", ("num_mul", ("int_bin", "a"), ("int_val", 10)), 2)],
        [("touch", None), ("read", "a")],
    ],
    ids=str,
)
def test_scalar_ops_and_chains_are_encoded_as_the_crate_does(pair: Pair, ops: list[Any]) -> None:
    assert_same(pair, ops)


@pytest.mark.parametrize(
    "policy",
    [
        n.Policy(ttl=60),
        n.Policy(ttl=-1),
        n.Policy(ttl=-2),
        n.Policy(generation=3),
        n.Policy(exists=1),
        n.Policy(exists=2),
        n.Policy(exists=3),
        n.Policy(exists=4),
        n.Policy(send_key=True),
        n.Policy(durable_delete=True),
        n.Policy(filter=("gt", ("int_bin", "a"), ("int_val", 1))),
        n.Policy(respond_all_ops=False),
        n.Policy(total_timeout_ms=500, socket_timeout_ms=100),
    ],
    ids=repr,
)
@pytest.mark.parametrize(
    "ops",
    [[("add", "a", 1), ("read", "a")], [("read", "a")], [("delete", None)]],
    ids=["write", "read", "delete"],
)
def test_write_policies_are_encoded_as_the_crate_does(
    pair: Pair, ops: list[Any], policy: n.Policy
) -> None:
    assert_same(pair, ops, policy)


@pytest.mark.parametrize(
    "policy",
    [
        n.Policy(exists=1),
        n.Policy(exists=2),
        n.Policy(exists=4),
        n.Policy(generation=2, ttl=30),
        n.Policy(send_key=True, exists=4),
        n.Policy(durable_delete=True, generation=1),
        n.Policy(filter=("gt", ("int_bin", "a"), ("int_val", 1))),
    ],
    ids=repr,
)
@pytest.mark.parametrize(
    "call",
    [[("put", {"a": 1, "l": [1, {"m": b"x"}], "s": "t"})], "delete"],
    ids=["put", "delete"],
)
def test_puts_and_deletes_under_any_policy_are_encoded_as_the_crate_does(
    pair: Pair, call: list[Any] | str, policy: n.Policy
) -> None:
    assert_same(pair, call, policy)
