"""Bit and HLL modify expressions: each gives the blob (or HLL) its operation would leave."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from aerospike_fluent import BitOverflow, BitResize, BitWrite, F
from aerospike_fluent.errors import OpNotApplicableError
from aerospike_fluent.exp import Exp

from ._flavor import Flavor

START = b"\x0f\xf0\x81\x7e"

# (expression on the bin, the same change as an operation on the chain)
BIT_CASES: list[tuple[str, Callable[[Any], Exp], Callable[[Any], Any]]] = [
    ("resize", lambda b: b.resize(6), lambda r: r.resize(6)),
    ("resize_front", lambda b: b.resize(2, BitResize.FROM_FRONT), lambda r: r.resize(2, 1)),
    ("insert", lambda b: b.insert(1, b"\xaa\xbb"), lambda r: r.insert(1, b"\xaa\xbb")),
    ("remove", lambda b: b.remove(1, 2), lambda r: r.remove(1, 2)),
    ("set", lambda b: b.set(4, 8, b"\xa5"), lambda r: r.set(4, 8, b"\xa5")),
    ("or", lambda b: b.or_(0, 16, b"\x11\x11"), lambda r: r.or_(0, 16, b"\x11\x11")),
    ("xor", lambda b: b.xor(8, 8, b"\xff"), lambda r: r.xor(8, 8, b"\xff")),
    ("and", lambda b: b.and_(0, 32, b"\x33\x33\x33\x33"), lambda r: r.and_(0, 32, b"3333")),
    ("not", lambda b: b.not_(3, 10), lambda r: r.not_(3, 10)),
    ("lshift", lambda b: b.lshift(0, 16, 3), lambda r: r.lshift(0, 16, 3)),
    ("rshift", lambda b: b.rshift(8, 16, 5), lambda r: r.rshift(8, 16, 5)),
    ("set_int", lambda b: b.set_int(4, 12, 1000), lambda r: r.set_int(4, 12, 1000)),
    (
        "add",
        lambda b: b.add(0, 8, 250, overflow=BitOverflow.WRAP),
        lambda r: r.add(0, 8, 250, overflow=BitOverflow.WRAP),
    ),
    ("add_signed", lambda b: b.add(16, 8, 5, signed=True), lambda r: r.add(16, 8, 5, signed=True)),
    (
        "subtract",
        lambda b: b.subtract(8, 16, 61441, overflow=BitOverflow.SATURATE),
        lambda r: r.subtract(8, 16, 61441, overflow=BitOverflow.SATURATE),
    ),
]


@pytest.mark.parametrize("case", BIT_CASES, ids=[c[0] for c in BIT_CASES])
async def test_bit_modify_matches_the_operation(
    fl: Flavor, set_name: str, case: tuple[str, Callable[[Any], Exp], Callable[[Any], Any]]
) -> None:
    _, exp_of, op_of = case
    s = fl.db.namespace("test").set(set_name)
    k, other = s.key("e"), s.key("o")
    await fl.run(k.put({"b": START}))
    await fl.run(other.put({"b": START}))
    rec = await fl.run(k.bin("r").read_exp(exp_of(F.blob_bin("b").bits)).execute())
    await fl.run(op_of(other.bin("b").bits).execute())
    by_op = await fl.run(other.get())
    assert rec is not None and by_op is not None
    assert rec["r"] == by_op["b"] != START
    unchanged = await fl.run(k.get())
    assert unchanged is not None and unchanged["b"] == START


async def test_bit_modify_written_and_filtered(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    k = s.key("w")
    await fl.run(k.put({"b": b"\x00\x00"}))
    flags = F.blob_bin("b").bits
    await fl.run(k.bin("b").write_exp(flags.set_int(0, 8, 7).bits.not_(8, 8)).execute())
    got = await fl.run(k.get())
    assert got is not None and got["b"] == b"\x07\xff"
    assert await fl.run(s.query().where(flags.not_(0, 16) == b"\xf8\x00").count()) == 1
    rec = await fl.run(k.bin("n").read_exp(flags.lshift(0, 16, 4).bits.get_int(0, 16)).execute())
    assert rec is not None and rec["n"] == 0x7FF0
    with pytest.raises(OpNotApplicableError):
        await fl.run(k.bin("r").read_exp(flags.not_(20, 8)).execute())
    rec = await fl.run(k.bin("r").read_exp(flags.not_(12, 8, flags=BitWrite.PARTIAL)).execute())
    assert rec is not None and rec["r"] == b"\x07\xf0"


async def test_hll_modify_expressions(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    k, other = s.key("h"), s.key("o")
    words = [f"w{i}" for i in range(40)]
    await fl.run(k.bin("h").hll.add(words[:20], index_bits=10).execute())
    await fl.run(other.bin("h").hll.add(words[:20], index_bits=10).execute())
    h = F.hll_bin("h").hll
    rec = await fl.run(k.bin("r").read_exp(h.add(words[20:])).execute())
    await fl.run(other.bin("h").hll.add(words[20:]).execute())
    by_op = await fl.run(other.get())
    assert rec is not None and by_op is not None and rec["r"] == by_op["h"]
    rec = await fl.run(k.bin("c").read_exp(h.add(words).hll.get_count()).execute())
    assert rec is not None and abs(rec["c"] - 40) <= 3
    rec = await fl.run(k.bin("d").read_exp(h.init(12, 4).hll.describe()).execute())
    assert rec is not None and rec["d"] == [12, 4]
    rec = await fl.run(k.bin("z").read_exp(h.init(-1).hll.get_count()).execute())
    assert rec is not None and rec["z"] == 0
    await fl.run(k.bin("h").write_exp(h.add(words[20:])).execute())
    got = await fl.run(k.get())
    assert got is not None and got["h"] == by_op["h"]


async def test_bit_and_hll_ael_text_on_the_server(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("a").put({"b": b"\xf0\x01"}))
    await fl.run(s.key("z").put({"b": b"\x01\x01"}))
    await fl.run(s.key("a").bin("h").hll.add(["x", "y"], index_bits=8).execute())
    assert await fl.run(s.query().where("bits.count($.b, 0, 8) == 4").count()) == 1
    text = "bits.getInt(bits.lshift($.b, 0, 16, 4), 0, 16) == 0x0010"
    assert await fl.run(s.query().where(text).count()) == 1
    text = "bits.not($.b, 0, 8) == x'0f01'"
    assert await fl.run(s.query().where(text).count()) == 1
    text = "hll.getCount(hll.add($.h, ['z'], -1, -1)) == 3"
    assert await fl.run(s.query().where(text).count()) == 1
