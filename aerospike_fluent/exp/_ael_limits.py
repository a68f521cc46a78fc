"""The bounds of AEL text: beyond them it is refused at once, before any of it is compiled.

Parsing takes time linear in the text; these bounds keep that time small (about 0.1 s on one
core at most, see ``benchmarks/ael_parse.py``) for any text, hostile or not.
"""

from __future__ import annotations

from aerospike_fluent.errors import AelSyntaxError

MAX_TEXT = 100_000
"""Longest AEL text, in characters."""
MAX_TOKENS = 10_000
"""Most tokens (names, numbers, strings, operators, brackets) in one AEL text."""
MAX_NESTING = 64
"""Deepest nesting of parentheses, calls, list and map constants and prefix operators."""
MAX_NUMBER = 400
"""Longest number literal, in characters (a 64-bit integer takes 20)."""


def check_length(text: str) -> None:
    """Refuse text longer than :data:`MAX_TEXT`."""
    if len(text) > MAX_TEXT:
        raise AelSyntaxError(
            f"AEL text is {len(text):,} characters, more than the {MAX_TEXT:,} allowed",
            text,
            MAX_TEXT,
        )


def check_token(text: str, count: int, kind: str, token: str, position: int) -> None:
    """Refuse the ``count``-th token when there are too many, or a number too long."""
    if count > MAX_TOKENS:
        raise AelSyntaxError(
            f"AEL text has more than {MAX_TOKENS:,} tokens (pass long lists as ?0 parameters)",
            text,
            position,
        )
    if kind == "num" and len(token) > MAX_NUMBER:
        raise AelSyntaxError(
            f"number literal of {len(token):,} characters (at most {MAX_NUMBER})",
            text,
            position,
        )
