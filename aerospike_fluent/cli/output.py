"""Where the command line writes: records on stdout, messages and progress on stderr."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any, NoReturn

import click
from rich.console import Console

INTERRUPTED = 130
"""The exit code after Ctrl-C (128 + SIGINT, as shells report it)."""

stdout = Console(soft_wrap=False)
stderr = Console(stderr=True, soft_wrap=True)


def fail(message: str) -> NoReturn:
    """Stop the command: ``message`` on stderr, exit code 1."""
    raise click.ClickException(message)


def note(message: str) -> None:
    """Tell the user something on stderr (never mixed into the records on stdout)."""
    stderr.print(message, markup=False, highlight=False)


def plain(value: object) -> Any:
    """``value`` as JSON can hold it: bytes in base64, map keys as text, other types as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return str(value)


def to_json(value: object) -> str:
    """One line of JSON (see :func:`plain`)."""
    return json.dumps(plain(value), ensure_ascii=False)


def cell(value: object, width: int = 60) -> str:
    """Show a value in a cell: text as is, bytes in hex, the rest as JSON; cut at ``width``."""
    if value is None:
        text = ""
    elif isinstance(value, str):
        text = value
    elif isinstance(value, bytes | bytearray):
        text = "0x" + bytes(value).hex()
    else:
        text = to_json(value)
    return text if len(text) <= width else text[: width - 1] + "…"
