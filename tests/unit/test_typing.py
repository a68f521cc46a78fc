"""Precise types for IDE completion: checked by mypy (``make lint``), sync half also run here."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, assert_type

from aerospike_fluent import AsyncRecordStream, BatchResult, Page, Record, RecordStream
from aerospike_fluent._exec import Async, Sync
from aerospike_fluent.keys import KeyRef
from aerospike_fluent.models._query import TypedQuery
from aerospike_fluent.models._stream import AsyncModelStream, ModelStream
from aerospike_fluent.scopes import RecordSet

from .recorder import Recorder


@dataclass
class _User:
    name: str


def _async_types(users: RecordSet[Async]) -> None:
    k = users.key("u1")
    assert_type(k, KeyRef[Async])
    assert_type(k.bin("tags").list.append("x").bin("m").map.put("a", 1), KeyRef[Async])
    _ = assert_type(k.get(), Coroutine[Any, Any, Record | None])
    _ = assert_type(k.put({"a": 1}), Coroutine[Any, Any, None])
    _ = assert_type(k.add("n", 1).execute(), Coroutine[Any, Any, Record | None])
    _ = assert_type(users.keys([1, 2]).get(), Coroutine[Any, Any, BatchResult])
    assert_type(users.query().stream(), AsyncRecordStream)
    _ = assert_type(users.query().page(10), Coroutine[Any, Any, Page[Record]])
    one = assert_type(k.get(as_=_User), Coroutine[Any, Any, _User | None])
    many = assert_type(users.keys([1]).get(as_=_User), Coroutine[Any, Any, list[_User | None]])
    every = assert_type(users.query().as_(_User).collect(), Coroutine[Any, Any, list[_User]])
    first = assert_type(users.query().as_(_User).first(), Coroutine[Any, Any, _User | None])
    for unsent in (one, many, every, first):
        unsent.close()
    assert_type(aiter(users.query().as_(_User)), AsyncIterator[_User])
    assert_type(users.query().as_(_User).stream(), AsyncModelStream[_User])


def test_sync_types(users: RecordSet[Sync], rec: Recorder) -> None:
    rec.reply = lambda call: []
    k = users.key("u1")
    assert_type(k, KeyRef[Sync])
    assert_type(k.get(), Record | None)
    assert_type(k.put({"a": 1}), None)
    assert_type(k.bin("n").add(1).execute(), Record | None)
    assert_type(users.keys([1]).exists(), list[bool])
    assert len(rec.calls) == 4
    assert_type(users.query().as_(_User), TypedQuery[Sync, _User])
    rec.reply = lambda call: None
    assert_type(k.get(as_=_User), _User | None)
    if False:  # static only: starting a query needs a native client
        assert_type(users.query().stream(), RecordStream)
        assert_type(users.keys([1]).get(as_=_User), list[_User | None])
        assert_type(users.query().as_(_User).collect(), list[_User])
        assert_type(iter(users.query().as_(_User)), Iterator[_User])
        assert_type(users.query().as_(_User).stream(), ModelStream[_User])


def test_mypy_flags_a_verb_that_is_not_awaited() -> None:
    from mypy import api

    code = (
        "import aerospike_fluent as af\n"
        "async def f(db: af.AsyncClient) -> None:\n"
        "    db.namespace('test').set('s').key('k').put({'a': 1})\n"
    )
    args = ["--config-file", os.devnull, "--strict", "--no-incremental", "-c", code]
    out, _, status = api.run(args)
    assert status == 1 and "unused-coroutine" in out, out


def test_mypy_flags_a_misspelled_connect_option() -> None:
    from mypy import api

    code = (
        "import aerospike_fluent as af\n"
        "async def f() -> None:\n"
        "    async with af.connect('embedded://', totl_timeout=1) as db:\n"
        "        pass\n"
        "def g() -> None:\n"
        "    af.sync.connect('embedded://', max_retries='2').close()\n"
    )
    args = ["--config-file", os.devnull, "--strict", "--no-incremental", "-c", code]
    out, _, status = api.run(args)
    assert status == 1, out
    assert 'Unexpected keyword argument "totl_timeout" for "connect"' in out, out
    assert 'Argument "max_retries" to "connect_sync" has incompatible type "str"' in out, out


def test_connect_options_declare_every_option_connect_takes() -> None:
    from typing import get_type_hints

    from aerospike_fluent import _options

    declared = set(get_type_hints(_options.ConnectOptions))
    assert declared == set(_options.public_options()) | set(_options.DEPRECATED)
