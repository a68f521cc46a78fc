from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest

from aerospike_fluent.errors import AerospikeError, RecordExistsError
from aerospike_fluent.results import BatchResult

KA, KB, KC = (("test", "s", k, None) for k in "abc")


@dataclass
class Row:
    key: Any
    record: Any
    result_code: int
    error: AerospikeError | None
    in_doubt: bool = False


def test_missing_read_rows_are_not_errors() -> None:
    rows = [Row(KA, {"x": 1}, 0, None), Row(KB, None, 2, None)]
    result = BatchResult(cast(Any, rows), True)
    assert result.ok and result.errors == []
    assert result.records == [{"x": 1}, None]
    assert result.raise_on_error() is result
    assert len(result) == 2 and result[1].key == KB


def test_failed_rows_are_kept_and_raised() -> None:
    err = RecordExistsError("exists")
    rows = [Row(KA, None, 5, err), Row(KB, None, 0, None), Row(KC, None, 2, None)]
    result = BatchResult(cast(Any, rows), [False, False, False])
    assert not result.ok
    assert [r.key for r in result.errors] == [KA, KC]
    with pytest.raises(RecordExistsError):
        result.raise_on_error()


def test_raise_on_error_notes_the_other_failures_once() -> None:
    err = RecordExistsError("exists")
    rows = [Row(KA, None, 5, err), Row(KB, None, 5, RecordExistsError("exists"))]
    result = BatchResult(cast(Any, rows), [False, False])
    for _ in range(3):
        with pytest.raises(RecordExistsError) as caught:
            result.raise_on_error()
    assert caught.value.__notes__ == ["1 more of 2 batch rows failed"]
