"""Writes from Arrow tables and DataFrames: types kept on a round trip, write modes, failed
rows reported with their keys, progress, and bad input refused before anything is sent."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.progress import WriteProgress
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor

TABLE = pa.table(
    {
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "n": pa.array([1, 2, 3, 4], pa.int64()),
        "i": pa.array([10, None, -3, 2**40], pa.int64()),
        "f": pa.array([1.5, 2.25, None, -0.5], pa.float64()),
        "s": pa.array(["a", "béta", None, ""], pa.string()),
        "b": pa.array([b"x", None, b"\x00\xff", b"yy"], pa.binary()),
        "ok": pa.array([True, False, None, True], pa.bool_()),
        "l": pa.array([[1, 2], [3], None, []], pa.list_(pa.int64())),
        "m": pa.array(
            [{"x": 1, "y": "q"}, None, {"x": 3, "y": "r"}, {"x": 4, "y": "s"}],
            pa.struct([("x", pa.int64()), ("y", pa.string())]),
        ),
    }
)


async def _rows(fl: Flavor, set_name: str) -> list[dict[str, Any]]:
    table = await fl.run(fl.db.namespace("test").set(set_name).query().to_arrow())
    rows = pa.table(table).to_pylist()
    return sorted(rows, key=lambda r: r["n"])


async def test_a_table_written_reads_back_equal(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    result = await fl.run(s.put_arrow(TABLE, key="id"))
    assert result.written == 4 and result.ok
    expected = [{k: v for k, v in row.items() if k != "id"} for row in TABLE.to_pylist()]
    assert await _rows(fl, set_name) == expected
    rec = await fl.run(s.key(2).get())
    assert rec is not None and "i" not in rec.bins and "b" not in rec.bins  # nulls: no bin


async def test_polars_and_pandas_frames_are_written(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    frame = pl.DataFrame({"id": ["a", "b"], "n": [1, 2], "v": [0.5, None]})
    assert (await fl.run(s.put_arrow(frame, key="id"))).written == 2
    pdf = pd.DataFrame({"id": ["c", "d"], "n": [3, 4], "v": [1.0, 2.0]})
    assert (await fl.run(s.put_dataframe(pdf, key="id"))).written == 2
    rows = await _rows(fl, set_name)
    assert [(r["n"], r["v"]) for r in rows] == [(1, 0.5), (2, None), (3, 1.0), (4, 2.0)]


async def test_failed_rows_are_reported_with_their_keys(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("b").put({"v": 0}))
    frame = pl.DataFrame({"id": ["a", "b", "c"], "v": [1, 2, 3]})
    result = await fl.run(s.put_arrow(frame, key="id", mode="insert"))
    assert result.written == 2 and len(result.failed) == 1
    key, error = result.failed[0]
    assert key[2] == "b" and isinstance(error, errors.RecordExistsError)
    assert (await fl.run(s.key("b").get())).bins == {"v": 0}
    updated = await fl.run(
        s.put_arrow(frame.with_columns(pl.lit(9).alias("v")), key="id", mode="update")
    )
    assert updated.written == 3 and (await fl.run(s.key("b").get())).bins == {"v": 9}
    missing = pl.DataFrame({"id": ["x", "y"], "v": [1, 2]})
    with pytest.raises(errors.RecordNotFoundError) as raised:
        await fl.run(s.put_arrow(missing, key="id", mode="update", raise_on_error=True))
    assert "2 of 2 rows failed" in "".join(getattr(raised.value, "__notes__", []))


async def test_progress_is_reported_per_round_and_at_the_end(fl: Flavor, set_name: str) -> None:
    seen: list[WriteProgress] = []
    frame = pl.DataFrame({"id": list(range(95)), "v": list(range(95))})
    s = fl.db.namespace("test").set(set_name)
    result = await fl.run(
        s.put_arrow(frame, key="id", batch_size=10, concurrency=2, progress=seen.append)
    )
    assert result.written == 95
    assert [p.rows for p in seen] == [20, 40, 60, 80, 95, 95]
    assert seen[-1].done and not any(p.done for p in seen[:-1])
    assert {p.rows_total for p in seen} == {95}
    count = await fl.run(s.query().count())
    assert count == 95


async def test_ttl_and_send_key_reach_the_records(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    frame = pl.DataFrame({"id": [7], "v": [1]})
    await fl.run(s.put_arrow(frame, key="id", ttl=500, send_key=True))
    rec = await fl.run(s.key(7).get())
    assert rec is not None and 490 <= (rec.ttl or 0) <= 500
    rows = await fl.run(s.query().collect())
    assert rows[0].key[2] == 7


async def test_a_row_without_a_key_is_refused_naming_its_row(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    cases = [
        (pa.table({"id": ["a", "b", ""], "v": [1, 2, 3]}), "an empty str at row 2"),
        (pa.table({"id": pa.array([b"a", b""], pa.binary()), "v": [1, 2]}), "empty bytes at row 1"),
        (pd.DataFrame({"id": ["a", None], "v": [1, 2]}), "null at row 1"),
    ]
    for data, what in cases:
        with pytest.raises(errors.InvalidArgumentError, match=f"key column 'id' is {what}"):
            await fl.run(s.put_arrow(data, key="id"))
    assert await fl.run(s.query().count()) == 0
    six = pa.table({"id": ["a", "b", "c", "d", "e", ""], "v": list(range(6))})
    with pytest.raises(errors.InvalidArgumentError, match="an empty str at row 5"):
        await fl.run(s.put_arrow(six, key="id", batch_size=2, concurrency=1))
    assert await fl.run(s.query().count()) == 4  # the batches before it were written


def test_bad_input_is_refused_before_anything_is_sent(seeds: str, set_name: str) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        frame = pa.table({"id": [1], "v": [1]})
        cases: list[tuple[Any, dict[str, Any], type[Exception], str]] = [
            (frame, {"key": "nope"}, errors.InvalidArgumentError, "no key column 'nope'"),
            (
                pa.table({"id": [1.5], "v": [1]}),
                {"key": "id"},
                errors.InvalidArgumentError,
                "user keys are int, str or bytes",
            ),
            (
                pa.table({"id": [1], "when": pa.array([1], pa.timestamp("s"))}),
                {"key": "id"},
                errors.InvalidArgumentError,
                "column 'when' is a timestamp without a time zone",
            ),
            (
                pa.table({"id": [1], "when": pa.array([2**62], pa.timestamp("s", tz="UTC"))}),
                {"key": "id"},
                errors.InvalidArgumentError,
                r"column 'when' at row 0 \(counting from 0\): the instant is beyond the years",
            ),
            (
                pa.table({"id": [1], "when": pa.array([1], pa.time32("s"))}),
                {"key": "id"},
                errors.InvalidArgumentError,
                "column 'when' is Time32",
            ),
            (
                pa.table({"id": [1], "a_very_long_bin_name": [1]}),
                {"key": "id"},
                errors.InvalidArgumentError,
                "bin names are 1 to 15 bytes",
            ),
            ([{"id": 1}], {"key": "id"}, errors.InvalidTypeError, "exports an Arrow stream"),
            (frame, {"key": "id", "mode": "merge"}, errors.InvalidArgumentError, "mode"),
            (frame, {"key": "id", "batch_size": 0}, errors.InvalidArgumentError, "batch_size"),
            (frame, {"key": "id", "progres": print}, errors.InvalidArgumentError, "progres"),
        ]
        for data, options, error, text in cases:
            with pytest.raises(error, match=text):
                s.put_arrow(data, **options)
        with pytest.raises(errors.InvalidArgumentError, match=r"key column 'id' is null at row 1"):
            s.put_arrow(pa.table({"id": [1, None], "v": [1, 2]}), key="id")
        assert s.query().count() == 0


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="fault injection")
def test_a_timeout_fails_the_rows_it_cut_short() -> None:
    with EmbeddedServer() as server, af_sync.connect(server.seeds, max_retries=0) as db:
        server.fault_delay(300)
        try:
            result = (
                db.namespace("test")
                .set("slow")
                .put_arrow(pa.table({"id": [1, 2], "v": [1, 2]}), key="id", timeout=0.05)
            )
        finally:
            server.clear_faults()
        assert result.written == 0 and len(result.failed) == 2
        assert all(isinstance(e, errors.TimeoutError) and e.in_doubt for _, e in result.failed)
        _ = af


async def test_put_many_in_requests_with_progress_and_a_timeout(fl: Flavor, set_name: str) -> None:
    seen: list[WriteProgress] = []
    s = fl.db.namespace("test").set(set_name)
    rows = {i: {"v": i} for i in range(25)}
    result = await fl.run(s.put_many(rows, batch_size=10, progress=seen.append, timeout=5, ttl=300))
    assert len(result) == 25 and not result.errors
    assert [(p.rows, p.done) for p in seen] == [(10, False), (20, False), (25, False), (25, True)]
    rec = await fl.run(s.key(24).get())
    assert rec is not None and rec.bins == {"v": 24} and 290 <= (rec.ttl or 0) <= 300
    with pytest.raises(errors.InvalidArgumentError):
        _ = s.put_many(rows, batch_size=0)
