"""Scans and index queries read from the wire (the default) give exactly what the crate's query
path gives: the same records, keys, metadata and values of every type, as records and as Arrow;
index-query tokens on the crate's path."""

from __future__ import annotations

from typing import Any

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest

import aerospike_fluent as af
from aerospike_fluent import GeoJSON, errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.cdt import MapOrder

from ._flavor import Flavor

CRATE_SCANS = "AEROSPIKE_FLUENT_CRATE_SCANS"
POINT = '{"type": "Point", "coordinates": [1.5, 2.5]}'


async def _load(fl: Flavor, s: af.RecordSet[Any]) -> None:
    rows: dict[Any, dict[str, Any]] = {
        i: {
            "i": i,
            "neg": -(i**5),
            "s": f"é{i}" * (i % 3),
            "f": i / 7,
            "b": bytes([i % 256]) * i,
            "t": i % 2 == 0,
            "l": [i, "x", [1.5, None], {"k": b"v"}],
            "m": {"a": i, 7: "seven", b"raw": [True]},
        }
        for i in range(60)
    }
    (await fl.run(s.put_many(rows))).raise_on_error()
    await fl.run(s.key(100).put({"i": 100, "geo": GeoJSON(POINT)}, ttl=5000, send_key=True))
    await fl.run(s.key("str-key").put({"i": 101, "only": 1}, send_key=True))
    k = s.key(102)
    await fl.run(k.put({"i": 102}))
    await fl.run(k.bin("om").map.create(MapOrder.KEY_ORDERED).execute())
    await fl.run(k.bin("om").map.put("z", 1).bin("om").map.put("a", 2).execute())


async def _records(fl: Flavor, q: af.Query[Any]) -> list[tuple[Any, ...]]:
    records = await fl.run(q.collect())
    out = [(r.key, r.generation, r.ttl, sorted(r.bins.items(), key=repr)) for r in records]
    return sorted(out, key=lambda t: t[0][3])


async def test_wire_scans_match_the_crate_path(
    fl: Flavor, set_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _load(fl, s)
    wire = await _records(fl, s.query())
    monkeypatch.setenv(CRATE_SCANS, "1")
    crate = await _records(fl, s.query())
    assert len(wire) == 63
    # TTLs are counted from each read's own clock: a second may tick between the two scans
    assert [(k, g, b) for k, g, _, b in wire] == [(k, g, b) for k, g, _, b in crate]
    for (_, _, ttl_w, _), (_, _, ttl_c, _) in zip(wire, crate, strict=True):
        assert (ttl_w is None) == (ttl_c is None)
        assert ttl_w is None or ttl_c is None or abs(ttl_w - ttl_c) <= 1
    by_i = {dict(bins)["i"]: (key, ttl, dict(bins)) for key, _, ttl, bins in wire}
    key, ttl, bins = by_i[100]
    assert key[2] == 100 and ttl is not None and 4000 < ttl <= 5000
    assert isinstance(bins["geo"], GeoJSON)
    assert by_i[101][0][2] == "str-key"
    assert list(by_i[102][2]["om"]) == ["a", "z"]
    assert by_i[7][2]["m"] == {"a": 7, 7: "seven", b"raw": [True]}


async def test_wire_arrow_matches_the_crate_path(
    fl: Flavor, set_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = fl.db.namespace("test").set(set_name)
    rows: dict[Any, dict[str, Any]] = {
        i: {"i": i, "s": f"v{i}", "f": i / 3, "l": [i, i + 1], "m": {"x": i}} for i in range(50)
    }
    rows[50] = {"i": 50}  # nulls in the other columns
    (await fl.run(s.put_many(rows))).raise_on_error()
    options: dict[str, Any] = {"digest": "digest", "generation": "gen", "ttl": "ttl", "rows": 16}

    async def table() -> pa.Table:
        t = pa.table(await fl.run(s.query().to_arrow(**options)))
        return t.sort_by("i")

    wire = await table()
    monkeypatch.setenv(CRATE_SCANS, "1")
    crate = await table()
    assert wire.num_rows == 51
    assert wire.schema == crate.schema
    assert wire.to_pylist() == crate.to_pylist()


def test_index_query_tokens_on_the_crate_path(
    seeds: str, set_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Clients with login, TLS or compression query through the crate: its records carry no
    # bval, so it resumes from a token but cannot give one for an unfinished index query.
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        s.put_many({i: {"i": i, "v": (i * 7) % 50} for i in range(300)}).raise_on_error()
        index = s.create_index("v", "numeric", name=f"{set_name}_v")
        q = s.query().where_index("v").between(10, 39)
        try:
            first = q.page(50)
            assert first.token is not None
            monkeypatch.setenv(CRATE_SCANS, "1")
            rest = [r["i"] for r in q.resume(first.token).collect()]
            with pytest.raises(errors.ResumeTokenError, match="login, TLS or compression"):
                q.page(50)
            assert len(q.page(1000).records) == 180
        finally:
            s.drop_index(index)
    assert sorted([r["i"] for r in first] + rest) == [
        i for i in range(300) if 10 <= i * 7 % 50 < 40
    ]
