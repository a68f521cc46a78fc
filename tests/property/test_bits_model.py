"""Random bit operation sequences: the embedded server and ``_bits_model`` must agree.

Every step runs one operation through the fluent SDK and the model, then compares the op's
result (or error code) and the stored blob.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerospike_fluent import BitOverflow, BitResize, BitWrite
from aerospike_fluent import sync as af_sync
from aerospike_fluent.errors import ServerError
from aerospike_fluent.server import EmbeddedServer

from . import _bits_model as m

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

offset = st.integers(-50, 50)
size = st.integers(1, 50)
int_size = st.integers(1, 64)
blob = st.binary(min_size=1, max_size=7)
flags = st.sampled_from([0, m.NO_FAIL, m.PARTIAL, m.PARTIAL | m.NO_FAIL, m.UPDATE_ONLY])
create_flags = st.sampled_from([0, m.NO_FAIL, m.CREATE_ONLY, m.CREATE_ONLY | m.NO_FAIL])
int_flags = st.sampled_from([0, m.NO_FAIL, m.UPDATE_ONLY])
action = st.sampled_from([0, m.SATURATE, m.WRAP])
operand = st.one_of(st.integers(-300, 300), st.integers(-(2**63), 2**63 - 1))


@st.composite
def edit(draw: st.DrawFn, name: str) -> tuple[Any, ...]:
    off, n = draw(offset), draw(size)
    value = draw(st.binary(min_size=(n + 7) // 8, max_size=(n + 7) // 8 + 1))
    return (name, off, n, value, draw(flags))


ops = st.one_of(
    st.tuples(
        st.just("resize"),
        st.integers(0, 8),
        st.sampled_from([0, m.FROM_FRONT, m.GROW_ONLY, m.SHRINK_ONLY, m.FROM_FRONT | m.GROW_ONLY]),
        create_flags,
    ),
    st.tuples(st.just("insert"), st.integers(-8, 8), blob, create_flags),
    st.tuples(st.just("remove"), st.integers(-8, 8), st.integers(1, 8), flags),
    *(edit(name) for name in ("set", "or", "xor", "and")),
    st.tuples(st.just("not"), offset, size, flags),
    st.tuples(st.sampled_from(["lshift", "rshift"]), offset, size, st.integers(0, 60), flags),
    st.tuples(
        st.sampled_from(["add", "subtract"]),
        offset,
        int_size,
        operand,
        st.booleans(),
        action,
        int_flags,
    ),
    st.tuples(st.just("set_int"), offset, int_size, operand, int_flags),
    st.tuples(st.sampled_from(["get", "count"]), offset, size),
    st.tuples(st.sampled_from(["lscan", "rscan"]), offset, size, st.booleans()),
    st.tuples(st.just("get_int"), offset, int_size, st.booleans()),
)


@pytest.fixture(scope="module")
def sdb() -> Iterator[af_sync.SyncClient]:
    with EmbeddedServer() as srv, af_sync.connect(srv.seeds) as db:
        yield db


def _call(bits: Any, op: tuple[Any, ...]) -> Any:
    """The fluent builder call of ``op`` on a BitsRef."""
    name, *a = op
    if name == "resize":
        return bits.resize(a[0], resize=BitResize(a[1]), flags=BitWrite(a[2]))
    if name in ("add", "subtract"):
        fn = getattr(bits, name)
        return fn(*a[:3], signed=a[3], overflow=BitOverflow(a[4]), flags=BitWrite(a[5]))
    if name == "get_int":
        return bits.get_int(a[0], a[1], signed=a[2])
    method = {"or": "or_", "and": "and_", "not": "not_"}.get(name, name)
    if name in m.READS:
        return getattr(bits, method)(*a)
    return getattr(bits, method)(*a[:-1], flags=BitWrite(a[-1]))


@SETTINGS
@given(initial=st.one_of(st.none(), st.binary(max_size=6)), steps=st.lists(ops, max_size=8))
def test_bit_operations_match_the_model(
    sdb: af_sync.SyncClient, initial: bytes | None, steps: list[tuple[Any, ...]]
) -> None:
    k = sdb.namespace("test").set("bits_model").key("b")
    k.put({"keep": 1, "d": initial})
    model = m.BitsModel(initial)
    for n, op in enumerate(steps):
        trial = copy.deepcopy(model)
        try:
            expected: Any = trial.apply(*op)
        except m.ModelError as exc:
            expected = ("error", exc.code)
        else:
            model = trial
        try:
            rec = _call(k.bin("d").bits, op).execute()
            got = rec.get("d") if rec is not None else None
        except ServerError as exc:
            got = ("error", exc.result_code)
        assert got == expected, f"step {n} {op}: server {got!r}"
        stored = k.get()
        assert stored is not None and stored.get("d") == model.blob, f"step {n} {op}"
