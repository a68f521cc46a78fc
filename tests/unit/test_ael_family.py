"""AEL text of the bit and HLL expressions (reads and modifies) and blob literals: every builder
call renders with ``to_ael`` and compiles back to the same plan; text compiles to the builder's."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from aerospike_fluent import BitOverflow, BitResize, BitWrite, HllWrite
from aerospike_fluent import exp as F
from aerospike_fluent.errors import AelSyntaxError

B = F.blob_bin("b").bits
H = F.hll_bin("h").hll

BUILT: dict[str, Callable[[], F.Exp]] = {
    "get": lambda: B.get(0, F.int_bin("n")),
    "count": lambda: B.count(-8, 8) > 2,
    "lscan": lambda: B.lscan(0, 16, True),
    "rscan": lambda: B.rscan(0, 16, False),
    "get_int": lambda: B.get_int(4, 12, signed=True),
    "resize": lambda: B.resize(4, BitResize.FROM_FRONT | BitResize.GROW_ONLY),
    "insert": lambda: B.insert(1, b"\xaa\xbb", flags=BitWrite.NO_FAIL),
    "remove": lambda: B.remove(0, 1),
    "set": lambda: B.set(4, 8, b"\xa5", flags=BitWrite.PARTIAL | BitWrite.NO_FAIL),
    "or": lambda: B.or_(0, 8, F.blob_bin("mask")),
    "xor": lambda: B.xor(0, 8, b"\xff"),
    "and": lambda: B.and_(0, 8, b"\x0f"),
    "not": lambda: B.not_(3, 10),
    "lshift": lambda: B.lshift(0, 16, 3),
    "rshift": lambda: B.rshift(0, 16, F.int_bin("s")),
    "set_int": lambda: B.set_int(0, 8, 7).bits.not_(8, 8) == b"\x07\xff",
    "add": lambda: B.add(0, 8, 250, signed=True, overflow=BitOverflow.WRAP),
    "subtract": lambda: B.subtract(
        0, 8, 1, overflow=BitOverflow.SATURATE, flags=BitWrite.UPDATE_ONLY
    ),
    "untyped": lambda: F.bin("b").bits.count(0, 8),
    "hll_count": lambda: H.get_count() > 1000,
    "hll_describe": lambda: H.describe(),
    "hll_union": lambda: H.get_union([b"\x01\x02"]),
    "hll_union_count": lambda: H.get_union_count([b"\x01", b"\x02"]),
    "hll_intersect": lambda: H.get_intersect_count([b"\x01"]),
    "hll_similarity": lambda: H.get_similarity([b"\x01"]) > 0.5,
    "hll_may_contain": lambda: H.may_contain(["a", 1]) == 1,
    "hll_init": lambda: H.init(12, 4, flags=HllWrite.CREATE_ONLY),
    "hll_add": lambda: H.add(["a", "b"], 8).hll.get_count(),
    "blob": lambda: F.blob_bin("b") == b"\x00\xff",
}


@pytest.mark.parametrize("name", sorted(BUILT))
def test_to_ael_compiles_back(name: str) -> None:
    e = BUILT[name]()
    assert F.parse(F.to_ael(e)).compile() == e.compile()


@pytest.mark.parametrize(
    ("text", "built"),
    [
        ("bits.count($.flags, 0, 8) > 2", F.blob_bin("flags").bits.count(0, 8) > 2),
        (
            "bits.add($.b, 0, 8, 1, overflow: wrap, flags: 4)",
            F.bin("b").bits.add(0, 8, 1, overflow=BitOverflow.WRAP, flags=BitWrite.NO_FAIL),
        ),
        ("bits.not($.b, 0, 8, flags: PARTIAL)", B.not_(0, 8, flags=BitWrite.PARTIAL)),
        ("hll.getCount(hll.add($.h, ['x'], 10, -1)) >= 1", H.add(["x"], 10).hll.get_count() >= 1),
        ("bits.or($.b, 0, 8, ?0)", B.or_(0, 8, b"\x80")),
    ],
)
def test_text_compiles_to_the_builders_plan(text: str, built: F.Exp) -> None:
    assert F.parse(text, b"\x80").compile() == built.compile()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bits.flip($.b, 0, 8)", "unknown bits method"),
        ("bits.count($.b, 0)", "takes 2 argument"),
        ("bits.not($.b, flags: 1, 0, 8)", "positional arguments come before"),
        ("bits.count($.b, 0, 8, flags: 1)", "no option"),
        ("bits.add($.b, 0, 8, 1, overflow: SOMETIMES)", "unknown overflow"),
        ("bits.get($.b, 0, 8) == x'0g'", "a blob is"),
        ("hll.getCount($.h.get(type: INT))", "HLL"),
    ],
)
def test_bad_text_is_a_syntax_error(text: str, message: str) -> None:
    with pytest.raises(AelSyntaxError, match=message):
        F.parse(text)
