"""Record UDFs over blob bins: Lua works on `bytes` values, the result comes back as bytes and
the bin stays a blob, binary data (not UTF-8) included."""

from __future__ import annotations

from pathlib import Path

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor

CODE = (Path(__file__).parents[1] / "lua" / "blobs.lua").read_bytes()
NOT_UTF8 = b"\xff\xfe\x00\x80"


async def test_blob_bins_through_a_record_udf(fl: Flavor, set_name: str) -> None:
    module = f"{set_name}_blobs"
    name = await fl.run(fl.db.udf_register(CODE, f"{module}.lua"))
    try:
        s = fl.db.namespace("test").set(set_name)
        await fl.run(s.key("p").put({"b": NOT_UTF8}))
        try:
            got = await fl.run(s.key("p").udf(module, "patch"))
        except errors.UdfError as exc:
            if "not implemented" in str(exc):
                pytest.skip("this server has no UDF execution")
            raise
        want = b"\x41\xfe\x00\x80\x00\x00\x01\x02"
        assert got == want and isinstance(got, bytes)
        assert (await fl.run(s.key("p").get()))["b"] == want

        await fl.run(s.key("r").put({"b": NOT_UTF8}))
        assert await fl.run(s.key("r").udf(module, "rewrite")) == "FF FE 00 80|userdata|4"
        kept = (await fl.run(s.key("r").get()))["b"]
        assert kept == NOT_UTF8 and isinstance(kept, bytes)

        assert await fl.run(s.key("r").udf(module, "describe", NOT_UTF8)) == [NOT_UTF8, 4, 4]
    finally:
        await fl.run(fl.db.udf_remove(name))
