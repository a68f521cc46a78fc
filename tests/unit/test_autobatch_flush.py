"""Auto-batching hands its batch requests to the runtime in its own flush, not a loop pass later.

A stand-in native client and completer record the order of events; no server is involved.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from aerospike_fluent import _aio
from aerospike_fluent._autobatch import Batcher


class FakePending:
    def cancel(self) -> bool:
        return True


class FakeCompleter:
    """Records when the batcher asks for the requests started so far to be sent."""

    def __init__(self, events: list[str]) -> None:
        self.events = events

    def flush(self) -> None:
        self.events.append("completer flush")


class FakeNative:
    def __init__(self, events: list[str]) -> None:
        self.events = events

    def get(self, done: Any, *args: Any) -> FakePending:
        done[1].set_result(None)  # answered while it started
        return FakePending()

    def batch(self, done: Any, rows: list[Any], policy: Any) -> FakePending:
        self.events.append(f"batch of {len(rows)}")
        return FakePending()

    # the batcher binds every verb it takes over; this test calls only get
    exists = put = delete = touch = operate = get


async def _direct_get(*args: Any) -> None:
    return None


def _run(monkeypatch: pytest.MonkeyPatch, events: list[str], main: Any) -> None:
    """Run ``main()`` on a fresh loop whose completer is a stand-in recording into ``events``."""
    completer = FakeCompleter(events)
    monkeypatch.setattr(_aio, "completer", lambda loop: completer)
    monkeypatch.setattr(_aio, "_last", None)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
        _aio.completers.clear()


def test_the_batch_goes_out_in_the_batchers_own_flush(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    batcher = Batcher(FakeNative(events), 16, {"get": _direct_get})

    async def main() -> None:
        first = batcher.get(("test", "s", 0), None, False, None)  # sent alone
        joined = [batcher.get(("test", "s", k), None, False, None) for k in (1, 2, 3)]
        await first
        await asyncio.sleep(0)  # the batcher's flush ran before this task resumed
        assert events == ["batch of 3", "completer flush"]
        for j in joined:
            j.close()

    _run(monkeypatch, events, main)


@pytest.mark.parametrize(
    ("calls", "max_keys", "requests"),
    [
        (10, 64, ["batch of 10"]),
        (40, 64, ["batch of 20"] * 2),
        (50, 16, ["batch of 13"] * 3 + ["batch of 11"]),
    ],
)
def test_an_iteration_of_many_calls_goes_out_as_two_requests_at_least(
    monkeypatch: pytest.MonkeyPatch, calls: int, max_keys: int, requests: list[str]
) -> None:
    # while the server answers one request, the callers of the other run
    events: list[str] = []
    batcher = Batcher(FakeNative(events), max_keys, {"get": _direct_get})

    async def main() -> None:
        first = batcher.get(("test", "s", 0), None, False, None)  # sent alone
        joined = [batcher.get(("test", "s", k), None, False, None) for k in range(1, calls + 1)]
        await first
        await asyncio.sleep(0)
        assert events == [*requests, "completer flush"]
        for j in joined:
            j.close()

    _run(monkeypatch, events, main)
