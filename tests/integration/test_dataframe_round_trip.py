"""A DataFrame written with ``put_arrow`` and read back with its own schema is the same frame:
columns, order, dtypes and values, structs as structs, the key column kept, timestamps as
written. Without a schema, the differences are the ones ``dataframes.md`` lists."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aerospike_fluent as af

_sets = itertools.count()

INT64 = st.integers(-(2**63), 2**63 - 1)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
INSTANTS = st.datetimes(datetime(1700, 1, 1), datetime(2200, 1, 1)).map(
    lambda d: d.replace(tzinfo=UTC)
)
ROW = st.fixed_dictionaries(
    {
        "n": INT64,
        "x": st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=True)),
        "s": TEXT,
        "ok": st.booleans(),
        "tags": st.lists(TEXT, max_size=3),
        "addr": st.fixed_dictionaries({"z": INT64, "k": TEXT}),
        "at": INSTANTS,
    }
)
FRAMES = st.lists(ROW, min_size=1, max_size=12)
SETTINGS = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The rows, keyed by an ``id`` column that comes last (a key need not be first)."""
    df = pd.DataFrame(rows)
    df["at"] = pd.to_datetime(df["at"], utc=True).astype("datetime64[ns, UTC]")
    df["x"] = df["x"].astype("float64")
    df["id"] = [f"k{i}" for i in range(len(rows))]
    return df


def _schema(df: pd.DataFrame) -> pa.Schema:
    return pa.Schema.from_pandas(df, preserve_index=False).remove_metadata()


@SETTINGS
@given(rows=FRAMES)
def test_a_pandas_frame_comes_back_equal(sdb: af.SyncClient, rows: list[dict[str, Any]]) -> None:
    df = _frame(rows)
    s = sdb.namespace("test").set(f"rt_pd_{next(_sets)}_{id(df)}")
    assert s.put_arrow(df, key="id").ok
    back = s.query().to_pandas(schema=_schema(df), key="id")
    back = back.sort_values("id", key=lambda k: k.str[1:].astype(int)).reset_index(drop=True)
    pd.testing.assert_frame_equal(back, df)


@SETTINGS
@given(rows=FRAMES)
def test_a_polars_frame_comes_back_equal(sdb: af.SyncClient, rows: list[dict[str, Any]]) -> None:
    # typed as pandas has them (polars would make a column of empty lists list[null])
    df = pl.from_pandas(_frame(rows), schema_overrides={"tags": pl.List(pl.String)})
    s = sdb.namespace("test").set(f"rt_pl_{next(_sets)}_{id(df)}")
    assert s.put_arrow(df, key="id").ok
    back = s.query().to_polars(schema=df.schema, key="id")
    order = back["id"].str.slice(1).cast(pl.Int64).arg_sort()
    assert_frame_equal(back[order], df)


def test_without_a_schema_the_differences_are_the_documented_ones(
    sdb: af.SyncClient, set_name: str
) -> None:
    at = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    df = pd.DataFrame(
        {
            "n": [1],
            "addr": [{"z": 1, "k": 2}],
            "at": pd.Series([at]).astype("datetime64[ns, UTC]"),
            "id": ["a"],
        }
    )
    s = sdb.namespace("test").set(set_name)
    s.put_arrow(df, key="id")
    table = pa.table(s.query().to_arrow(key="id"))
    assert table.column_names == ["id", "n", "addr", "at"]  # the key column first
    assert table.schema.field("addr").type == pa.map_(pa.string(), pa.int64())  # not a struct
    micros = (at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    assert table.column("at").to_pylist() == [micros * 1000]  # UTC nanoseconds, as models
    mixed = s.query().to_pandas(key="id", mixed_types="str")
    assert mixed["n"].tolist() == [1]
