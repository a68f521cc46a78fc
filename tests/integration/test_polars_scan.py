"""``af.polars.scan_set``: a set as a polars LazyFrame, with projection, filter and limit pushdown.

Pushdown is shown by the bytes the client received (``db.metrics()``): a pushed plan receives
fewer than the same plan collected whole and filtered by polars; the results are equal.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import polars as af_polars

SCHEMA = {"id": pl.Int64, "i": pl.Int64, "f": pl.Float64, "s": pl.String, "b": pl.Boolean}
_examples = itertools.count()


def _put(db: af.SyncClient, set_name: str, rows: Mapping[int, Mapping[str, Any]]) -> None:
    s = db.namespace("test").set(set_name)
    s.put_many(rows, send_key=True).raise_on_error()


def _received(db: af.SyncClient) -> int:
    return sum(n.bytes_received for n in db.metrics().nodes)


def _collect(db: af.SyncClient, lf: pl.LazyFrame) -> tuple[pl.DataFrame, int]:
    """The frame, and the bytes the client received while polars collected it."""
    before = _received(db)
    frame = lf.collect()
    return frame, _received(db) - before


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort("id") if "id" in frame.columns else frame.sort(frame.columns)


def _rows(n: int, pad: int = 0) -> dict[int, dict[str, Any]]:
    return {
        i: {"i": i, "f": i / 4, "s": f"s{i % 37}", "b": i % 3 == 0, "pad": "x" * pad}
        for i in range(n)
    }


def test_projection_reads_only_the_columns_asked_for(sdb: af.SyncClient, set_name: str) -> None:
    _put(sdb, set_name, _rows(300, pad=200))
    lf = af_polars.scan_set(sdb, "test", set_name, key="id")
    everything, whole = _collect(sdb, lf)
    assert everything.height == 300 and "pad" in everything.columns
    two, projected = _collect(sdb, lf.select("id", "i"))
    assert two.columns == ["id", "i"]
    assert_frame_equal(_sorted(two), _sorted(everything.select("id", "i")))
    assert projected * 3 < whole, (projected, whole)  # 200-byte pads left on the server


def test_filters_are_evaluated_by_the_server(sdb: af.SyncClient, set_name: str) -> None:
    _put(sdb, set_name, _rows(1000))
    lf = af_polars.scan_set(sdb, "test", set_name, key="id")
    everything, whole = _collect(sdb, lf)
    for predicate in (
        pl.col("i") < 20,
        (pl.col("s") == "s5") & pl.col("b"),
        pl.col("i").is_in([3, 500, 999]) | (pl.col("f") >= 249.5),
        ~(pl.col("i") > 10),
        pl.col("id").is_between(100, 110),
        pl.col("i") > 989.5,
    ):
        pushed, received = _collect(sdb, lf.filter(predicate))
        assert 0 < pushed.height < 60
        assert_frame_equal(_sorted(pushed), _sorted(everything.filter(predicate)))
        assert received * 10 < whole, (predicate, received, whole)


def test_untranslatable_parts_are_applied_by_polars(sdb: af.SyncClient, set_name: str) -> None:
    _put(sdb, set_name, _rows(400))
    lf = af_polars.scan_set(sdb, "test", set_name, key="id")
    everything, whole = _collect(sdb, lf)
    contains = pl.col("s").str.contains("3")
    arithmetic = (pl.col("i") + pl.col("id")) % 7 == 0
    for predicate in (contains, arithmetic, contains | (pl.col("i") < 5), ~contains):
        frame, _ = _collect(sdb, lf.filter(predicate))
        assert frame.height > 0
        assert_frame_equal(_sorted(frame), _sorted(everything.filter(predicate)))
    # the translatable half of an `and` still cuts what the server sends
    both = contains & (pl.col("i") < 40)
    frame, received = _collect(sdb, lf.filter(both))
    assert_frame_equal(_sorted(frame), _sorted(everything.filter(both)))
    assert received * 5 < whole
    assert af_polars.server_filter(contains, SCHEMA) is None
    assert af_polars.server_filter(arithmetic, SCHEMA) is None
    assert af_polars.server_filter(contains | (pl.col("i") < 5), SCHEMA) is None
    assert af_polars.server_filter(both, SCHEMA) is not None


def test_head_reads_about_n_records(sdb: af.SyncClient, set_name: str) -> None:
    _put(sdb, set_name, _rows(2000, pad=50))
    lf = af_polars.scan_set(sdb, "test", set_name, key="id")
    _, whole = _collect(sdb, lf)
    first, received = _collect(sdb, lf.head(7))
    assert first.height == 7
    assert received * 50 < whole, (received, whole)
    limited, _ = _collect(sdb, lf.select("i").limit(3))
    assert limited.height == 3 and limited.columns == ["i"]
    filtered, _ = _collect(sdb, lf.filter(pl.col("s") == "s4").head(5))
    assert filtered.height == 5 and filtered["s"].to_list() == ["s4"] * 5
    odd, _ = _collect(sdb, lf.filter(pl.col("s").str.ends_with("1")).head(11))
    assert odd.height == 11 and all(s.endswith("1") for s in odd["s"])
    assert lf.head(0).collect().height == 0


def test_schema_is_inferred_from_a_sample(sdb: af.SyncClient, set_name: str) -> None:
    rows: dict[int, dict[str, Any]] = {i: {"n": i, "name": f"u{i}"} for i in range(30)}
    rows[1000] = {"n": 1000, "name": "late", "later": 1.5}
    _put(sdb, set_name, rows)
    s = sdb.namespace("test").set(set_name)
    lf = s.scan_polars(key="pk", digest=True)
    schema = lf.collect_schema()
    assert schema["pk"] == pl.Int64 and schema["n"] == pl.Int64 and schema["name"] == pl.String
    assert schema["digest"] == pl.Binary
    frame = lf.filter(pl.col("pk") >= 25).collect()
    assert sorted(frame["n"]) == [25, 26, 27, 28, 29, 1000]
    assert all(len(d) == 20 for d in frame["digest"])
    small = s.scan_polars(sample_size=1).collect_schema()
    assert set(small) == {"n", "name"}  # "later" is not in the first record


def test_an_explicit_schema_types_the_columns(sdb: af.SyncClient, set_name: str) -> None:
    rows: dict[int, dict[str, Any]] = {i: {"i": i, "f": i if i % 2 else i + 0.5} for i in range(40)}
    _put(sdb, set_name, rows)
    lf = af_polars.scan_set(
        sdb, "test", set_name, key="id", schema={"id": pl.Int64, "i": pl.Int32, "f": pl.Float64}
    )
    assert lf.collect_schema() == pl.Schema({"id": pl.Int64, "i": pl.Int32, "f": pl.Float64})
    # f holds ints and floats: both are compared
    frame = lf.filter(pl.col("f") >= 30).select("id", "f").sort("id").collect()
    assert frame["id"].to_list() == list(range(30, 40))
    assert frame["f"].to_list() == [i if i % 2 else i + 0.5 for i in range(30, 40)]
    few = lf.filter(pl.col("i") < 3).collect(engine="streaming")
    assert sorted(few["i"]) == [0, 1, 2]


def test_records_without_the_bins_read_are_rows_of_nulls(sdb: af.SyncClient, set_name: str) -> None:
    rows: dict[int, dict[str, Any]] = {i: {"a": i} for i in range(10)}
    rows.update({i: {"b": i} for i in range(10, 15)})
    _put(sdb, set_name, rows)
    schema = {"id": pl.Int64, "a": pl.Int64, "b": pl.Int64}
    lf = af_polars.scan_set(sdb, "test", set_name, key="id", schema=schema)
    only_a = lf.select("a").collect()
    assert only_a.height == 15 and only_a["a"].null_count() == 5
    assert lf.select(pl.len()).collect().item() == 15
    assert af_polars.scan_set(sdb, "test", set_name, schema={"a": pl.Int64}).collect().height == 15
    frame = lf.filter(pl.col("a").is_null()).select("id", "a").collect()
    assert sorted(frame["id"]) == list(range(10, 15)) and frame["a"].null_count() == 5
    assert lf.filter(pl.col("a").is_null()).head(2).collect().height == 2


def test_collect_async_reads_off_the_event_loop(sdb: af.SyncClient, set_name: str) -> None:
    _put(sdb, set_name, _rows(50))
    lf = af_polars.scan_set(sdb, "test", set_name)

    async def collect() -> pl.DataFrame:
        return await lf.filter(pl.col("i") < 5).collect_async()

    assert sorted(asyncio.run(collect())["i"]) == [0, 1, 2, 3, 4]


def test_batch_size_gives_the_same_rows(sdb: af.SyncClient, set_name: str) -> None:
    _put(sdb, set_name, _rows(250))
    small = af_polars.scan_set(sdb, "test", set_name, key="id", batch_size=7)
    big = af_polars.scan_set(sdb, "test", set_name, key="id")
    predicate = pl.col("i") % 5 == 1
    assert_frame_equal(
        _sorted(small.filter(predicate).collect()), _sorted(big.collect().filter(predicate))
    )
    assert small.head(9).collect().height == 9


def test_wrong_options_are_refused(sdb: af.SyncClient, set_name: str) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="unknown scan option"):
        af_polars.scan_set(sdb, "test", set_name, rows=5)  # type: ignore[call-arg]
    with pytest.raises(errors.InvalidArgumentError, match="no column 'id'"):
        af_polars.scan_set(sdb, "test", set_name, key="id", schema={"a": pl.Int64})
    with pytest.raises(errors.InvalidArgumentError, match="batch_size"):
        af_polars.scan_set(sdb, "test", set_name, batch_size=0)
    sdb.namespace("test").set(set_name).key(1).put({"a": 1})  # its key is not stored
    with pytest.raises(errors.InvalidArgumentError, match="null in the first"):
        af_polars.scan_set(sdb, "test", set_name, key="id")


@pytest.mark.anyio
async def test_an_async_client_is_refused(anyio_backend: str, seeds: str, set_name: str) -> None:
    async with af.connect(seeds) as db:
        with pytest.raises(errors.InvalidTypeError, match="blocking client"):
            af_polars.scan_set(db, "test", set_name)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- random data and filters
_ints = st.integers(-5, 5)
_floats = st.one_of(
    st.sampled_from([0.0, -0.0, 1.5, -2.5, math.inf, -math.inf, math.nan]), st.integers(-3, 3)
)
_float_values = st.sampled_from([0.0, -0.0, 1.5, 2.0])
_strs = st.sampled_from(["", "a", "ab", "b", "é", "Z", "a3"])
_record = st.fixed_dictionaries(
    {},
    optional={"i": _ints, "f": _floats, "s": _strs, "b": st.booleans()},
)
_CMPS: list[Callable[[Any, Any], Any]] = [
    operator.eq,
    operator.ne,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
]


def _compare(name: str, values: st.SearchStrategy[Any]) -> st.SearchStrategy[pl.Expr]:
    def build(t: tuple[Callable[[Any, Any], Any], Any, bool]) -> pl.Expr:
        op, value, flipped = t
        column = pl.col(name)
        return op(pl.lit(value), column) if flipped else op(column, value)  # type: ignore[no-any-return]

    return st.tuples(st.sampled_from(_CMPS), values, st.booleans()).map(build)


_leaves = st.one_of(
    _compare("i", st.one_of(_ints, st.sampled_from([0.5, -1.5]))),
    _compare("f", _floats.filter(lambda v: not (isinstance(v, float) and math.isnan(v)))),
    _compare("s", _strs),
    _compare("b", st.booleans()),
    _compare("id", st.integers(0, 12)),
    st.sampled_from(["i", "f", "s", "b", "id"]).map(lambda c: pl.col(c).is_null()),
    st.sampled_from(["i", "f", "s", "b"]).map(lambda c: pl.col(c).is_not_null()),
    st.lists(_ints, max_size=3).map(lambda v: pl.col("i").is_in(v)),
    st.lists(_strs, max_size=3).map(lambda v: pl.col("s").is_in(v)),
    st.lists(_float_values, max_size=3).map(lambda v: pl.col("f").is_in(v)),
    st.tuples(_ints, _ints).map(lambda t: pl.col("i").is_between(*t)),
    st.just(pl.col("b")),
    st.just(pl.col("s").str.contains("a")),
    st.just((pl.col("i") + pl.col("id")) > 3),
)
_predicates = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda t: t[0] & t[1]),
        st.tuples(inner, inner).map(lambda t: t[0] | t[1]),
        inner.map(operator.inv),
    ),
    max_leaves=6,
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    records=st.lists(_record, min_size=1, max_size=12),
    predicates=st.lists(_predicates, min_size=1, max_size=6),
)
def test_pushed_plans_equal_polars_filtering(
    sdb: af.SyncClient, set_name: str, records: list[dict[str, Any]], predicates: list[pl.Expr]
) -> None:
    name = f"{set_name}_{next(_examples)}"
    _put(sdb, name, {k: {"any": 1, **r} for k, r in enumerate(records)})
    lf = af_polars.scan_set(sdb, "test", name, key="id", schema={**SCHEMA, "any": pl.Int64})
    everything = lf.collect()
    assert everything.height == len(records)
    for predicate in predicates:
        pushed = lf.filter(predicate).collect()
        assert_frame_equal(_sorted(pushed), _sorted(everything.filter(predicate)))
        projected = lf.filter(predicate).select("id", "s").collect()
        expected = everything.filter(predicate).select("id", "s")
        assert_frame_equal(_sorted(projected), _sorted(expected))
