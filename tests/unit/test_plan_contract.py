"""The plan contract: the op and expression names ``_plan`` declares are the ones the native
files convert, family by family."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aerospike_fluent import _plan

NATIVE_SRC = Path(__file__).resolve().parents[2] / "crates" / "native" / "src"
# A match arm: one or more string patterns joined by "|", then "=>".
ARM = re.compile(r'^\s*((?:"[\w.]+"\s*\|\s*)*"[\w.]+")\s*=>', re.MULTILINE)


def native_names(relative: str) -> set[str]:
    """The string patterns of the match arms in one native converter file."""
    text = (NATIVE_SRC / relative).read_text()
    return {name for arm in ARM.findall(text) for name in re.findall(r'"([\w.]+)"', arm)}


@pytest.mark.parametrize("family", sorted(_plan.FAMILIES))
def test_declared_names_are_the_native_ones(family: str) -> None:
    declared = _plan.FAMILIES[family]
    native = native_names(family)
    assert native, f"no match arms found in {family}: the parser no longer fits the file"
    assert sorted(native - declared) == [], f"converted by {family} but not declared in _plan"
    assert sorted(declared - native) == [], f"declared in _plan but not converted by {family}"


def test_every_native_family_file_is_declared() -> None:
    files = {
        str(p.relative_to(NATIVE_SRC))
        for folder in ("ops", "expr")
        for p in (NATIVE_SRC / folder).glob("*.rs")
        if p.name != "mod.rs"
    }
    assert files == set(_plan.FAMILIES)


def test_constructors_build_the_native_tuples() -> None:
    assert _plan.scalar_op("add", "n", 1) == ("add", "n", 1)
    assert _plan.list_op("append", "l", (), (0, 0), 5) == ("list_append", "l", (), (0, 0), 5)
    assert _plan.map_op("put", "m", (), (0, 0), "k", 1) == ("map_put", "m", (), (0, 0), "k", 1)
    assert _plan.list_node("size") == "lists.size"
    assert _plan.map_node("get_by_key") == "maps.get_by_key"
    assert _plan.bit_op("not", "b", 0, 8, 0) == ("bit_not", "b", 0, 8, 0)
    assert _plan.bit_node("count") == "bits.count"


def test_bit_reads_are_the_ops_that_answer() -> None:
    assert _plan.FAMILIES["ops/bit.rs"] >= _plan.BIT_READS
    assert _plan.reads(_plan.bit_op("count", "b", 0, 8))
    assert not _plan.reads(_plan.bit_op("not", "b", 0, 8, 0))
    assert _plan.FAMILIES["ops/hll.rs"] >= _plan.HLL_READS
    assert _plan.hll_op("describe", "h") == ("hll_describe", "h")
    assert _plan.reads(_plan.hll_op("describe", "h"))
    assert not _plan.reads(_plan.hll_op("init", "h", 8, -1, 0))
    assert _plan.hll_node("get_count") == "hlls.get_count"
