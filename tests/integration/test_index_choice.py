"""``query().where(...)`` picks a fitting secondary index by itself: the same records as a scan,
fewer records read by the server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aerospike_fluent.sync as af_sync
from aerospike_fluent import F, Sync
from aerospike_fluent.scopes import RecordSet
from aerospike_fluent.server import EmbeddedServer

NAMES = ("ann", "bob", "cy", "dee", "eve")
COUNT = 300


@pytest.fixture(scope="module")
def people() -> Iterator[tuple[EmbeddedServer, RecordSet[Sync]]]:
    """A private server with records of known ages, names and groups, indexed on age and name."""
    with EmbeddedServer() as server, af_sync.connect(server.seeds) as db:
        records = db.namespace("test").set("people")
        for i in range(COUNT):
            bins: dict[str, Any] = {"age": i % 90, "name": NAMES[i % 5], "group": i % 7}
            if i % 11 == 0:
                bins["age"] = str(i)  # a string where others hold ints: no index entry
            records.key(i).put(bins, send_key=True)
        records.create_index("age", "numeric", name="people_age")
        records.create_index("name", "string", name="people_name")
        yield server, records


def _read(server: EmbeddedServer, run: Any) -> tuple[list[int], int]:
    """The keys of the records ``run()`` returns, and the records the server read for it."""
    server.reset_stats()
    keys = sorted(int(r.key[2]) for r in run() if r.key is not None and r.key[2] is not None)
    return keys, server.stats()["query_records_read"]


def test_explain_names_the_index_and_the_filter_left(
    people: tuple[EmbeddedServer, RecordSet[Sync]],
) -> None:
    _, records = people
    plan = records.query().where("$.age >= 30 and $.age < 40 and $.group == 3").explain()
    assert plan.index == "people_age"
    assert plan.index_filter == ("range", ("index", "people_age"), 30, 39, None, None)
    assert plan.filter == ("eq", ("int_bin", "group"), ("int_val", 3))
    # equality beats a range
    plan = records.query().where("$.age > 10 and $.name == 'cy'").explain()
    assert (plan.index, plan.filter) == ("people_name", ("gt", ("int_bin", "age"), ("int_val", 10)))


def test_scan_and_where_index_still_decide(people: tuple[EmbeddedServer, RecordSet[Sync]]) -> None:
    _, records = people
    query = records.query().where("$.age == 5")
    assert query.scan().explain().index is None
    assert query.scan().explain().reason == "scan() asked for no index"
    forced = records.query().where_index("name").equals("eve").where("$.age == 5").explain()
    assert forced.reason == "where_index() chose it"
    assert forced.filter == ("eq", ("int_bin", "age"), ("int_val", 5))


def test_the_index_reads_fewer_records_for_the_same_answer(
    people: tuple[EmbeddedServer, RecordSet[Sync]],
) -> None:
    server, records = people
    query = records.query().where(F.bin("name") == "dee")
    with_index, read_with = _read(server, query.collect)
    scanned, read_scanning = _read(server, query.scan().collect)
    assert with_index == scanned and len(scanned) == COUNT // 5
    assert (read_with, read_scanning) == (COUNT // 5, COUNT)


def test_a_new_index_is_used_and_a_dropped_one_forgotten(
    people: tuple[EmbeddedServer, RecordSet[Sync]],
) -> None:
    _, records = people
    query = records.query().where("$.group == 2")
    assert query.explain().index is None
    records.create_index("group", "numeric", name="people_group")
    try:
        assert query.explain().index == "people_group"
    finally:
        records.drop_index("people_group")
    assert query.explain().index is None


ages = st.integers(min_value=-5, max_value=95)
conditions = st.one_of(
    st.builds(lambda v: f"$.age == {v}", ages),
    st.builds(lambda v: f"$.age > {v}", ages),
    st.builds(lambda v: f"$.age <= {v}", ages),
    st.builds(lambda v: f"{v} < $.age", ages),
    st.builds(lambda n: f"$.name == '{n}'", st.sampled_from((*NAMES, "zed"))),
    st.builds(lambda g: f"$.group == {g}", st.integers(0, 7)),
    st.builds(lambda g: f"$.group != {g}", st.integers(0, 7)),
)


def test_same_records_with_and_without_the_index(
    people: tuple[EmbeddedServer, RecordSet[Sync]],
) -> None:
    server, records = people

    @settings(max_examples=60, deadline=None)
    @given(st.lists(conditions, min_size=1, max_size=3))
    def same(parts: list[str]) -> None:
        query = records.query().where(" and ".join(parts))
        chosen, read_chosen = _read(server, query.collect)
        scanned, read_scanning = _read(server, query.scan().collect)
        assert chosen == scanned
        assert read_scanning == COUNT
        if query.explain().index is not None:
            assert read_chosen <= read_scanning
        assert query.count() == len(scanned)

    same()


def test_the_shared_server_answers_the_same_with_and_without_an_index(
    sdb: af_sync.SyncClient, set_name: str
) -> None:
    """Against the suite's server (a real one with ``AEROSPIKE_HOST``): results only."""
    records = sdb.namespace("test").set(set_name)
    for i in range(60):
        records.key(i).put({"n": i % 12, "tag": NAMES[i % 5]}, send_key=True)
    index = records.create_index("n", "numeric", name=f"{set_name}_n")
    try:
        for where in ("$.n == 4", "$.n >= 3 and $.n < 9 and $.tag == 'bob'", "7 < $.n"):
            query = records.query().where(where)
            assert query.explain().index == index
            keys = sorted(str(r.key[2]) for r in query.collect() if r.key is not None)
            scanned = sorted(str(r.key[2]) for r in query.scan().collect() if r.key is not None)
            assert keys == scanned
            assert keys
    finally:
        records.drop_index(index)
