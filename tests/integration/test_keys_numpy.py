"""``keys(...).to_numpy()``: a structured array with a row per key asked for, in order."""

from __future__ import annotations

from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors

from ._flavor import Flavor

np = pytest.importorskip("numpy")


async def _put(fl: Flavor, s: af.RecordSet[Any], n: int) -> None:
    rows = {i: {"n": i, "x": i / 2, "name": f"r{i}", "ok": i % 2 == 0} for i in range(n)}
    (await fl.run(s.put_many(rows))).raise_on_error()


async def test_a_row_per_key_in_order_missing_ones_not_found(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, 5)
    a = await fl.run(s.keys([3, 404, 0, 1]).to_numpy("n", "x", "name", "ok"))
    assert a.dtype.names == ("found", "n", "x", "name", "ok")
    assert a.dtype["n"] == np.int64 and a.dtype["x"] == np.float64
    assert a.dtype["ok"] == np.bool_ and a.dtype["name"] == np.dtype(object)
    assert a["found"].tolist() == [True, False, True, True]
    assert a["n"].tolist() == [3, 0, 0, 1]
    assert a["x"].tolist() == [1.5, 0.0, 0.0, 0.5]
    assert a["name"].tolist() == ["r3", None, "r0", "r1"]
    assert a["ok"].tolist() == [False, False, True, False]


async def test_a_dtype_chooses_the_bins_and_their_types(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await _put(fl, s, 4)
    dt = np.dtype([("n", "i4"), ("x", "f4"), ("name", "U8")])
    a = await fl.run(s.keys([2, 9, 3]).to_numpy(dtype=dt))
    assert a.dtype.names == ("found", "n", "x", "name")
    assert a.dtype["n"] == np.int32 and a.dtype["name"] == np.dtype("U8")
    assert a["found"].tolist() == [True, False, True]
    assert a["n"].tolist() == [2, 0, 3] and a["name"].tolist() == ["r2", "", "r3"]
    own = await fl.run(s.keys([1, 7]).to_numpy(dtype=[("found", "?"), ("n", "u2")]))
    assert own.dtype.names == ("found", "n") and own.tolist() == [(True, 1), (False, 0)]
    empty = await fl.run(s.keys([]).to_numpy("n"))
    assert len(empty) == 0


async def test_values_that_do_not_fit_the_dtype_raise(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("big").put({"n": 1 << 40}))
    with pytest.raises(errors.ArrowSchemaError, match="n"):
        await fl.run(s.keys(["big"]).to_numpy(dtype=[("n", "i2")]))


async def test_bad_arguments_are_refused_before_the_wire(fl: Flavor, set_name: str) -> None:
    keys = fl.db.namespace("test").set(set_name).keys([1])
    with pytest.raises(errors.InvalidArgumentError, match="found"):
        await fl.run(keys.to_numpy("found"))
    with pytest.raises(errors.InvalidArgumentError, match="structured"):
        await fl.run(keys.to_numpy(dtype="i8"))
    with pytest.raises(errors.InvalidTypeError, match="dtype"):
        await fl.run(keys.to_numpy(dtype=42))
    with pytest.raises(errors.InvalidArgumentError, match="differ"):
        await fl.run(keys.to_numpy("a", dtype=[("b", "i8")]))
    with pytest.raises(errors.InvalidArgumentError, match="bool"):
        await fl.run(keys.to_numpy(dtype=[("found", "i8"), ("n", "i8")]))


async def test_a_reply_of_many_frames_is_read_whole(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    rows = {i: {"n": i, "text": f"{i:06d}" * 50} for i in range(4000)}
    (await fl.run(s.put_many(rows))).raise_on_error()
    asked = [*range(3999, -1, -2), 10**6]
    a = await fl.run(s.keys(asked).to_numpy("n", "text"))
    assert a["found"].tolist() == [True] * 2000 + [False]
    assert a["n"].tolist() == [*range(3999, -1, -2), 0]
    assert a["text"][:2].tolist() == ["003999" * 50, "003997" * 50]
