"""Random op chains give the same outcome on the SDK's own road as through the crate.

Every op of the SDK's encoding tables (list, map, bit and HLL, at the top of a bin or in a
nested value) and the scalar ops are drawn into chains of one to four ops, run on records
seeded alike: as an operate and as a batch row, by a client whose records go through the crate
and by one that sends them itself. The error (class and code), or the record's bins, results
and generation, must be the same. Against ``AEROSPIKE_HOST`` this is the same check on a real
server.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerospike_fluent import _native as n

CRATE = "AEROSPIKE_FLUENT_CRATE_RECORDS"
SPECS = n._wire_op_specs()
BIN_OF = {"list": "l", "map": "m", "bit": "bits", "hll": "h"}
CTX_OF: dict[str, list[Any]] = {
    "list": [None, (("list_index", 2),)],
    "map": [None, (("map_key", "n"),)],
}
SEED = {
    "i": 5,
    "s": "x",
    "l": [1, 2, [3, 4], "a"],
    "m": {"a": 1, "b": "x", "n": {"k": 2}},
    "bits": b"\x0f\xf0\xaa",
}
_RUN = uuid.uuid4().hex[:8]
_ids = itertools.count()

pytestmark = pytest.mark.skipif(bool(os.environ.get(CRATE)), reason="the wire path is off")

scalars = st.one_of(st.integers(-3, 5), st.sampled_from(["a", "b", ""]))
ARG: dict[str, st.SearchStrategy[Any]] = {
    "int": st.integers(-3, 5),
    "val": scalars,
    "open_end": st.one_of(st.none(), st.integers(-2, 4)),
    "not_nil": st.integers(-2, 4),
    "list": st.lists(scalars, max_size=3),
    "items": st.lists(scalars, max_size=3),
    "order_only": st.integers(0, 1),
    "byte": st.integers(0, 8),
    "blob": st.binary(max_size=3),
    "bool": st.booleans(),
    "sketches": st.lists(st.binary(min_size=1, max_size=4), min_size=1, max_size=2),
    "overflow": st.sampled_from([0, 2, 4]),
    "signed": st.booleans(),
    "order": st.sampled_from([(0, 0), (1, 0), (0, 2), (1, 2)]),
    "flags": st.sampled_from([(0, 0), (1, 0), (0, 2), (1, 2)]),
}
SCALAR_OPS = st.one_of(
    st.sampled_from(
        [("read", "i"), ("read", "l"), ("read_all", None), ("read_header", None), ("touch", None)]
    ),
    st.tuples(st.just("write"), st.sampled_from(["i", "w"]), scalars),
    st.tuples(st.just("add"), st.just("i"), st.integers(-3, 3)),
    st.tuples(st.sampled_from(["append", "prepend"]), st.just("s"), st.just("z")),
)


@st.composite
def table_op(draw: st.DrawFn) -> tuple[Any, ...]:
    family, name, after, args = draw(st.sampled_from(SPECS))
    head: list[Any] = [f"{family}_{name}", BIN_OF[family]]
    if family in CTX_OF:
        head.append(draw(st.sampled_from(CTX_OF[family])))
    t: list[Any] = head + [None] * after
    for kind, pos in args:
        t[pos] = draw(ARG[kind])
    return tuple(t)


chains = st.lists(st.one_of(table_op(), SCALAR_OPS), min_size=1, max_size=4)


class Roads:
    def __init__(self, seeds: str) -> None:
        os.environ[CRATE] = "1"
        try:
            self.crate = n.connect_blocking(n.ClientConfig(seeds))
            self.crate.get_blocking(self.key(), None, False, None)
        finally:
            del os.environ[CRATE]
        self.wire = n.connect_blocking(n.ClientConfig(seeds))

    def key(self) -> n.Key:
        return ("test", "two_roads", f"r{_RUN}_{next(_ids)}", None)

    def seeded(self) -> n.Key:
        k = self.key()
        self.wire.put_blocking(k, SEED, None)
        return k


@pytest.fixture(scope="module")
def roads(server_address: tuple[str, int]) -> Iterator[Roads]:
    host, port = server_address
    r = Roads(f"{host}:{port}")
    yield r
    r.crate.close()
    r.wire.close()


def of_record(rec: n.Record | None) -> tuple[Any, ...] | None:
    if rec is None:
        return None
    # A batch row answered with no values has no results list from the crate's batch; on the
    # SDK's road it has one slot per op (None each), as an operate's record has.
    results = rec.results
    if results is not None and all(r is None for r in results):
        results = None
    return (rec.bins, results, rec.generation)


def operated(client: n.Client, key: n.Key, chain: list[Any]) -> tuple[Any, ...]:
    try:
        return ("ok", of_record(client.operate_blocking(key, chain, None)))
    except n.AerospikeError as e:
        return (type(e).__name__, e.result_code)


def batched(client: n.Client, keys: list[n.Key], chain: list[Any]) -> list[tuple[Any, ...]]:
    """Two rows (the crate sends a batch of one as a single-record command)."""
    try:
        rows = client.batch_blocking([("write", k, chain, None) for k in keys], None)
    except n.AerospikeError as e:
        return [(type(e).__name__, e.result_code)]
    return [
        (r.result_code, None if r.error is None else type(r.error).__name__, of_record(r.record))
        for r in rows
    ]


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(chain=chains)
def test_a_chain_ends_alike_on_both_roads(roads: Roads, chain: list[Any]) -> None:
    crate_op = operated(roads.crate, roads.seeded(), chain)
    wire_op = operated(roads.wire, roads.seeded(), chain)
    assert wire_op == crate_op
    crate_rows = batched(roads.crate, [roads.seeded(), roads.seeded()], chain)
    wire_rows = batched(roads.wire, [roads.seeded(), roads.seeded()], chain)
    assert wire_rows == crate_rows
