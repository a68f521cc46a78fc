"""Queries whose operations project expression reads and CDT reads (server 8.1.2), through the
official client: every record answers what each op asked for."""

from __future__ import annotations

from typing import Any

import pytest
from aerospike_helpers import expressions as xp  # type: ignore[import-untyped]
from aerospike_helpers.operations import expression_operations as eo  # type: ignore[import-untyped]
from aerospike_helpers.operations import list_operations as lo
from aerospike_helpers.operations import operations as op

pytestmark = pytest.mark.compat


def test_expression_and_list_reads_are_projected(client: Any, set_name: str) -> None:
    for i in range(5):
        client.put(("test", set_name, i), {"a": i, "l": [i, i + 1, i + 2]})
    q = client.query("test", set_name)
    q.add_ops(
        [
            op.read("a"),
            eo.expression_read("twice", xp.Mul(xp.IntBin("a"), 2).compile()),
            lo.list_get("l", 1),
        ]
    )
    rows = q.results()
    assert len(rows) == 5
    for _, _, bins in rows:
        a = bins["a"]
        assert bins == {"a": a, "twice": 2 * a, "l": a + 1}, bins
