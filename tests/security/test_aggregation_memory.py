"""A stream aggregation's server side holds one partition's records and a couple of reply frames
at a time, whatever it reads and returns."""

from __future__ import annotations

from pathlib import Path

import pytest

from aerospike_fluent import sync as afs

from ._process import ServerProcess

pytestmark = pytest.mark.timeout(300)

CODE = (Path(__file__).parents[1] / "lua" / "aggregations.lua").read_bytes()

RECORDS = 160
SIZE = 1024 * 1024


def test_an_aggregation_streams_its_outputs() -> None:
    srv = ServerProcess()
    try:
        with afs.connect(f"{srv.host}:{srv.port}") as db:
            db.udf_register(CODE, "aggmem.lua")
            s = db.namespace("test").set("aggmem")
            for i in range(RECORDS):
                s.key(i).put({"n": i, "text": chr(65 + i % 26) * SIZE})
            stored_peak = srv.status_mb("VmHWM")
            texts = s.query().aggregate("aggmem", "values_of", "text")
            assert sorted(t[0] for t in texts) == sorted(chr(65 + i % 26) for i in range(RECORDS))
            # Holding the outputs (or the reply) whole would add RECORDS MiB to the peak.
            assert srv.status_mb("VmHWM") - stored_peak < RECORDS / 4
    finally:
        srv.close()
