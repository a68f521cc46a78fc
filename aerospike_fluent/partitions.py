"""Splitting a namespace's 4096 partitions into ranges, one per parallel reader.

Example:
    >>> import aerospike_fluent as af
    >>> af.partition_ranges(3)
    [(0, 1366), (1366, 1365), (2731, 1365)]
    >>> for begin, count in af.partition_ranges(8):   # one task per range, any engine
    ...     table = users.query().partitions(begin, count).to_arrow()

"""

from __future__ import annotations

from aerospike_fluent import _validate

PARTITIONS = 4096
"""Partitions of every Aerospike namespace."""

__all__ = ["PARTITIONS", "partition_ranges"]


def partition_ranges(n: int) -> list[tuple[int, int]]:
    """Split the 4096 partitions into ``n`` contiguous ``(begin, count)`` ranges.

    The ranges cover every partition exactly once, in order, and differ in size by one at
    most (the first ``4096 % n`` hold one more). Each is the argument of
    ``query().partitions(begin, count)``: ``n`` readers, in as many processes or machines,
    read a set once between them.

    Raises:
        InvalidTypeError: ``n`` is not an int.
        InvalidArgumentError: ``n`` is outside ``[1, 4096]``.

    """
    _validate.integer("partition ranges", n, 1, PARTITIONS)
    size, extra = divmod(PARTITIONS, n)
    ranges: list[tuple[int, int]] = []
    begin = 0
    for i in range(n):
        count = size + (1 if i < extra else 0)
        ranges.append((begin, count))
        begin += count
    return ranges
