"""What a Community server refuses, and info per node, on the suite's server (embedded or real)."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor

ENTERPRISE_ONLY = 25


async def test_durable_deletes_are_refused_by_a_community_server(fl: Flavor, set_name: str) -> None:
    editions = await fl.run(fl.db.info_all("edition"))
    if not all("Community" in answer["edition"] for answer in editions.values()):
        pytest.skip(f"not a Community server: {editions}")
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put_many({i: {"a": i} for i in range(3)}))
    with pytest.raises(errors.EnterpriseOnlyError) as caught:
        await fl.run(s.key(0).delete(durable=True))
    assert caught.value.result_code == ENTERPRISE_ONLY and not caught.value.in_doubt
    rows = await fl.run(s.keys([1, 2]).delete(durable=True))
    assert [row.result_code for row in rows] == [ENTERPRISE_ONLY, ENTERPRISE_ONLY]
    assert sorted(r["a"] for r in await fl.run(s.query().collect())) == [0, 1, 2]


async def test_info_all_answers_for_every_node(fl: Flavor) -> None:
    answers = await fl.run(fl.db.info_all("node\nstatistics"))
    assert answers
    for name, answer in answers.items():
        assert answer["node"] == name
        assert "cluster_size=" in answer["statistics"]
