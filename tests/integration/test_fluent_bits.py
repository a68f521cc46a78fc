"""Bit operations on blob bins and bit read expressions, on every client flavor."""

from __future__ import annotations

import pytest

from aerospike_fluent import BitOverflow, BitResize, BitWrite, F
from aerospike_fluent.errors import (
    BinNotFoundError,
    OpNotApplicableError,
    ParameterError,
    ServerError,
)

from ._flavor import Flavor

START = bytes([0x01, 0x42, 0x03, 0x04, 0x05])


async def test_writes_then_reads_in_one_chain(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("b")
    await fl.run(k.put({"b": START}))
    rec = await fl.run(
        k.bin("b")
        .bits.set(13, 3, b"\xe0")
        .bin("b")
        .bits.or_(17, 6, b"\xa8")
        .bin("b")
        .bits.add(24, 16, 128)
        .bin("b")
        .bits.get(8, 16)
        .execute()
    )
    assert rec is not None and rec["b"] == bytes([0x47, 0x57])
    got = await fl.run(k.get())
    assert got is not None and got["b"] == bytes([0x01, 0x47, 0x57, 0x04, 0x85])


async def test_reads(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("r")
    await fl.run(k.put({"c": bytes([1, 86, 86, 255, 3])}))
    rec = await fl.run(k.bin("c").bits.count(20, 9).execute())
    assert rec is not None and rec["c"] == 7
    rec = await fl.run(k.bin("c").bits.lscan(32, 8, True).execute())
    assert rec is not None and rec["c"] == 6
    rec = await fl.run(k.bin("c").bits.rscan(4, 8, False).execute())
    assert rec is not None and rec["c"] == 6
    rec = await fl.run(k.bin("c").bits.get_int(24, 8, signed=True).execute())
    assert rec is not None and rec["c"] == -1
    rec = await fl.run(k.bin("c").bits.get(-2, 2).execute())
    assert rec is not None and rec["c"] == b"\xc0"


async def test_resize_insert_remove_and_create(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("r")
    await fl.run(k.bin("n").bits.insert(2, b"\x03").execute())
    got = await fl.run(k.get())
    assert got is not None and got["n"] == b"\x00\x00\x03"
    await fl.run(k.bin("n").bits.resize(5, resize=BitResize.FROM_FRONT).execute())
    await fl.run(k.bin("n").bits.remove(0, 1).execute())
    got = await fl.run(k.get())
    assert got is not None and got["n"] == b"\x00\x00\x00\x03"
    with pytest.raises(ParameterError):
        await fl.run(k.bin("n").bits.resize(1, resize=BitResize.GROW_ONLY).execute())
    with pytest.raises(ServerError) as exc:
        await fl.run(k.bin("n").bits.resize(9, flags=BitWrite.CREATE_ONLY).execute())
    assert exc.value.result_code == 6


async def test_errors_and_policies(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("e")
    await fl.run(k.put({"f": b"\xff" * 5}))
    with pytest.raises(OpNotApplicableError):
        await fl.run(k.bin("f").bits.not_(41, 8).execute())
    with pytest.raises(OpNotApplicableError):
        await fl.run(k.bin("f").bits.add(0, 8, 1).execute())
    with pytest.raises(BinNotFoundError):
        await fl.run(k.bin("missing").bits.not_(0, 8).execute())
    with pytest.raises(ParameterError):
        await fl.run(k.bin("f").bits.set(0, 16, b"\x00").execute())
    await fl.run(k.bin("f").bits.not_(36, 8, flags=BitWrite.PARTIAL).execute())
    await fl.run(k.bin("missing").bits.not_(0, 8, flags=BitWrite.NO_FAIL).execute())
    await fl.run(k.bin("f").bits.add(8, 8, 1, overflow=BitOverflow.WRAP).execute())
    got = await fl.run(k.get())
    assert got is not None and got["f"] == b"\xff\x00\xff\xff\xf0" and "missing" not in got


async def test_bit_expressions_filter_records(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("a").put({"b": b"\xf0"}))
    await fl.run(s.key("z").put({"b": b"\x01"}))
    n = await fl.run(s.query().where(F.blob_bin("b").bits.count(0, 8) == 4).count())
    assert n == 1
    n = await fl.run(s.query().where(F.bin("b").bits.lscan(0, 8, True) == 7).count())
    assert n == 1
    rec = await fl.run(s.key("a").bin("r").read_exp(F.blob_bin("b").bits.get_int(0, 4)).execute())
    assert rec is not None and rec["r"] == 15
