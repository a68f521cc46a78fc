"""Lists asked for a list of values answer as a real node does (``_value_list_model``).

Random lists, ordered or not, at the top of a bin or nested in a map, are asked for random value
lists (repeats and missing values included) with every list return type, inverted or not, as a
get and as a remove; the result and the list left must be what the model says. Runs on the
embedded server, or on ``AEROSPIKE_HOST`` when it is set.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerospike_fluent import ListOrder, Return
from aerospike_fluent import sync as af_sync
from aerospike_fluent.errors import ServerError

from . import _model as m
from ._value_list_model import answer

SET = "vlist_" + uuid.uuid4().hex[:8]
# few distinct values, so values asked often repeat and often match stored ones
values = st.one_of(
    st.integers(0, 3),
    st.sampled_from(["a", "b"]),
    st.sampled_from([None, 1.5, [0], [0, 1]]),
)
return_types = st.sampled_from(
    [m.NONE, m.INDEX, m.REVERSE_INDEX, m.RANK, m.REVERSE_RANK, m.COUNT, m.VALUE, m.EXISTS]
)


@pytest.fixture(scope="module")
def db(server_address: tuple[str, int]) -> Iterator[af_sync.SyncClient]:
    host, port = server_address
    with af_sync.connect(f"{host}:{port}") as client:
        yield client


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    stored=st.lists(values, max_size=6),
    asked=st.lists(values, max_size=4),
    rt=return_types,
    inverted=st.booleans(),
    remove=st.booleans(),
    ordered=st.booleans(),
    nested=st.booleans(),
)
def test_value_lists_answer_as_a_real_node(
    db: af_sync.SyncClient,
    stored: list[Any],
    asked: list[Any],
    rt: int,
    inverted: bool,
    remove: bool,
    ordered: bool,
    nested: bool,
) -> None:
    k = db.namespace("test").set(SET).key("l")
    k.put({"d": {"in": stored} if nested else stored})
    scope = k.bin("d").map.at_key("in").list if nested else k.bin("d").list
    if ordered:
        scope.create(ListOrder.ORDERED).execute()
    items = sorted(stored, key=m.order_key) if ordered else stored
    try:
        expected, chosen = answer(items, ordered, asked, rt | (m.INVERTED if inverted else 0))
    except m.ModelError as exc:
        expected, chosen = ("error", exc.code), []
    call = scope.remove_by_values if remove else scope.get_by_values
    try:
        rec = call(asked, Return(rt), inverted=inverted).execute()
        got = rec.get("d") if rec is not None else None
    except ServerError as exc:
        got = ("error", exc.result_code)
    assert got == expected
    left = [x for p, x in enumerate(items) if not (remove and p in chosen)]
    bin_now = k.get()["d"]  # type: ignore[index]
    assert (bin_now["in"] if nested else bin_now) == left
