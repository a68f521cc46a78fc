"""Precise types for IDE completion: checked by mypy (``make lint``), sync half also run here."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import assert_type

from aerospike_fluent import AsyncRecordStream, BatchResult, Page, Record, RecordStream
from aerospike_fluent._exec import Async, Sync
from aerospike_fluent.keys import KeyRef
from aerospike_fluent.scopes import RecordSet

from .recorder import Recorder


def _async_types(users: RecordSet[Async]) -> None:
    k = users.key("u1")
    assert_type(k, KeyRef[Async])
    assert_type(k.bin("tags").list.append("x").bin("m").map.put("a", 1), KeyRef[Async])
    assert_type(k.get(), Awaitable[Record | None])
    assert_type(k.put({"a": 1}), Awaitable[None])
    assert_type(k.add("n", 1).execute(), Awaitable[Record | None])
    assert_type(users.keys([1, 2]).get(), Awaitable[BatchResult])
    assert_type(users.query().stream(), AsyncRecordStream)
    assert_type(users.query().page(10), Awaitable[Page])


def test_sync_types(users: RecordSet[Sync], rec: Recorder) -> None:
    rec.reply = lambda call: []
    k = users.key("u1")
    assert_type(k, KeyRef[Sync])
    assert_type(k.get(), Record | None)
    assert_type(k.put({"a": 1}), None)
    assert_type(k.bin("n").add(1).execute(), Record | None)
    assert_type(users.keys([1]).exists(), list[bool])
    assert len(rec.calls) == 4
    if False:  # static only: starting a query needs a native client
        assert_type(users.query().stream(), RecordStream)
