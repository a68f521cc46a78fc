"""Random list/map operation sequences: the embedded server and ``_model`` must agree.

Every step runs one operation through the fluent SDK and the model, then compares the op's
result (or error code), in order, and the stored bin.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerospike_fluent import ListOrder, ListSort, MapOrder, Return
from aerospike_fluent import sync as af_sync
from aerospike_fluent.errors import ServerError
from aerospike_fluent.server import EmbeddedServer

from . import _model as m

LIST_SET = "model_" + uuid.uuid4().hex[:8]  # a real node is shared
SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

values = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["", "a", "ab", "b"]),
    st.sampled_from([-1.5, 0.5, 2.0]),
    st.sampled_from([b"", b"x"]),
    st.none(),
    st.lists(st.integers(0, 2), max_size=2),
)
map_keys = st.one_of(st.integers(0, 4), st.sampled_from(["a", "b", "c"]))
map_values = values.filter(lambda v: v is not None)
idx = st.integers(-8, 8)
count = st.one_of(st.none(), st.integers(0, 4))
# values half the time: only they show the order a server hands elements out in
single_rt = st.one_of(
    st.just(m.VALUE),
    st.sampled_from(
        [m.NONE, m.INDEX, m.REVERSE_INDEX, m.RANK, m.REVERSE_RANK, m.COUNT, m.VALUE, m.EXISTS]
    ),
)
list_rt = st.tuples(single_rt, st.booleans()).map(lambda t: t[0] | (m.INVERTED if t[1] else 0))
map_single_rt = st.one_of(single_rt, st.sampled_from([m.KEY, m.KEY_VALUE]))
map_rt = st.tuples(map_single_rt, st.booleans()).map(lambda t: t[0] | (m.INVERTED if t[1] else 0))

list_ops = st.one_of(
    st.tuples(st.just("append"), values),
    st.tuples(st.just("insert"), idx, values),
    st.tuples(st.just("set"), idx, map_values),  # None: refused client-side
    st.tuples(st.just("increment"), idx, st.integers(-2, 2)),
    st.tuples(st.just("sort"), st.sampled_from([0, 1, 2, 3])),
    st.tuples(st.just("remove_by_index"), idx, single_rt),
    st.tuples(st.just("remove_by_value"), values, list_rt),
    st.tuples(st.just("remove_by_rank"), idx, single_rt),
    st.tuples(st.just("remove_by_index_range"), idx, count, list_rt),
    st.tuples(st.just("remove_by_value_range"), values, values, list_rt),
    st.tuples(st.just("get_by_index"), idx, single_rt),
    st.tuples(st.just("get_by_rank"), idx, single_rt),
    st.tuples(st.just("get_by_index_range"), idx, count, list_rt),
    st.tuples(st.just("get_by_rank_range"), idx, count, list_rt),
    st.tuples(st.just("get_by_value_range"), values, values, list_rt),
    st.tuples(st.just("get_by_values"), st.lists(values, max_size=3), list_rt),
    st.tuples(st.just("remove_by_values"), st.lists(values, max_size=3), list_rt),
    st.tuples(st.just("get_by_value_relative_rank_range"), values, idx, count, list_rt),
    st.tuples(st.just("remove_by_value_relative_rank_range"), values, idx, count, list_rt),
)
map_ops = st.one_of(
    st.tuples(st.just("put"), map_keys, map_values),
    st.tuples(st.just("put_items"), st.dictionaries(map_keys, map_values, max_size=3)),
    st.tuples(st.just("increment"), map_keys, st.integers(-2, 2)),
    st.tuples(st.just("remove_by_key"), map_keys, map_single_rt),
    st.tuples(st.just("remove_by_value"), map_values, map_rt),
    st.tuples(st.just("remove_by_rank"), idx, map_single_rt),
    st.tuples(st.just("get_by_key"), map_keys, map_single_rt),
    st.tuples(st.just("get_by_index"), idx, map_single_rt),
    st.tuples(st.just("get_by_index_range"), idx, count, map_rt),
    st.tuples(st.just("get_by_rank_range"), idx, count, map_rt),
    st.tuples(st.just("get_by_value_range"), map_values, map_values, map_rt),
    st.tuples(st.just("get_by_keys"), st.lists(map_keys, max_size=3), map_rt),
    st.tuples(st.just("get_by_key_range"), map_keys, map_keys, map_rt),
    st.tuples(st.just("get_by_values"), st.lists(map_values, max_size=3), map_rt),
    st.tuples(st.just("remove_by_values"), st.lists(map_values, max_size=3), map_rt),
    st.tuples(st.just("get_by_value_relative_rank_range"), map_values, idx, count, map_rt),
    st.tuples(st.just("remove_by_value_relative_rank_range"), map_values, idx, count, map_rt),
    st.tuples(st.just("get_by_key_relative_index_range"), map_keys, idx, count, map_rt),
    st.tuples(st.just("remove_by_key_relative_index_range"), map_keys, idx, count, map_rt),
)


@pytest.fixture(scope="module")
def sdb() -> Iterator[af_sync.SyncClient]:
    # Embedded only: random map sequences crash a real CE 8.1.2 node (a segfault filling a
    # map's offset index for an inverted get of everything).
    with EmbeddedServer() as srv, af_sync.connect(srv.seeds) as db:
        yield db


@pytest.fixture(scope="module")
def ldb(server_address: tuple[str, int]) -> Iterator[af_sync.SyncClient]:
    """The suite's server (``AEROSPIKE_HOST`` or embedded): list sequences run on a real node."""
    host, port = server_address
    with af_sync.connect(f"{host}:{port}") as db:
        yield db


def _call(op: tuple[Any, ...]) -> Callable[[Any], Any]:
    """The fluent builder call of ``op`` on a ListRef / MapRef."""
    name, *a = op
    if name == "sort":
        return lambda r: r.sort(ListSort(a[0]))
    if name == "put_items":
        return lambda r: r.update(a[0])
    if "_by_" not in name:
        return lambda r: getattr(r, name)(*a)
    rt = a[-1]
    args = (*a[:-1], Return(rt & ~m.INVERTED))
    if name.endswith(("_by_index", "_by_rank", "_by_key")):
        return lambda r: getattr(r, name)(*args)
    return lambda r: getattr(r, name)(*args, inverted=bool(rt & m.INVERTED))


def _apply(model: Any, op: tuple[Any, ...]) -> Any:
    """Apply ``op`` to the model; returns the op's result (raises ModelError)."""
    name, *a = op
    if name == "sort":
        return model.sort(a[0])
    if name == "put_items":
        return model.put_items(a[0])
    if "_by_" not in name:
        return getattr(model, name)(*a)
    kind = name.split("_by_", 1)[1]
    sel = getattr(model, f"by_{kind}")(*a[:-1])
    return model.select(sel, a[-1], name.startswith("remove"))


def _skip_map(model: m.MapModel, op: tuple[Any, ...]) -> bool:
    """Operations outside what the model pins down."""
    name, *a = op
    if name == "increment":
        cur = model.entries.get(a[0])
        return cur is not None and not isinstance(cur, int | float)
    return False


def _run(
    ops: list[tuple[Any, ...]],
    model: Any,
    skip: Callable[[Any, tuple[Any, ...]], bool],
    scope: Callable[[], Any],
    read: Callable[[], Any],
    state: Callable[[Any], Any],
) -> None:
    for n, op in enumerate(ops):
        if skip(model, op):
            continue
        trial = copy.deepcopy(model)
        try:
            expected = _apply(trial, op)
        except m.ModelError as exc:
            expected = ("error", exc.code)
        else:
            model = trial
        try:
            rec = _call(op)(scope()).execute()
            got = rec.get("d") if rec is not None else None
        except ServerError as exc:
            got = ("error", exc.result_code)
        assert got == expected, f"step {n} {op}: server {got!r}"
        assert read() == state(model), f"step {n} {op}: stored value differs"


@SETTINGS
@given(
    initial=st.lists(values, max_size=4),
    ops=st.lists(list_ops, min_size=1, max_size=8),
    ordered=st.booleans(),
    nested=st.booleans(),
)
def test_list_operations_match_the_model(
    ldb: af_sync.SyncClient,
    initial: list[Any],
    ops: list[tuple[Any, ...]],
    ordered: bool,
    nested: bool,
) -> None:
    ordered = ordered and not nested
    k = ldb.namespace("test").set(LIST_SET).key("list")
    if nested:
        k.put({"d": {"in": initial}})
        scope: Callable[[], Any] = lambda: k.bin("d").map.at_key("in").list  # noqa: E731
        read: Callable[[], Any] = lambda: k.get()["d"]["in"]  # type: ignore[index]  # noqa: E731
    else:
        k.put({"d": initial})
        scope = lambda: k.bin("d").list  # noqa: E731
        read = lambda: k.get()["d"]  # type: ignore[index]  # noqa: E731
    if ordered:
        k.bin("d").list.create(ListOrder.ORDERED).execute()
    model = m.ListModel(initial, ordered)
    assert read() == model.items
    _run(ops, model, lambda *_: False, scope, read, lambda x: x.items)


@SETTINGS
@given(
    initial=st.dictionaries(map_keys, map_values, max_size=5),
    ops=st.lists(map_ops, min_size=1, max_size=8),
    key_ordered=st.booleans(),
    nested=st.booleans(),
)
def test_map_operations_match_the_model(
    sdb: af_sync.SyncClient,
    initial: dict[Any, Any],
    ops: list[tuple[Any, ...]],
    key_ordered: bool,
    nested: bool,
) -> None:
    key_ordered = key_ordered and not nested
    k = sdb.namespace("test").set("model").key("map")
    if nested:
        k.put({"d": [initial]})
        scope: Callable[[], Any] = lambda: k.bin("d").list.at_index(0).map  # noqa: E731
        read: Callable[[], Any] = lambda: k.get()["d"][0]  # type: ignore[index]  # noqa: E731
    else:
        k.put({"d": initial})
        scope = lambda: k.bin("d").map  # noqa: E731
        read = lambda: k.get()["d"]  # type: ignore[index]  # noqa: E731
    if key_ordered:
        k.bin("d").map.create(MapOrder.KEY_ORDERED).execute()
    stored = read
    read = lambda: list(stored().items())  # noqa: E731  # in stored (key) order
    model = m.MapModel(initial, key_ordered)
    assert read() == model.stored()
    _run(ops, model, _skip_map, scope, read, m.MapModel.stored)
