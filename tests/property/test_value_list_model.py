"""Lists and maps asked for a list of values (or keys) answer as a real node does.

Random lists, ordered or not, and maps of every order, at the top of a bin or nested, are asked
for random value or key lists (repeats and missing values included) with every return type,
inverted or not, as a get and as a remove; the result and the container left must be what
``_value_list_model`` says. Runs on the embedded server, or on ``AEROSPIKE_HOST`` when set.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from aerospike_fluent import ListOrder, MapOrder, Return
from aerospike_fluent import sync as af_sync
from aerospike_fluent.errors import ServerError

from . import _model as m
from ._value_list_model import answer, map_answer

SET = "vlist_" + uuid.uuid4().hex[:8]
SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# few distinct values, so values asked often repeat and often match stored ones
values = st.one_of(
    st.integers(0, 3),
    st.sampled_from(["a", "b"]),
    st.sampled_from([None, 1.5, [0], [0, 1]]),
)
map_keys = st.one_of(st.integers(0, 5), st.sampled_from(["a", "b"]))
map_values = values.filter(lambda v: v is not None)
list_rts = [m.NONE, m.INDEX, m.REVERSE_INDEX, m.RANK, m.REVERSE_RANK, m.COUNT, m.VALUE, m.EXISTS]


@pytest.fixture(scope="module")
def db(server_address: tuple[str, int]) -> Iterator[af_sync.SyncClient]:
    host, port = server_address
    with af_sync.connect(f"{host}:{port}") as client:
        yield client


def _outcome(call: Callable[..., Any], asked: list[Any], rt: int, inverted: bool) -> Any:
    """The op's result, or ("error", code)."""
    try:
        rec = call(asked, Return(rt), inverted=inverted).execute()
    except ServerError as exc:
        return ("error", exc.result_code)
    return rec.get("d") if rec is not None else None


def _expected(model: Callable[[int], tuple[Any, list[int]]], rt: int, inverted: bool) -> Any:
    try:
        return model(rt | (m.INVERTED if inverted else 0))
    except m.ModelError as exc:
        return ("error", exc.code), []


@SETTINGS
@given(
    stored=st.lists(values, max_size=6),
    asked=st.lists(values, max_size=4),
    rt=st.sampled_from(list_rts),
    inverted=st.booleans(),
    remove=st.booleans(),
    ordered=st.booleans(),
    nested=st.booleans(),
)
def test_list_value_lists_answer_as_a_real_node(
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
    expected, chosen = _expected(lambda r: answer(items, ordered, asked, r), rt, inverted)
    call = scope.remove_by_values if remove else scope.get_by_values
    assert _outcome(call, asked, rt, inverted) == expected
    left = [x for p, x in enumerate(items) if not (remove and p in chosen)]
    bin_now = k.get()["d"]  # type: ignore[index]
    assert (bin_now["in"] if nested else bin_now) == left


@SETTINGS
@given(
    stored=st.dictionaries(map_keys, map_values, max_size=6),
    by_key=st.booleans(),
    asked_keys=st.lists(map_keys, max_size=4),
    asked_values=st.lists(map_values, max_size=4),
    rt=st.sampled_from([*list_rts, m.KEY, m.KEY_VALUE]),
    inverted=st.booleans(),
    remove=st.booleans(),
    order=st.sampled_from(list(MapOrder)),
    nested=st.booleans(),
)
def test_map_key_and_value_lists_answer_as_a_real_node(
    db: af_sync.SyncClient,
    stored: dict[Any, Any],
    by_key: bool,
    asked_keys: list[Any],
    asked_values: list[Any],
    rt: int,
    inverted: bool,
    remove: bool,
    order: MapOrder,
    nested: bool,
) -> None:
    asked = asked_keys if by_key else asked_values
    # an inverted map lookup of nothing segfaults a CE 8.1.2 node (filling its offset index)
    assume(asked or not inverted)
    k = db.namespace("test").set(SET).key("m")
    k.put({"d": [stored] if nested else stored})
    scope = k.bin("d").list.at_index(0).map if nested else k.bin("d").map
    if order != MapOrder.UNORDERED:
        scope.create(order).execute()
    keys = sorted(stored, key=m.order_key)
    vals = [stored[x] for x in keys]
    key_ordered = order != MapOrder.UNORDERED
    expected, chosen = _expected(
        lambda r: map_answer(keys, vals, key_ordered, by_key, asked, r), rt, inverted
    )
    if remove:
        call = scope.remove_by_keys if by_key else scope.remove_by_values
    else:
        call = scope.get_by_keys if by_key else scope.get_by_values
    assert _outcome(call, asked, rt, inverted) == expected
    left = [(x, stored[x]) for p, x in enumerate(keys) if not (remove and p in chosen)]
    bin_now = k.get()["d"]  # type: ignore[index]
    assert list((bin_now[0] if nested else bin_now).items()) == left
