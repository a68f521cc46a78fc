"""The table of which path serves each call, in ``docs/internals/architecture.md``, kept true:
every row's call runs on a fresh client, and the bytes its own connections sent (the wire path;
the crate's connections are not counted there) say which path served it."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aerospike_fluent import sync as af_sync

TABLE = Path(__file__).parents[2] / "docs" / "internals" / "architecture.md"
ROW = re.compile(r"^\| `(?P<call>[^`]+)` \| (?P<path>wire|crate) \|")
UDF = b"function one(rec)\n  return 1\nend\n"

pytestmark = pytest.mark.skipif(
    any(
        os.environ.get(v)
        for v in ("AEROSPIKE_FLUENT_CRATE_RECORDS", "AEROSPIKE_FLUENT_CRATE_SCANS")
    ),
    reason="the wire path is switched off",
)


def rows() -> list[tuple[str, str]]:
    text = TABLE.read_text()
    table = text.split("<!-- path-table -->")[1].split("<!-- /path-table -->")[0]
    found = [(m["call"], m["path"]) for m in map(ROW.match, table.splitlines()) if m]
    assert len(found) >= 10, "the path table of architecture.md lost its rows"
    return found


@pytest.fixture(scope="module")
def prepared(seeds: str) -> Iterator[str]:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set("paths")
        for i in range(10):
            s.key(i).put({"a": i})
        for k in (100, 20, 21, 30):
            s.key(k).delete()
        db.udf_register(UDF, "paths.lua")
        yield "paths"
        db.udf_remove("paths.lua")


@pytest.fixture(scope="module")
def seeds(server_address: tuple[str, int]) -> str:
    host, port = server_address
    return f"{host}:{port}"


@pytest.mark.parametrize(("call", "path"), rows())
def test_the_table_says_which_path_serves_the_call(
    call: str, path: str, prepared: str, seeds: str
) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(prepared)
        scope: dict[str, Any] = {"db": db, "s": s}
        eval(call, {}, scope)  # the table's own text is what runs
        sent = sum(n.bytes_sent for n in db.metrics().nodes)
    assert ("wire" if sent > 0 else "crate") == path, f"{call} went over the other path"
