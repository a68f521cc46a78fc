"""Arrow options are checked before anything is sent."""

from __future__ import annotations

from typing import Any

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest

from aerospike_fluent import _native, errors
from aerospike_fluent.scopes import RecordSet

from .recorder import Recorder


def test_bad_options_raise_before_the_query_starts(users: RecordSet[Any], rec: Recorder) -> None:
    q = users.query()
    bad: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"rows": 0}, errors.InvalidArgumentError, "rows"),
        ({"rows": 100_001}, errors.InvalidArgumentError, "rows"),
        ({"key": 5}, errors.InvalidTypeError, "key="),
        ({"ttl": ""}, errors.InvalidTypeError, "ttl="),
        ({"schema": {"a": "int"}}, errors.InvalidArgumentError, "__arrow_c_schema__"),
        ({"colour": 1}, errors.InvalidArgumentError, "unknown Arrow option"),
        ({"key": "k", "digest": "k"}, errors.InvalidArgumentError, "two metadata columns"),
        (
            {"schema": pa.schema([("key", pa.int64())]), "key": True},
            errors.InvalidArgumentError,
            "no bin column",
        ),
    ]
    for options, error, match in bad:
        with pytest.raises(error, match=match):
            q.to_arrow(**options)
        with pytest.raises(error, match=match):
            q.arrow_batches(**options)
    with pytest.raises(errors.InvalidTypeError, match="on_progress"):
        q.on_progress(42)  # type: ignore[arg-type]
    assert rec.calls == []


def test_a_schema_selects_its_bins(users: RecordSet[Any]) -> None:
    spec = _native.ArrowSpec(
        pa.schema([("k", pa.int64()), ("a", pa.string()), ("b", pa.int8())]), key="k"
    )
    assert spec.schema_bins == ["a", "b"]
    assert _native.ArrowSpec().schema_bins is None


def test_tables_concat_only_one_schema() -> None:
    with pytest.raises(errors.InvalidArgumentError, match="needs a table"):
        _native.ArrowTable.concat([])
