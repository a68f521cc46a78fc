"""The automatic index choice rule, over index lists as a server reports them."""

from __future__ import annotations

from typing import Any

from aerospike_fluent import F
from aerospike_fluent._chain import and_filter
from aerospike_fluent._index_choice import Known, choose, conditions
from aerospike_fluent._indexes import IndexInfo
from aerospike_fluent._validate import INT_MAX, INT_MIN


def _index(
    name: str,
    bin_name: str,
    kind: str = "numeric",
    *,
    set_name: str | None = "people",
    entries: int = 1000,
    per_value: int = 10,
    state: str = "RW",
    collection: str = "default",
) -> Known:
    info = IndexInfo("test", set_name, name, bin_name, kind, collection, None, None, state)
    return Known(info, entries, per_value)


def _where(*conditions: Any) -> tuple[Any, ...]:
    filter: tuple[Any, ...] | None = None
    for c in conditions:
        filter = and_filter(filter, c)
    assert filter is not None
    return filter


def test_integer_comparisons_on_one_bin_make_one_range() -> None:
    found = conditions(_where("$.age >= 18 and $.age < 65 and 30 < $.age"))
    assert [(c.bin, c.low, c.high, c.used) for c in found] == [("age", 31, 64, (0, 1, 2))]
    assert [(c.low, c.high) for c in conditions(_where(F.bin("age") <= 7))] == [(INT_MIN, 7)]
    assert [(c.low, c.high) for c in conditions(_where(F.bin("age") > 7))] == [(8, INT_MAX)]


def test_only_plain_bin_comparisons_with_a_value_qualify() -> None:
    assert conditions(_where("$.age > 5 or $.age < 2")) == []
    assert conditions(_where("$.age != 5")) == []
    assert conditions(_where("$.a == $.b")) == []
    assert conditions(_where("$.age > 9 and $.age < 3")) == []  # empty range: the filter says so


def test_equality_wins_over_a_more_selective_range() -> None:
    filter = _where("$.age > 10 and $.name == 'ann'")
    indexes = (
        _index("by_age", "age", entries=5, per_value=1),
        _index("by_name", "name", "string", entries=10_000, per_value=500),
    )
    chosen = choose(filter, "people", indexes)
    assert chosen.index == "by_name"
    assert chosen.index_filter == ("equal", ("index", "by_name"), "ann", None, None)
    assert chosen.filter == ("gt", ("int_bin", "age"), ("int_val", 10))


def test_the_most_selective_equality_wins_by_the_servers_statistics() -> None:
    filter = _where("$.city == 'Oslo' and $.zip == 150")
    indexes = (
        _index("by_city", "city", "string", per_value=300),
        _index("by_zip", "zip", per_value=4),
    )
    chosen = choose(filter, "people", indexes)
    assert (chosen.index, chosen.filter) == (
        "by_zip",
        ("eq", ("string_bin", "city"), ("string_val", "Oslo")),
    )


def test_ranges_compare_by_entries_then_name() -> None:
    filter = _where("$.a > 1 and $.b < 9")
    small_b = (_index("ia", "a", entries=900), _index("ib", "b", entries=20))
    assert choose(filter, "people", small_b).index == "ib"
    same = (_index("zz", "a", entries=50), _index("aa", "b", entries=50))
    assert choose(filter, "people", same).index == "aa"


def test_an_index_must_fit_bin_type_set_and_be_built() -> None:
    filter = _where("$.age == 3")
    for unfit in (
        _index("text", "age", "string"),
        _index("other_set", "age", set_name="cars"),
        _index("building", "age", state="WO"),
        _index("elements", "age", collection="list"),
        _index("other_bin", "height"),
    ):
        chosen = choose(filter, "people", (unfit,))
        assert (chosen.index, chosen.filter) == (None, filter), unfit.info.name
        assert chosen.reason == "no built index on age fits"
    assert choose(filter, "people", (_index("all_sets", "age", set_name=None),)).index == (
        "all_sets"
    )
    # a query of the whole namespace needs an index of the whole namespace
    assert choose(filter, "", (_index("one_set", "age"),)).index is None


def test_an_unknown_index_list_or_no_condition_means_no_index() -> None:
    assert choose(_where("$.age == 3"), "people", None).reason == (
        "the namespace's index list is not known yet"
    )
    assert choose(None, "people", (_index("by_age", "age"),)).index is None
