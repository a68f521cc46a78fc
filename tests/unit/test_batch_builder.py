"""``db.batch()`` builds in time linear in its rows: each added row links to the batch before
it instead of copying its rows, and copies stay independent."""

from __future__ import annotations

from aerospike_fluent._exec import Sync
from aerospike_fluent.batch import Batch
from aerospike_fluent.scopes import RecordSet

from .recorder import Recorder


def test_a_row_is_added_without_copying_the_rows_before_it(
    users: RecordSet[Sync], rec: Recorder
) -> None:
    batch: Batch[Sync] = Batch(rec)
    for i in range(1000):
        before = batch
        batch = batch.put(users.key(i), {"i": i})
        assert batch._last is not None and batch._last[0] is before._last  # shared, not copied
    assert len(batch) == 1000
    assert [row[1][2] for row in batch.rows] == list(range(1000))


def test_copies_branching_from_one_batch_stay_independent(
    users: RecordSet[Sync], rec: Recorder
) -> None:
    base = Batch(rec).put(users.key("a"), {"n": 1})
    reads = base.get(users.key("b"))
    deletes = base.delete(users.key("c"))
    assert [r[0] for r in base.rows] == ["write"]
    assert [r[0] for r in reads.rows] == ["write", "read"]
    assert [r[0] for r in deletes.rows] == ["write", "delete"]
    deletes.execute()
    (call,) = rec.calls
    assert call.method == "batch"
    assert [r[0] for r in call.args[0]] == ["write", "delete"]
