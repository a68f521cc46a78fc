"""The private asyncio attributes of ``aerospike_fluent._probes`` are still what it expects.

Each probe has a fallback, so a Python release that renames or changes one would only make the
package slower, silently. These tests make that loud.
"""

from __future__ import annotations

import asyncio
import collections
import re
import sys
import threading
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sniffio
import trio

import aerospike_fluent
from aerospike_fluent import _probes

LOOPS: list[Callable[[], asyncio.AbstractEventLoop]] = [
    asyncio.new_event_loop,  # the default policy's loop
    asyncio.SelectorEventLoop,
]


def _run(make: Callable[[], asyncio.AbstractEventLoop], main: Callable[[], Any]) -> Any:
    loop = make()
    try:
        return loop.run_until_complete(main())
    finally:
        loop.close()


def test_get_running_loop_is_asyncios_own_lookup() -> None:
    assert _probes.get_running_loop is asyncio._get_running_loop  # not the fallback
    if sys.implementation.name == "cpython":
        # the C accelerator: no Python frame per call
        assert isinstance(asyncio._get_running_loop, types.BuiltinFunctionType)
    assert _probes.get_running_loop() is None  # outside a loop: None, no exception

    async def main() -> None:
        assert _probes.get_running_loop() is asyncio.get_running_loop()

    asyncio.run(main())


@pytest.mark.parametrize("make", LOOPS)
def test_ready_is_the_loops_queue_of_ready_callbacks(
    make: Callable[[], asyncio.AbstractEventLoop],
) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        ready = _probes.ready_queue(loop)
        assert ready is not None, "loop._ready is gone: no call polls for its reply any more"
        assert ready is loop._ready  # type: ignore[attr-defined]
        assert isinstance(ready, collections.deque)
        assert len(ready) == 0  # a lone task: nothing else to run
        loop.call_soon(lambda: None)
        assert len(ready) == 1
        await asyncio.sleep(0)
        assert len(ready) == 0

    _run(make, main)


@pytest.mark.parametrize("make", LOOPS)
def test_thread_id_is_the_thread_running_the_loop(
    make: Callable[[], asyncio.AbstractEventLoop],
) -> None:
    loop = make()
    try:
        thread = _probes.thread_getter(loop)
        assert thread is not None, "loop._thread_id is gone: every call asks get_running_loop"
        assert thread(loop) is None  # not running yet

        async def here() -> int | None:
            return thread(asyncio.get_running_loop())

        assert loop.run_until_complete(here()) == threading.get_ident()
        assert thread(loop) is None  # stopped: cleared
    finally:
        loop.close()


def test_thread_id_names_another_thread_running_the_loop() -> None:
    loop = asyncio.new_event_loop()
    thread = _probes.thread_getter(loop)
    assert thread is not None
    seen: list[int | None] = []

    async def main() -> None:
        seen.append(thread(loop))
        seen.append(threading.get_ident())

    worker = threading.Thread(target=lambda: loop.run_until_complete(main()))
    worker.start()
    worker.join()
    loop.close()
    assert seen[0] == seen[1] != threading.get_ident()


def test_a_loop_without_the_attributes_degrades_to_none() -> None:
    class Bare:
        pass

    bare: Any = Bare()
    assert _probes.ready_queue(bare) is None
    assert _probes.thread_getter(bare) is None


def test_the_get_running_loop_fallback_gives_the_same_answers() -> None:
    fallback = _probes._running_loop_or_none
    assert fallback() is None

    async def main() -> None:
        assert fallback() is asyncio.get_running_loop()

    asyncio.run(main())


def test_the_current_library_is_told_by_sniffio_without_sniffing() -> None:
    """The bridge reads sniffio's thread-local and context variable directly (public sniffio
    API): trio must set one of them, asyncio neither or "asyncio"."""

    def told() -> str | None:
        return sniffio.thread_local.name or sniffio.current_async_library_cvar.get()

    async def under_trio() -> str | None:
        return told()

    async def under_asyncio() -> str | None:
        return told()

    assert trio.run(under_trio) == "trio"
    assert asyncio.run(under_asyncio()) in (None, "asyncio")


PRIVATE = re.compile(
    r"\b(?:asyncio|trio|lowlevel|loop|sniffio)\._[a-z]|[\"']_(?:ready|thread_id)\b"
)


def test_no_other_module_reads_a_private_attribute_of_asyncio_or_trio() -> None:
    package = Path(aerospike_fluent.__file__).parent
    offenders = [
        f"{path.relative_to(package)}:{n}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "_probes.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if PRIVATE.search(line)
    ]
    assert offenders == []
