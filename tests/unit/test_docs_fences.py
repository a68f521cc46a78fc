"""Every code fence in the docs is closed by a fence line of its own.

A closing fence with text after it (```` ``` Reads under a ````) is no fence: Markdown keeps
the block open and swallows what follows, and the strict mkdocs build still renders it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([*(ROOT / "docs").rglob("*.md"), ROOT / "README.md"])
_FENCE = re.compile(r"^\s*(?P<marks>`{3,}|~{3,})(?P<rest>.*)$")


def unbalanced_fences(text: str) -> list[str]:
    """Each problem with the code fences of a Markdown page, with its line number."""
    problems: list[str] = []
    opened: tuple[int, str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        fence = _FENCE.match(line)
        if fence is None:
            continue
        marks, rest = fence["marks"], fence["rest"]
        if opened is None:
            if not (marks[0] == "`" and "`" in rest):  # ```a``` is inline code, not a fence
                opened = (number, marks)
        elif marks[0] == opened[1][0] and len(marks) >= len(opened[1]):
            if rest.strip():
                problems.append(
                    f"line {number}: {line.strip()!r} has text after the fence, so it does not "
                    f"close the block opened at line {opened[0]}"
                )
            else:
                opened = None
    if opened is not None:
        problems.append(f"line {opened[0]}: the code block opened here is never closed")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_fence_is_closed(page: Path) -> None:
    assert unbalanced_fences(page.read_text(encoding="utf-8")) == []


def test_a_fence_with_text_after_it_is_reported() -> None:
    page = "```python\nx = 1\n``` Reads under a\nreplica...\n"
    assert unbalanced_fences(page) == [
        "line 3: '``` Reads under a' has text after the fence, so it does not close the block "
        "opened at line 1",
        "line 1: the code block opened here is never closed",
    ]


def test_nested_longer_fences_and_tildes_balance() -> None:
    page = "````markdown\n```python\nx\n```\n````\n~~~\ny\n~~~\n"
    assert unbalanced_fences(page) == []
