"""``af.partition_ranges(n)``: n contiguous, even ranges covering the 4096 partitions once."""

from __future__ import annotations

from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent._exec import Sync
from aerospike_fluent.scopes import RecordSet


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 1000, 4095, 4096])
def test_ranges_cover_every_partition_once_in_order(n: int) -> None:
    ranges = af.partition_ranges(n)
    assert len(ranges) == n
    covered = [p for begin, count in ranges for p in range(begin, begin + count)]
    assert covered == list(range(4096))
    sizes = {count for _, count in ranges}
    assert max(sizes) - min(sizes) <= 1
    # the larger ranges come first
    assert [c for _, c in ranges] == sorted((c for _, c in ranges), reverse=True)


def test_known_splits() -> None:
    assert af.partition_ranges(1) == [(0, 4096)]
    assert af.partition_ranges(3) == [(0, 1366), (1366, 1365), (2731, 1365)]
    assert af.partition_ranges(4096)[-1] == (4095, 1)


def test_each_range_is_a_valid_partitions_argument(users: RecordSet[Sync]) -> None:
    q = users.query()
    for begin, count in af.partition_ranges(5):
        q.partitions(begin, count)


@pytest.mark.parametrize("n", [0, -1, 4097, 5000])
def test_out_of_range_names_the_value(n: int) -> None:
    with pytest.raises(errors.InvalidArgumentError, match=rf"partition ranges {n} .*\[1, 4096\]"):
        af.partition_ranges(n)


@pytest.mark.parametrize("n", [2.0, "4", True, None])
def test_not_an_int(n: Any) -> None:
    with pytest.raises(errors.InvalidTypeError, match="partition ranges must be int"):
        af.partition_ranges(n)
