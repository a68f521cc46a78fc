"""An outcome settled inside its native call: yielded to the loop once, then handed back."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

from aerospike_fluent import _bridge


def test_an_answered_call_yields_once_then_returns_its_outcome() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        fut.set_result(7)
        ran: list[str] = []
        loop.call_soon(ran.append, "other callback")
        assert await _bridge._answered(fut) == 7
        assert ran == ["other callback"]  # the loop ran in between

    asyncio.run(main())


def test_a_call_cancelled_while_yielding_leaves_no_unretrieved_error() -> None:
    async def main() -> list[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        reported: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, context: reported.append(context))
        fut: asyncio.Future[Any] = loop.create_future()
        fut.set_exception(KeyError("from the server"))
        task = loop.create_task(_bridge._answered(fut))
        await asyncio.sleep(0)  # the task now waits in its one yield
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        del fut, task
        gc.collect()
        return reported

    assert asyncio.run(main()) == []
