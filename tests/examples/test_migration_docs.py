"""Run every Python snippet of the migration pages against the embedded server.

Each page's snippets run in order, per client (one tab each): this SDK's (the
``aerospike_fluent`` tab, and code outside tabs) and the peer's, when it is installed. Snippets
of one client share their names, on one event loop; ``db`` (this SDK) and ``client`` (a peer)
start connected to the server. Top-level ``await`` is allowed; a snippet without it runs
outside the loop (as blocking code does). ``127.0.0.1:3000`` means the test server.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import importlib.util
import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import aerospike_fluent as af

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("aerospike-py", "c-client")
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
TAB = re.compile(r'^===\s+"(.+)"\s*$')
FLUENT = "aerospike_fluent"
PEERS = {"aerospike-py": "aerospike_py", "aerospike (C client)": "aerospike"}


@dataclass(frozen=True)
class Snippet:
    page: str
    line: int
    client: str
    code: str


def snippets(page: str) -> Iterator[Snippet]:
    """The Python code blocks of a migration page, each with the tab (client) it is under."""
    lines = (ROOT / "docs" / "migration" / f"{page}.md").read_text(encoding="utf-8").splitlines()
    tab = FLUENT
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := TAB.match(line):
            tab = m.group(1)
        elif line and not line.startswith(" ") and not FENCE.match(line):
            tab = FLUENT  # text outside the tabs
        fence = FENCE.match(line)
        if fence is None:
            i += 1
            continue
        indent, lang = fence.groups()
        start, i = i + 1, i + 1
        while not FENCE.match(lines[i]):
            i += 1
        if lang == "python":
            body = "\n".join(line[len(indent) :] for line in lines[start:i])
            yield Snippet(page, start + 1, tab if indent else FLUENT, body)
        i += 1


def _code(s: Snippet, seeds: str) -> Any:
    host, port = seeds.rsplit(":", 1)
    text = s.code.replace("127.0.0.1:3000", seeds).replace(
        '("127.0.0.1", 3000)', f'("{host}", {port})'
    )
    name = f"docs/migration/{s.page}.md:{s.line}"
    return compile(text, name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def _run(loop: asyncio.AbstractEventLoop, code: Any, names: dict[str, Any]) -> None:
    result = eval(code, names)
    if inspect.iscoroutine(result):
        loop.run_until_complete(result)


def _peer_client(module: Any, seeds: str, loop: asyncio.AbstractEventLoop) -> Any:
    host, port = seeds.rsplit(":", 1)
    config = {"hosts": [(host, int(port))]}
    if module.__name__ == "aerospike_py":
        client = module.AsyncClient(config)
        loop.run_until_complete(client.connect())
        return client
    return module.client(config).connect()


CASES = [(page, client) for page in PAGES for client in sorted({s.client for s in snippets(page)})]


def test_every_page_has_snippets_of_this_sdk_and_its_peer() -> None:
    for page in PAGES:
        clients = {s.client for s in snippets(page)}
        assert FLUENT in clients and clients & set(PEERS), page
        assert clients <= {FLUENT, *PEERS}, f"{page}: unknown tabs {clients}"


@pytest.mark.parametrize(("page", "client"), CASES, ids=[f"{p}-{c}" for p, c in CASES])
def test_snippets_run(page: str, client: str, seeds: str) -> None:
    chosen = [s for s in snippets(page) if s.client == client]
    loop = asyncio.new_event_loop()
    opened: Any = None
    try:
        if client == FLUENT:
            opened = loop.run_until_complete(af.connect(seeds))
            names: dict[str, Any] = {"af": af, "db": opened, "__name__": "__docs__"}
            reset = {"db": opened}
        else:
            module_name = PEERS[client]
            if importlib.util.find_spec(module_name) is None:
                pytest.skip(f"{module_name} is not installed (pip install -e '.[test]')")
            module = importlib.import_module(module_name)
            opened = _peer_client(module, seeds, loop)
            names = {module_name: module, "client": opened, "__name__": "__docs__"}
            reset = {"client": opened}
        for s in chosen:
            _run(loop, _code(s, seeds), names)
            names.update(reset)  # a snippet that connects and closes its own leaves it closed
    finally:
        if opened is not None:
            closing = opened.aclose() if client == FLUENT else opened.close()
            if inspect.isawaitable(closing):
                loop.run_until_complete(closing)
        loop.close()
