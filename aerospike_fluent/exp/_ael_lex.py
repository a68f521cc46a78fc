"""AEL tokens, names and quoting shared by the parser and the renderer."""

from __future__ import annotations

import re

from aerospike_fluent.errors import AelSyntaxError
from aerospike_fluent.exp._ael_limits import check_length, check_token

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<num>0[xX][0-9a-fA-F]+|0[bB][01]+|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<var>\$\{[A-Za-z_][A-Za-z0-9_]*\})
  | (?P<param>\?[A-Za-z0-9_]+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*|==|!=|<=|>=|=>|&&|\|\||<<|>>>|>>|[<>+\-*/%(),:.$!\[\]{}&|^~#=])
""",
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}

TYPES = {
    "INT": "int",
    "FLOAT": "float",
    "STRING": "str",
    "BOOL": "bool",
    "BLOB": "blob",
    "LIST": "list",
    "MAP": "map",
    "GEO": "geo",
    "HLL": "hll",
}
AEL_TYPE = {v: k for k, v in TYPES.items()}
RETURNS = {
    "NONE": 0,
    "INDEX": 1,
    "REVERSE_INDEX": 2,
    "RANK": 3,
    "REVERSE_RANK": 4,
    "COUNT": 5,
    "KEY": 6,
    "VALUE": 7,
    "KEY_VALUE": 8,
    "EXISTS": 13,
    "UNORDERED_MAP": 16,
    "ORDERED_MAP": 17,
}
AEL_RETURN = {v: k for k, v in RETURNS.items()}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
KEYWORDS = frozenset({"and", "or", "not", "true", "false", "in", "let", "then", "when", "default"})

Token = tuple[str, str, int]  # kind, text, position


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens, ending with an ``end`` token; refuse text out of bounds."""
    check_length(text)
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise AelSyntaxError(f"unexpected character {text[pos]!r}", text, pos)
        kind = m.lastgroup or ""
        if kind != "ws":
            token = m.group()
            check_token(text, len(tokens) + 1, kind, token, pos)
            tokens.append((kind, token, pos))
        pos = m.end()
    tokens.append(("end", "", len(text)))
    return tokens


def unquote(text: str) -> str:
    """Return the string a quoted token stands for."""
    body = text[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def quote(s: str) -> str:
    """Write ``s`` as a single-quoted AEL string."""
    escaped = s.replace("\\", "\\\\").replace("'", "\\'")
    escaped = escaped.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return f"'{escaped}'"


def int_text(text: str) -> int:
    """Return the value of an integer token (decimal, ``0x`` or ``0b``)."""
    low = text.lower()
    if low.startswith("0x"):
        return int(low[2:], 16)
    if low.startswith("0b"):
        return int(low[2:], 2)
    return int(text)


def is_float_text(text: str) -> bool:
    """Tell whether a number token is a float."""
    low = text.lower()
    return not low.startswith(("0x", "0b")) and any(c in low for c in ".e")


def name_text(name: str) -> str:
    """Write a bin name or map key: bare when it is an identifier, else quoted."""
    return name if IDENT.match(name) and name.lower() not in KEYWORDS else quote(name)
