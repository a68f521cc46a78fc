"""cond, let/var, integer bitwise operators, metadata and typing, on every client flavor."""

from __future__ import annotations

import pytest

from aerospike_fluent import exp as F
from aerospike_fluent.errors import AerospikeError, FilteredOutError

from ._flavor import Flavor


async def test_cond_let_and_bitwise_in_reads(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("e")
    await fl.run(k.put({"balance": 30, "flags": 0b1010, "f": 2.5}))
    grade = F.cond(F.int_bin("balance") < 10, "low", F.int_bin("balance") < 50, "mid", "high")
    doubled = F.let(b=F.int_bin("balance")).then(F.var("b", "int") + F.var("b", "int"))
    rec = await fl.run(
        k.bin("grade")
        .read_exp(grade)
        .bin("doubled")
        .read_exp(doubled)
        .bin("bits")
        .read_exp(F.int_or(F.int_bin("flags"), 1) << 2)
        .bin("count")
        .read_exp(F.int_count(F.int_bin("flags")))
        .bin("scan")
        .read_exp(F.int_lscan(F.int_bin("flags"), True))
        .bin("neg")
        .read_exp(F.val(-16) >> 2)
        .bin("logical")
        .read_exp(F.rshift(-1, 60))
        .execute()
    )
    assert rec is not None
    assert rec["grade"] == "mid"
    assert rec["doubled"] == 60
    assert rec["bits"] == 0b101100
    assert rec["count"] == 2
    assert rec["scan"] == 60
    assert rec["neg"] == -4
    assert rec["logical"] == 15


async def test_filters_with_cond_exclusive_and_metadata(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("m")
    await fl.run(k.put({"a": 1, "b": 2}))
    assert await fl.run(k.where(F.exclusive(F.int_bin("a") == 1, F.int_bin("b") == 1)).get())
    assert await fl.run(k.where(F.device_size() > 0).get())
    unk = F.cond(F.int_bin("a") == 2, True, F.unknown())
    with pytest.raises(FilteredOutError):
        await fl.run(k.where(unk).get())
    assert await fl.run(k.where(F.int_and(F.int_bin("a"), F.int_bin("b")) == 0).get())


async def test_mixed_types_are_refused_by_the_server(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("t")
    await fl.run(k.put({"i": 5, "f": 5.0}))
    with pytest.raises(AerospikeError) as info:
        # an int bin against a float: the server refuses the request, no record is filtered
        await fl.run(k.where(F.int_bin("i") == F.float_bin("f")).get())
    assert info.value.result_code == 4


def test_builder_catches_what_it_can() -> None:
    with pytest.raises(AerospikeError):
        F.cond(F.int_bin("a") > 1, 1, 2.0)
    with pytest.raises(AerospikeError):
        F.int_and(F.float_bin("f"), 1)
    with pytest.raises(AerospikeError):
        F.let(**{"1x": 1})
    with pytest.raises(AerospikeError):
        F.cond(F.int_bin("a") > 1, 1)


async def test_ael_paths_parameters_and_control_on_the_server(fl: Flavor, set_name: str) -> None:
    k = fl.db.namespace("test").set(set_name).key("p")
    await fl.run(k.put({"doc": {"name": "Ann", "tags": ["a", "b"], "n": {"x": 3}}, "l": [5, 1, 9]}))
    cases = [
        ("$.doc.name == 'Ann'", ()),
        ("$.doc.tags.[0] == 'a'", ()),
        ("$.doc.tags[1] == ?0", ("b",)),
        ("$.doc.n.x + 1 == 4", ()),
        ("$.l.[#-1] == 9", ()),
        ("$.l.[=1:6].count() == 2", ()),
        ("$.l.[!=1:6].count() == 1", ()),
        ("$.doc.{}.count() == 3", ()),
        ("$.doc.tags.[].count() == 2", ()),
        ("$.doc.{a-o}.count() == 2", ()),
        ("'a' in $.doc.tags", ()),
        ("let(x = $.l.[0]) then (${x} * 2 == 10)", ()),
        ("when($.l.[0] > 3 => 'hi', default => 'lo') == 'hi'", ()),
        ("$.l.[0] & 4 == 4 and $.l.[2] >> 1 == 4", ()),
    ]
    for text, args in cases:
        rec = await fl.run(k.where(F.parse(text, *args)).get())
        assert rec is not None, text
    with pytest.raises(FilteredOutError):
        await fl.run(k.where(F.parse("$.doc.name == ?who", who="Bob")).get())
