"""NUL in a bin name is refused before sending (issue 55): a real node answers code 21."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

import pytest

from aerospike_fluent import F
from aerospike_fluent._exec import Sync
from aerospike_fluent.batch import Batch
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.models import Bin, Codecs, mapping_of
from aerospike_fluent.scopes import RecordSet

from .recorder import Recorder


@pytest.mark.parametrize("name", ["a\x00b", "\x00", "x" * 14 + "\x00"])
def test_nul_in_a_bin_name_is_refused_before_sending(
    users: RecordSet[Sync], rec: Recorder, name: str
) -> None:
    key = users.key("k")
    calls: list[Any] = [
        lambda: key.put({name: 1}),
        lambda: key.put({"ok": 1, name: 1}),
        lambda: key.get(name),
        lambda: key.add(name, 1),
        lambda: key.bin(name),
        lambda: users.query().select(name),
        lambda: Batch(rec).put(key, {name: 1}),
        lambda: F.bin(name),
    ]
    for call in calls:
        with pytest.raises(InvalidArgumentError, match="NUL"):
            call()
    assert rec.calls == []


def test_nul_in_a_model_bin_name_is_refused() -> None:
    @dataclasses.dataclass
    class User:
        name: Annotated[str, Bin("a\x00b")]

    with pytest.raises(InvalidArgumentError, match="NUL"):
        mapping_of(User, Codecs([]))


def test_put_arrow_refuses_a_sentinel_ttl_and_nul_in_a_bin_column(
    users: RecordSet[Sync], rec: Recorder
) -> None:
    import polars as pl
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    table = pa.table({"k": ["a"], "n": [1]})
    with pytest.raises(InvalidArgumentError, match=r"af\.KEEP_TTL"):
        users.put_arrow(table, key="k", ttl=0xFFFF_FFFE)
    for data in (pa.table({"k": ["a"], "a\x00b": [1]}), pl.DataFrame({"k": ["a"], "\x00": [1]})):
        with pytest.raises(InvalidArgumentError, match="NUL"):
            users.put_arrow(data, key="k")
    assert rec.calls == []
