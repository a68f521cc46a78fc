"""Refused input raises an ``AerospikeError`` subclass, never a plain Python error (issue 55).

Generated AEL text (random characters, and long runs of brackets, operators and digits), TTLs,
bin names and durations go through the checks a call runs before sending anything.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from unit.recorder import Recorder

import aerospike_fluent as af
from aerospike_fluent import F, _validate
from aerospike_fluent._options import prepare
from aerospike_fluent.errors import AerospikeError
from aerospike_fluent.exp import Exp
from aerospike_fluent.scopes import RecordSet
from aerospike_fluent.transaction import _seconds

_AEL_PIECES = [
    "$.a", "$.m.", "$.l.[", "[", "]", "{", "}", "(", ")", ",", ":", "'x'", '"', "'", "?0",
    "${v}", "9", "0x", "0b", "1.5e", ".", "-", "+", "*", "/", "%", "**", "~", "!", "&", "|",
    "^", "<<", ">>>", "==", "<", ">=", "=>", "#", "=", " and ", " or ", "not ", " in ", "let(",
    "then", "when(", "default", "abs(", "regex(", "x'0f'", "true", "$.a.get(type: INT)",
    "list.append(", "bits.count(", "\x00", "\u00e9", "\ud800", " ",
]  # fmt: skip
_RUNS = st.builds(
    lambda piece, n: piece * n,
    st.sampled_from(["[", "{", "(", "-", "~", "not ", "9", "$.m.a", "+ 1", " and $.a", "[1,"]),
    st.integers(min_value=0, max_value=5000),
)
_AEL = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(_AEL_PIECES), max_size=40).map("".join),
    st.tuples(st.sampled_from(["$.a == ", "$.a in ", ""]), _RUNS).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(_AEL)
def test_ael_text_parses_or_raises_a_typed_error(text: str) -> None:
    try:
        parsed = F.parse(text, 1)
    except AerospikeError:
        return
    assert isinstance(parsed, Exp)
    try:
        compiled = parsed.compile()
    except AerospikeError:
        return
    assert isinstance(compiled, tuple) and compiled


TEN_YEARS = 315_360_000
"""The longest TTL a server takes (a longer one is a ParameterError)."""

_INTS = st.one_of(
    st.integers(min_value=-5, max_value=5),
    st.integers(min_value=315_359_990, max_value=315_360_010),
    st.integers(min_value=0xFFFF_FFF0, max_value=0x1_0000_0010),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.sampled_from([10**5000, -(10**5000)]),  # too long for Python to print
)
_TTLS = st.one_of(
    _INTS,
    _INTS.map(lambda s: timedelta(seconds=s) if abs(s) < 10**13 else timedelta.max),
    st.floats(),
    st.sampled_from([None, True, "never", "keep", "10", timedelta(microseconds=1)]),
)


@settings(max_examples=400, deadline=None)
@given(_TTLS)
def test_ttls_are_in_range_or_refused_with_a_typed_error(ttl: Any) -> None:
    rec = Recorder()
    key = RecordSet(rec, "test", "users").key("k")
    try:
        key.put({"a": 1}, ttl=ttl)
    except AerospikeError:
        assert rec.calls == []
        return
    checked = _validate.ttl(ttl)
    assert checked is None or af.KEEP_TTL <= checked <= TEN_YEARS  # never a wire sentinel


_NAMES = st.one_of(
    st.text(max_size=20),
    st.text(alphabet=st.sampled_from("ab\x00\u00e9\ud800"), max_size=17),
    st.sampled_from([b"a", 1, None, "a" * 15, "a" * 16, "\u00e9" * 8]),
)


@settings(max_examples=400, deadline=None)
@given(_NAMES)
def test_bin_names_are_valid_or_refused_with_a_typed_error(name: Any) -> None:
    rec = Recorder()
    key = RecordSet(rec, "test", "users").key("k")
    for call in (lambda: key.put({name: 1}), lambda: key.get(name), lambda: F.bin(name)):
        try:
            call()
        except AerospikeError:
            continue
        assert isinstance(name, str) and "\x00" not in name
        assert 1 <= len(name.encode()) <= _validate.BIN_MAX


_DURATIONS = st.one_of(
    st.floats(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([1.7976931348623157e308, 10**400, 10**5000, timedelta.max, "1", True]),
    st.timedeltas(),
)


@settings(max_examples=300, deadline=None)
@given(_DURATIONS)
def test_durations_are_taken_or_refused_with_a_typed_error(seconds: Any) -> None:
    key = RecordSet(Recorder(), "test", "users").key("k")
    attempts = (
        lambda: key.timeout(seconds),
        lambda: key.timeout(1, socket=seconds),
        lambda: af.Policy(total_timeout=seconds),
        lambda: af.Policy(read={"retry_pause": seconds}),
        lambda: prepare("127.0.0.1:3000", {"idle_timeout": seconds}, stacklevel=1),
        lambda: prepare("127.0.0.1:3000", {"total_timeout": seconds}, stacklevel=1),
        lambda: _seconds(seconds),
    )
    for attempt in attempts:
        try:
            attempt()
        except AerospikeError:
            continue
    try:
        ms = _validate.millis("timeout", seconds)
    except AerospikeError:
        return
    assert ms is not None and 0 <= ms <= _validate.MILLIS_MAX
