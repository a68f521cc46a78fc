"""A missing record in a read or delete row is an outcome, not an error: rows, ``ok``, ``errors``
and ``row.error`` agree."""

from __future__ import annotations

from aerospike_fluent import errors

from ._flavor import Flavor


async def test_missing_records_in_reads_and_deletes_carry_no_error(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("here").put({"n": 1}))
    for result in (
        await fl.run(s.keys(["here", "gone"]).get()),
        await fl.run(fl.db.batch().get(s.key("here")).get(s.key("gone")).execute()),
        await fl.run(fl.db.batch().delete(s.key("gone")).execute()),
    ):
        missing = [row for row in result if row.record is None]
        assert missing, result
        assert all(row.error is None and row.result_code == 2 for row in missing)
        assert result.ok and result.errors == []
        result.raise_on_error()


async def test_a_missing_record_is_still_an_error_for_an_update(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    result = await fl.run(fl.db.batch().update(s.key("gone"), {"n": 1}).execute())
    assert not result.ok
    assert isinstance(result.errors[0].error, errors.RecordNotFoundError)
