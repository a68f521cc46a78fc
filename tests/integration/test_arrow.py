"""Arrow output on every client flavor: query and batch reads as Arrow tables and batches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.progress import Progress

from ._flavor import Flavor


async def _put(fl: Flavor, s: af.RecordSet[Any], records: Mapping[Any, Mapping[str, Any]]) -> None:
    (await fl.run(s.put_many(records))).raise_on_error()


async def _batches(fl: Flavor, q: af.Query[Any], **options: Any) -> list[af.ArrowTable]:
    if fl.is_async:
        return [b async for b in q.arrow_batches(**options)]
    return list(q.arrow_batches(**options))


def _rows(t: af.ArrowTable, by: str = "id") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pa.table(t).to_pylist()
    return sorted(rows, key=lambda r: r[by])


async def test_bins_of_every_type_become_typed_columns(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(
        fl,
        s,
        {
            i: {
                "id": i,
                "name": f"n{i}",
                "score": i / 2,
                "raw": bytes([i]),
                "ok": i % 2 == 0,
                "tags": ["a", str(i)],
                "counts": {"x": i, "y": 2 * i},
                "addr": {"city": f"c{i}", "zip": 1000 + i},
            }
            for i in range(40)
        },
    )
    t = await fl.run(s.query().to_arrow())
    assert isinstance(t, af.ArrowTable) and t.num_rows == len(t) == 40
    schema = pa.table(t).schema
    assert schema.field("id").type == pa.int64()
    assert schema.field("name").type == pa.string()
    assert schema.field("score").type == pa.float64()
    assert schema.field("raw").type == pa.binary()
    assert schema.field("ok").type == pa.bool_()
    assert schema.field("tags").type == pa.list_(pa.string())
    assert schema.field("counts").type == pa.map_(pa.string(), pa.int64())
    assert schema.field("addr").type == pa.struct([("city", pa.string()), ("zip", pa.int64())])
    row = _rows(t)[7]
    assert row["name"] == "n7" and row["score"] == 3.5 and row["raw"] == b"\x07"
    assert row["ok"] is False and row["tags"] == ["a", "7"]
    assert dict(row["counts"]) == {"x": 7, "y": 14}
    assert row["addr"] == {"city": "c7", "zip": 1007}


async def test_missing_bins_are_nulls_and_ints_among_floats_are_floats(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i, "v": i if i % 2 else i + 0.5} for i in range(10)})
    await _put(fl, s, {100: {"id": 100, "extra": "only here"}})
    t = await fl.run(s.query().to_arrow())
    table = pa.table(t)
    assert table.schema.field("v").type == pa.float64()
    rows = _rows(t)
    assert rows[-1]["v"] is None and rows[0]["extra"] is None
    assert rows[-1]["extra"] == "only here"
    assert [r["v"] for r in rows[:3]] == [0.5, 1.0, 2.5]


async def test_a_bin_whose_type_changes_is_an_error_naming_it(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i, "v": i} for i in range(30)})
    await _put(fl, s, {99: {"id": 99, "v": "text"}})
    for rows in (1, 1000):  # the str in a later batch, or in the first one
        with pytest.raises(errors.ArrowSchemaError, match="bin 'v'"):
            await fl.run(s.query().to_arrow(rows=rows))


async def test_batches_keep_the_columns_of_the_first_batch(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"a" if i % 2 else "b": i} for i in range(20)})
    # one record per batch: the first has one of the bins, a later one the other
    with pytest.raises(errors.ArrowSchemaError, match=r"bin '[ab]' is in no column"):
        await _batches(fl, s.query(), rows=1)
    # a selected bin with no value in the first batch has a null column
    with pytest.raises(errors.ArrowSchemaError, match="had no value in the first 1 records"):
        await _batches(fl, s.query().select("a", "b"), rows=1)
    # a schema fixes the columns whatever the first batch holds
    schema = pa.schema([("a", pa.int64()), ("b", pa.int64())])
    batches = await _batches(fl, s.query(), rows=1, schema=schema)
    assert all(b.column_names == ["a", "b"] for b in batches) and len(batches) == 20


async def test_a_whole_table_widens_to_what_later_batches_hold(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"i": i, "a" if i % 2 else "b": i} for i in range(20)})
    # one record per batch, so each batch after the first brings what the first lacked
    for q in (s.query(), s.query().select("i", "a", "b")):
        t = await fl.run(q.to_arrow(rows=1))
        table = pa.table(t)
        assert sorted(table.column_names) == ["a", "b", "i"] and t.num_rows == 20
        assert table.schema.field("a").type == table.schema.field("b").type == pa.int64()
        rows = _rows(t, "i")
        assert [r["a"] for r in rows[:4]] == [None, 1, None, 3]
        assert [r["b"] for r in rows[:4]] == [0, None, 2, None]


async def test_a_whole_table_widens_types_and_nested_columns(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    records: dict[int, dict[str, Any]] = {
        i: {"i": i, "n": i, "tags": [], "addr": {"city": f"c{i}", "zip": i}, "m": {}}
        for i in range(12)
    }
    records[5] = {
        "i": 5,
        "n": 5.5,
        "tags": ["x"],
        "addr": {"city": "c5", "zip": 5, "country": "fr"},
        "m": {"k": 1, "s": "x"},
    }
    await _put(fl, s, records)
    t = await fl.run(s.query().to_arrow(rows=1))
    table = pa.table(t)
    assert table.schema.field("n").type == pa.float64()
    assert table.schema.field("tags").type == pa.list_(pa.string())
    addr = pa.struct([("city", pa.string()), ("country", pa.string()), ("zip", pa.int64())])
    assert table.schema.field("addr").type == addr
    assert table.schema.field("m").type == pa.struct([("k", pa.int64()), ("s", pa.string())])
    rows = _rows(t, "i")
    assert [r["n"] for r in rows[4:7]] == [4.0, 5.5, 6.0]
    assert rows[5]["tags"] == ["x"] and rows[4]["tags"] == []
    assert rows[5]["addr"] == {"city": "c5", "country": "fr", "zip": 5}
    assert rows[4]["addr"] == {"city": "c4", "country": None, "zip": 4}
    assert rows[5]["m"] == {"k": 1, "s": "x"}


async def test_a_given_schema_types_and_selects_the_columns(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i, "name": f"n{i}", "big": 10**12, "skip": 1} for i in range(5)})
    schema = pa.schema(
        [
            ("id", pa.int32()),
            ("name", pa.large_string()),
            ("absent", pa.float32()),
            ("tags", pa.list_(pa.int16())),
        ]
    )
    t = await fl.run(s.query().to_arrow(schema=schema))
    table = pa.table(t)
    assert table.schema == schema
    assert sorted(table.column("id").to_pylist()) == [0, 1, 2, 3, 4]
    assert table.column("absent").null_count == 5
    # a value that does not fit the given type
    narrow = pa.schema([("big", pa.int32())])
    with pytest.raises(errors.ArrowSchemaError, match="big"):
        await fl.run(s.query().to_arrow(schema=narrow))
    with pytest.raises(errors.ArrowSchemaError, match="bin 'name'"):
        await fl.run(s.query().to_arrow(schema=pa.schema([("name", pa.int64())])))


async def test_metadata_columns(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(3):
        await fl.run(s.key(i).put({"id": i}, ttl=1000, send_key=True))
    await fl.run(s.key(0).put({"id": 0}, send_key=True))
    t = await fl.run(s.query().to_arrow(key=True, digest="d", generation=True, ttl="expires"))
    assert t.column_names == ["key", "d", "generation", "expires", "id"]
    rows = _rows(t)
    assert [r["key"] for r in rows] == [0, 1, 2]
    assert [r["generation"] for r in rows] == [2, 1, 1]
    assert all(len(r["d"]) == 20 for r in rows)
    assert all(r["expires"] is None or 0 < r["expires"] <= 1000 for r in rows)
    with pytest.raises(errors.ArrowSchemaError, match="metadata column"):
        await fl.run(s.query().to_arrow(key="id"))


async def test_batches_are_bounded_and_add_up(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i, "name": f"n{i}"} for i in range(250)})
    batches = await _batches(fl, s.query(), rows=64)
    assert all(0 < b.num_rows <= 64 for b in batches) and len(batches) >= 4
    assert sum(b.num_rows for b in batches) == 250
    whole = af.ArrowTable.concat(batches)
    assert sorted(pa.table(whole).column("id").to_pylist()) == list(range(250))
    assert len(await fl.run(s.query().limit(25).to_arrow(rows=10))) == 25
    limited = await _batches(fl, s.query().limit(30), rows=64)
    assert sum(b.num_rows for b in limited) == 30


async def test_an_empty_set_gives_an_empty_table(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    t = await fl.run(s.query().select("a", "b").to_arrow(digest=True))
    assert t.num_rows == 0 and t.column_names == ["digest", "a", "b"]
    assert pa.table(t).num_rows == 0
    assert await _batches(fl, s.query()) == []


async def test_dataframes(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i, "country": "US" if i % 2 else "FR"} for i in range(20)})
    df = await fl.run(s.query().to_pandas())
    assert sorted(df["id"]) == list(range(20))
    assert df.groupby("country").size().to_dict() == {"FR": 10, "US": 10}
    pl = pytest.importorskip("polars")
    pdf = await fl.run(s.query().where("$.id < 5").to_polars())
    assert isinstance(pdf, pl.DataFrame) and sorted(pdf["id"].to_list()) == [0, 1, 2, 3, 4]


async def test_batch_reads_to_arrow(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i, "name": f"n{i}", "x": 1.5} for i in range(10)})
    t = await fl.run(s.keys([3, 1, 404, 2]).to_arrow("id", "name", key=True, found=True))
    assert t.column_names == ["key", "found", "id", "name"]
    assert pa.table(t).to_pylist() == [
        {"key": 3, "found": True, "id": 3, "name": "n3"},
        {"key": 1, "found": True, "id": 1, "name": "n1"},
        {"key": 404, "found": False, "id": None, "name": None},
        {"key": 2, "found": True, "id": 2, "name": "n2"},
    ]
    meta = await fl.run(s.keys([404, 4]).to_arrow("id", generation="gen", ttl=True, digest=True))
    assert meta.column_names == ["digest", "gen", "ttl", "id"]
    rows = pa.table(meta).to_pylist()
    assert [r["gen"] for r in rows] == [None, 1] and rows[0]["ttl"] is None
    digests = [r["digest"] for r in rows]
    assert [len(d) for d in digests] == [20, 20] and digests[0] != digests[1]
    df = await fl.run(s.keys([5, 404, 6]).to_pandas(schema=pa.schema([("x", pa.float32())])))
    assert list(df.columns) == ["x"] and df["x"].isna().tolist() == [False, True, False]
    none = await fl.run(s.keys([404, 405]).to_arrow())
    assert none.num_rows == 2 and none.column_names == []
    with pytest.raises(errors.InvalidArgumentError, match="execute"):
        await fl.run(s.keys([1]).add("id", 1).to_arrow())
    with pytest.raises(errors.InvalidArgumentError, match="rows"):
        await fl.run(s.keys([1]).to_arrow(rows=5))  # type: ignore[call-overload]


async def test_progress_reports_records_and_partitions(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i} for i in range(120)})
    for run in ("collect", "to_arrow", "stream", "batches"):
        seen: list[Progress] = []
        q = s.query().chunk_size(32).on_progress(seen.append)
        if run == "collect":
            assert len(await fl.run(q.collect())) == 120
        elif run == "to_arrow":
            assert (await fl.run(q.to_arrow(rows=32))).num_rows == 120
        elif run == "stream":
            assert len([r async for r in fl.iterate(q)]) == 120
        else:
            assert sum(b.num_rows for b in await _batches(fl, q, rows=32)) == 120
        assert seen[-1] == Progress(120, 4096, 4096, True), run
        assert [p.done for p in seen].count(True) == 1, run
        records = [p.records for p in seen]
        assert records == sorted(records) and len(seen) >= 4, run
        assert 0 < seen[0].partitions <= 120 and seen[0].partitions_total == 4096, run


async def test_progress_of_a_read_stopped_early(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i} for i in range(50)})
    seen: list[Progress] = []
    await fl.run(s.query().limit(10).chunk_size(5).on_progress(seen.append).collect())
    assert seen[-1].done and seen[-1].records == 10 and seen[-1].partitions < 4096


async def test_tqdm_progress_bar(fl: Flavor, set_name: str) -> None:
    import io

    from aerospike_fluent.progress import ProgressBar

    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, {i: {"id": i} for i in range(30)})
    out = io.StringIO()
    await fl.run(s.query().chunk_size(8).on_progress(ProgressBar(file=out)).to_arrow(rows=8))
    text = out.getvalue()
    assert "4096/4096" in text and "records=30" in text
    assert (await fl.run(s.query().on_progress("tqdm").to_arrow())).num_rows == 30


async def test_mixed_types_str_makes_a_string_column_of_their_text(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    values: dict[int, Any] = {0: 1, 1: "two", 2: 3.5, 3: [1, "a"], 4: {"k": b"\x01"}, 5: True}
    for n, v in values.items():
        await fl.run(s.key(n).put({"n": n, "v": v}))
    with pytest.raises(errors.ArrowSchemaError, match=r"bin 'v' holds both .* mixed_types='str'"):
        await fl.run(s.query().to_arrow())
    table = pa.table(await fl.run(s.query().to_arrow(mixed_types="str")))
    assert table.schema.field("v").type == pa.string()
    got = {r["n"]: r["v"] for r in table.to_pylist()}
    assert got == {0: "1", 1: "two", 2: "3.5", 3: "[1, a]", 4: "{k: 01}", 5: "true"}
    # a later chunk widens an int column to strings, earlier values as their text
    widened = pa.table(await fl.run(s.query().to_arrow(rows=1, mixed_types="str")))
    assert sorted(widened.column("v").to_pylist()) == sorted(got.values())
    with pytest.raises(errors.InvalidArgumentError, match="mixed_types"):
        await fl.run(s.query().to_arrow(mixed_types="union"))  # type: ignore[call-overload]
