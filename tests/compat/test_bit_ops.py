"""Bit operations and bit expressions of the official client against the server: the results
and error classes the C client's and the Python client's own bit tests expect."""

from __future__ import annotations

from typing import Any

import aerospike
import pytest
from aerospike import exception as ex
from aerospike_helpers import expressions as exp  # type: ignore[import-untyped]
from aerospike_helpers.operations import bitwise_operations as bo  # type: ignore[import-untyped]
from aerospike_helpers.operations import expression_operations as eo
from aerospike_helpers.operations import operations as op

pytestmark = [
    pytest.mark.compat,
    pytest.mark.filterwarnings("ignore:value_byte_size is deprecated"),
]
BIN_NOT_FOUND: type[Exception] = ex.BinNotFound  # type: ignore[attr-defined]
CREATE_ONLY = {"bit_write_flags": aerospike.BIT_WRITE_CREATE_ONLY}
UPDATE_ONLY = {"bit_write_flags": aerospike.BIT_WRITE_UPDATE_ONLY}
FAIL = aerospike.BIT_OVERFLOW_FAIL

START = bytearray([0x01, 0x42, 0x03, 0x04, 0x05])


def _after(client: Any, key: tuple[str, str, str], *ops: Any) -> bytes:
    client.put(key, {"b": START})
    _, _, bins = client.operate(key, [*ops, op.read("b")])
    return bytes(bins["b"])


@pytest.mark.parametrize(
    ("operation", "expected"),
    [
        (bo.bit_resize("b", 7), [1, 0x42, 3, 4, 5, 0, 0]),
        (bo.bit_insert("b", 1, 2, bytearray([0xFF, 0xC7])), [1, 0xFF, 0xC7, 0x42, 3, 4, 5]),
        (bo.bit_remove("b", 2, 3), [1, 0x42]),
        (bo.bit_set("b", 13, 3, 1, bytearray([0xE0])), [1, 0x47, 3, 4, 5]),
        (bo.bit_or("b", 17, 6, 1, bytearray([0xA8])), [1, 0x42, 0x57, 4, 5]),
        (bo.bit_xor("b", 17, 6, 1, bytearray([0xAC])), [1, 0x42, 0x55, 4, 5]),
        (bo.bit_and("b", 23, 9, 2, bytearray([0x3C, 0x80])), [1, 0x42, 2, 0, 5]),
        (bo.bit_not("b", 25, 6), [1, 0x42, 3, 0x7A, 5]),
        (bo.bit_lshift("b", 32, 8, 3), [1, 0x42, 3, 4, 0x28]),
        (bo.bit_rshift("b", 0, 9, 1), [0, 0xC2, 3, 4, 5]),
        (bo.bit_add("b", 24, 16, 128, False, FAIL), [1, 0x42, 3, 4, 0x85]),
        (bo.bit_subtract("b", 24, 16, 128, False, FAIL), [1, 0x42, 3, 3, 0x85]),
        (bo.bit_set_int("b", 1, 8, 127), [0x3F, 0xC2, 3, 4, 5]),
    ],
)
def test_modify_ops(client: Any, set_name: str, operation: Any, expected: list[int]) -> None:
    assert _after(client, ("test", set_name, "m"), operation) == bytes(expected)


def test_read_ops(client: Any, set_name: str) -> None:
    key = ("test", set_name, "r")
    client.put(key, {"c": bytearray([1, 86, 86, 255, 3])})
    cases = [
        (bo.bit_get("c", -2, 2), bytearray([0xC0])),
        (bo.bit_count("c", 20, 9), 7),
        (bo.bit_lscan("c", 32, 8, True), 6),
        (bo.bit_rscan("c", 4, 8, False), 6),
        (bo.bit_get_int("c", 24, 8, True), -1),
        (bo.bit_get_int("c", 24, 8, False), 255),
    ]
    for operation, expected in cases:
        _, _, res = client.operate(key, [operation])
        assert res["c"] == expected, operation
    _, _, res = client.operate(key, [bo.bit_get("none", 0, 1)])
    assert res["none"] is None


@pytest.mark.parametrize(
    ("operation", "error"),
    [
        (bo.bit_not("b", 41, 8), ex.OpNotApplicable),
        (bo.bit_count("b", 0, 41), ex.OpNotApplicable),
        (bo.bit_set("b", 0, 16, 1, bytearray([1])), ex.InvalidRequest),
        (bo.bit_remove("b", 3, 3), ex.InvalidRequest),
        (bo.bit_not("nobin", 0, 8), BIN_NOT_FOUND),
        (bo.bit_add("b", 0, 8, 255, False, FAIL), ex.OpNotApplicable),
        (bo.bit_set_int("b", 0, 65, 1), ex.InvalidRequest),
        (bo.bit_resize("b", 1, resize_flags=aerospike.BIT_RESIZE_GROW_ONLY), ex.InvalidRequest),
        (bo.bit_resize("b", 9, CREATE_ONLY), ex.BinExistsError),
        (bo.bit_resize("nobin", 9, UPDATE_ONLY), BIN_NOT_FOUND),
    ],
)
def test_errors(client: Any, set_name: str, operation: Any, error: type[Exception]) -> None:
    key = ("test", set_name, "e")
    client.put(key, {"b": START})
    with pytest.raises(error):
        client.operate(key, [operation])
    _, _, bins = client.get(key)
    assert bins["b"] == START


def test_policies(client: Any, set_name: str) -> None:
    partial = {"bit_write_flags": aerospike.BIT_WRITE_PARTIAL}
    no_fail = {"bit_write_flags": aerospike.BIT_WRITE_NO_FAIL}
    key = ("test", set_name, "p")
    assert _after(client, key, bo.bit_not("b", 36, 8, partial)) == bytes([1, 0x42, 3, 4, 0x0A])
    assert _after(client, key, bo.bit_not("b", 41, 8, no_fail)) == bytes(START)
    assert _after(client, key, bo.bit_remove("b", 3, 9, partial)) == bytes([1, 0x42, 3])


def test_bit_expressions(client: Any, set_name: str) -> None:
    key = ("test", set_name, "x")
    client.put(key, {"b": START})
    count = exp.Eq(exp.BitCount(0, 16, exp.BlobBin("b")), 3).compile()
    assert client.get(key, {"expressions": count})[2]["b"] == START
    miss = exp.Eq(exp.BitCount(0, 16, exp.BlobBin("b")), 4).compile()
    with pytest.raises(ex.FilteredOut):
        client.get(key, {"expressions": miss})
    get_int = exp.Eq(exp.BitGetInt(8, 8, False, exp.BlobBin("b")), 0x42).compile()
    assert client.get(key, {"expressions": get_int})[2]["b"] == START
    scan = exp.Eq(exp.BitLeftScan(0, 8, True, exp.BlobBin("b")), 7).compile()
    assert client.get(key, {"expressions": scan})[2]["b"] == START
    modified = exp.BitNot(None, 0, 8, exp.BlobBin("b"))
    _, _, res = client.operate(key, [eo.expression_read("r", modified.compile())])
    assert res["r"] == bytearray([0xFE, 0x42, 3, 4, 5])
