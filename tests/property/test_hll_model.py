"""Random HyperLogLog sequences: the embedded server against ``_hll_model``.

Each step runs one operation through the fluent SDK and checks it with the model: exactly where
HLL semantics are deterministic (errors, ``describe``, no register change for values already
added, a union equal to the sketch of the union, no false negative in ``may_contain``), within
the HLL error bound for counts, and within (0, 1] (or NaN) for a sketch's similarity to itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerospike_fluent import F
from aerospike_fluent import sync as af_sync
from aerospike_fluent.errors import ServerError
from aerospike_fluent.server import EmbeddedServer

from . import _hll_model as m

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

words = st.lists(st.integers(0, 400).map(lambda i: f"v{i}"), min_size=1, max_size=60)
index_bits = st.integers(2, 17)
minhash_bits = st.sampled_from([0, 0, 4, 8, 16, 51, 3])

ops = st.one_of(
    st.tuples(st.just("init"), index_bits, minhash_bits),
    st.tuples(st.just("add"), words, index_bits, minhash_bits),
    st.tuples(st.just("add"), words, st.none(), st.just(0)),
    st.tuples(st.just("count")),
    st.tuples(st.just("describe")),
    st.tuples(st.just("union"), words),
    st.tuples(st.just("contains")),
)


@pytest.fixture(scope="module")
def sdb() -> Iterator[af_sync.SyncClient]:
    with EmbeddedServer() as srv, af_sync.connect(srv.seeds) as db:
        yield db


def _code(run: Any) -> Any:
    try:
        return run()
    except ServerError as exc:
        return ("error", exc.result_code)


def _expect(run: Any) -> Any:
    try:
        return run()
    except m.ModelError as exc:
        return ("error", exc.code)


def _sketch(sdb: af_sync.SyncClient, name: str, model: m.HllModel, values: set[str]) -> Any:
    """A bin with ``values`` added at the model's bit counts: its stored sketch and count."""
    k = sdb.namespace("test").set("hll_model").key(name)
    k.delete()
    p, mh = model.index_bits, model.minhash_bits
    k.bin("h").hll.add(sorted(values), index_bits=p, minhash_bits=mh).execute()
    rec = k.bin("h").hll.get_count().execute()
    stored = k.get()
    assert rec is not None and stored is not None
    return stored["h"], rec["h"]


def _step(sdb: af_sync.SyncClient, k: Any, model: m.HllModel, op: tuple[Any, ...]) -> None:
    name, *a = op
    h = k.bin("h").hll
    if name == "init":
        got = _code(lambda: (h.init(a[0], a[1]).execute(), None)[1])
        assert got == _expect(lambda: model.init(a[0], a[1])), op
    elif name == "add":
        before = set(model.values)
        got = _code(lambda: h.add(a[0], index_bits=a[1], minhash_bits=a[2]).execute())
        grew = _expect(lambda: model.add(a[0], a[1], a[2]))
        if isinstance(grew, tuple):
            assert got == grew, op
        else:
            changed = got["h"]
            assert 0 <= changed <= len(set(a[0]) - before), op
            if not grew:
                assert changed == 0, f"{op}: known values changed {changed} registers"
    elif name == "describe":
        got = _code(lambda: h.describe().execute()["h"])
        assert got == _expect(model.describe), op
    elif not model.exists:
        return
    elif name == "count":
        assert model.index_bits is not None
        count = h.get_count().execute()["h"]
        n = len(model.values)
        assert abs(count - n) <= m.tolerance(model.index_bits, n), (op, count, n)
        assert h.refresh_count().execute()["h"] == count
    elif name == "union":
        other, _ = _sketch(sdb, "other", model, set(a[0]))
        _, union_count = _sketch(sdb, "union", model, model.values | set(a[0]))
        assert h.get_union_count([other]).execute()["h"] == union_count, op
        own = k.get()["h"]
        if model.values:
            # HyperMinHash subtracts expected collisions (not exactly 1); NaN is the server's
            # answer when its emptiness test (the first 2^p register bytes) misses the data.
            sim = h.get_similarity([own]).execute()["h"]
            assert math.isnan(sim) or 0.0 < sim <= 1.0, (op, sim)
    elif name == "contains":
        values = sorted(model.values)[:20] or ["none"]
        rec = k.bin("c").read_exp(F.hll_bin("h").hll.may_contain(values)).execute()
        if model.values:
            assert rec is not None and rec["c"] == 1, f"{op}: a false negative"


@SETTINGS
@given(steps=st.lists(ops, max_size=8))
def test_hll_operations_match_the_model(
    sdb: af_sync.SyncClient, steps: list[tuple[Any, ...]]
) -> None:
    k = sdb.namespace("test").set("hll_model").key("h")
    k.delete()
    k.put({"keep": 1})
    model = m.HllModel()
    for op in steps:
        _step(sdb, k, model, op)
