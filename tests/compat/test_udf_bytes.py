"""Blob bins in record UDFs of the official client: Lua gets `bytes` values, and they come back
(in the result and in the record) as blobs, binary data included."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.compat

MODULE = (Path(__file__).parents[1] / "lua" / "blobs.lua").read_text()
NOT_UTF8 = b"\xff\xfe\x00\x80"


@pytest.fixture(scope="module")
def udf_module(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    name = "compat_blobs_" + uuid.uuid4().hex[:8]
    path = Path(tmp_path_factory.mktemp("udf")) / f"{name}.lua"
    path.write_text(MODULE)
    client.udf_put(str(path))
    for _ in range(50):
        if any(m["name"] == f"{name}.lua" for m in client.udf_list()):
            break
        time.sleep(0.1)
    yield name
    client.udf_remove(f"{name}.lua")


def blob(v: Any) -> bytes:
    """A blob as the client returns it (bytes or bytearray), checked and made bytes."""
    assert isinstance(v, (bytes, bytearray)), v
    return bytes(v)


def test_blob_bins_through_a_record_udf(client: Any, set_name: str, udf_module: str) -> None:
    patched = ("test", set_name, "p")
    client.put(patched, {"b": bytearray(NOT_UTF8)})
    want = b"\x41\xfe\x00\x80\x00\x00\x01\x02"
    assert blob(client.apply(patched, udf_module, "patch", [])) == want
    assert blob(client.get(patched)[2]["b"]) == want

    kept = ("test", set_name, "r")
    client.put(kept, {"b": bytearray(NOT_UTF8)})
    assert client.apply(kept, udf_module, "rewrite", []) == "FF FE 00 80|userdata|4"
    assert blob(client.get(kept)[2]["b"]) == NOT_UTF8

    described = client.apply(kept, udf_module, "describe", [bytearray(NOT_UTF8)])
    assert [blob(described[0]), *described[1:]] == [NOT_UTF8, 4, 4]


def test_bytes_made_in_lua_are_blobs(client: Any, set_name: str, udf_module: str) -> None:
    key = ("test", set_name, "m")
    client.put(key, {"x": 1})
    made, ty = client.apply(key, udf_module, "make", ["hi"])
    assert (blob(made), ty) == (b"hi\xff", 4)
    assert blob(client.get(key)[2]["m"]) == b"hi\xff"
