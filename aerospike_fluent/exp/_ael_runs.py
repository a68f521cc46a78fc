"""Operands joined by the operators of one precedence level, built in time linear in their number.

``a and b and c`` is one ``and`` node of three operands. Extending a node one operand at a time
copies its operands each time (quadratic in a long chain); a :class:`Run` collects the operands
of consecutive equal operators and builds their node once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from aerospike_fluent.exp._ael_lex import Token
    from aerospike_fluent.exp._core import Exp

Check = Callable[[str, "Exp"], "Exp"]
"""``check(op, operand)``: the operand if ``op`` takes it, else an error."""
Build = Callable[[str, "Exp", list["Exp"]], "Exp"]
"""``build(op, first, rest)``: the node of ``first op rest[0] op rest[1] ...``."""


class Guard(Protocol):
    """What a run needs of the parser: node constructors whose errors point at a token."""

    def guard(self, tok: Token, build: Callable[..., Exp], *args: Any) -> Exp:
        """Run ``build(*args)``; its errors become syntax errors at ``tok``."""


class Run:
    """The expression read so far at one precedence level, and the run of operands pending."""

    __slots__ = ("_build", "_check", "_op", "_parser", "_rest", "_tok", "_value")

    def __init__(self, parser: Guard, first: Exp, check: Check, build: Build) -> None:
        self._parser = parser
        self._value = first
        self._check = check
        self._build = build
        self._op: str | None = None
        self._tok: Token | None = None
        self._rest: list[Exp] = []

    def add(self, op: str, tok: Token, operand: Exp) -> None:
        """Add ``op operand``; ``tok`` is the operator's token (where errors point)."""
        guard = self._parser.guard
        if op != self._op:
            self._flush()
            self._op, self._tok = op, tok
            self._value = guard(tok, self._check, op, self._value)
        self._rest.append(guard(tok, self._check, op, operand))

    def result(self) -> Exp:
        """Return the expression of everything added."""
        self._flush()
        return self._value

    def _flush(self) -> None:
        if self._rest:
            assert self._op is not None and self._tok is not None
            self._value = self._parser.guard(
                self._tok, self._build, self._op, self._value, self._rest
            )
            self._rest = []
