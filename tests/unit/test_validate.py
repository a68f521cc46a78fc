"""Client-side validation: limits, lone surrogates, deep and cyclic values, timeouts."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aerospike_fluent import F, _native, _validate
from aerospike_fluent._exec import Sync
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.scopes import Namespace, RecordSet

from .recorder import Recorder

LONE = "x\udc80y"


def _nested(depth: int) -> list[Any]:
    v: list[Any] = []
    for _ in range(depth - 1):
        v = [v]
    return v


def test_depth_limit_is_exact() -> None:
    _validate.value("b", _nested(_validate.MAX_DEPTH))
    with pytest.raises(InvalidArgumentError, match=r"bin 'b'.*more than 64 levels"):
        _validate.value("b", _nested(_validate.MAX_DEPTH + 1))


def test_deep_maps_count_too() -> None:
    v: dict[str, Any] = {}
    for _ in range(_validate.MAX_DEPTH):
        v = {"k": v}
    with pytest.raises(InvalidArgumentError, match="levels deep"):
        _validate.value("m", v)


@pytest.mark.parametrize("where", ["list", "dict", "deep"])
def test_cycles_are_named(where: str) -> None:
    loop: Any
    if where == "list":
        loop = [1]
        loop.append(loop)
    elif where == "dict":
        loop = {"a": 1}
        loop["self"] = [loop]
    else:
        inner: list[Any] = []
        loop = {"x": [[inner]]}
        inner.append(loop)
    with pytest.raises(InvalidArgumentError, match=r"bin 'c': the value contains itself"):
        _validate.value("c", loop)


def test_shared_but_acyclic_values_pass() -> None:
    shared = [1, 2]
    _validate.value("s", {"a": shared, "b": [shared, shared]})


@pytest.mark.parametrize(
    "value",
    [LONE, [1, LONE], {"k": LONE}, {LONE: 1}, [{"a": [LONE]}]],
    ids=["str", "in-list", "map-value", "map-key", "nested"],
)
def test_lone_surrogates_in_values(value: object) -> None:
    with pytest.raises(InvalidArgumentError, match=r"bin 'v'.*not encodable as UTF-8"):
        _validate.value("v", value)


def test_lone_surrogates_in_names_and_keys(users: RecordSet[Sync], ns: Namespace[Sync]) -> None:
    with pytest.raises(InvalidArgumentError, match=r"key.*position 1"):
        users.key(LONE)
    with pytest.raises(InvalidArgumentError, match="set name"):
        ns.set(LONE)
    with pytest.raises(InvalidArgumentError, match="bin name"):
        users.key("k").put({LONE: 1})
    with pytest.raises(InvalidArgumentError, match="string literal"):
        F.bin("a") == LONE  # noqa: B015


def test_non_ascii_text_is_fine(users: RecordSet[Sync], rec: Recorder) -> None:
    users.key("clé").put({"名前": "Zoë", "m": {"ключ": ["🙂"]}})
    assert rec.calls[0].args[1] == {"名前": "Zoë", "m": {"ключ": ["🙂"]}}


def test_subclasses_of_plain_types() -> None:
    class Level(IntEnum):
        HIGH = 2**63

    class Label(str):
        pass

    _validate.value("v", [Label("ok"), True, 1.5, b"x", bytearray(b"y")])
    with pytest.raises(InvalidArgumentError, match="64 bits"):
        _validate.value("v", [Level.HIGH])
    with pytest.raises(InvalidArgumentError, match="UTF-8"):
        _validate.value("v", Label(LONE))
    with pytest.raises(InvalidTypeError, match="map key"):
        _validate.value("v", {1.5: 1})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_timeouts(users: RecordSet[Sync], bad: float) -> None:
    with pytest.raises(InvalidArgumentError, match="finite"):
        users.key("k").timeout(bad)
    with pytest.raises(InvalidArgumentError, match="socket_timeout"):
        users.key("k").timeout(socket=bad)


def test_timeout_upper_bound() -> None:
    assert _validate.millis("timeout", 0xFFFF_FFFF / 1000) == 0xFFFF_FFFF
    with pytest.raises(InvalidArgumentError, match="over the maximum"):
        _validate.millis("timeout", 0xFFFF_FFFF / 1000 + 0.001)


# scalars across the edges the checks look at: 64-bit bounds, lone surrogates, other types
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=True)
    | st.text(max_size=4)
    | st.binary(max_size=4)
    | st.sampled_from([LONE, (1,), 1.5j, _native.INFINITY, bytearray(b"x")])
)
_MAP_KEYS = (
    st.text(max_size=3)
    | st.integers(-(2**64), 2**64)
    | st.binary(max_size=2)
    | st.floats()
    | st.booleans()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_MAP_KEYS, inner),
    max_leaves=12,
)
_NAMES = st.text(max_size=17) | st.sampled_from([LONE, 1, b"b", "é" * 8])


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_NAMES, _VALUES, max_size=3))
def test_the_native_fast_path_never_vouches_for_what_python_rejects(bins: dict[Any, Any]) -> None:
    # the native pass leaves NUL in bin names to Python, which looks for it next
    vouched = _native.bins_ok(bins) and "\0" not in "".join(bins)
    saved = _validate._bins_ok
    _validate._bins_ok = lambda values: False  # the Python checks alone
    try:
        _validate.bins(bins)
        accepted = True
    except InvalidArgumentError:
        accepted = False
    finally:
        _validate._bins_ok = saved
    assert accepted or not vouched
    for v in bins.values():
        if _native.value_ok(v):
            _validate._walk("v", v, v, 0)  # the Python walk agrees: raises nothing


def test_the_native_fast_path_takes_the_common_shapes() -> None:
    assert _native.bins_ok({"name": "Ann", "age": 30, "score": 1.5, "raw": b"x", "ok": True})
    assert _native.bins_ok({"tags": ["a", 1, None], "m": {"k": [1, {2: b"v"}]}})
    assert _native.value_ok(_nested(_validate.MAX_DEPTH))
    assert not _native.value_ok(_nested(_validate.MAX_DEPTH + 1))
    assert not _native.bins_ok({})
    assert not _native.bins_ok({"a" * 16: 1})


_USER_KEYS = st.lists(
    st.text(max_size=3)
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.binary(max_size=2)
    | st.sampled_from([LONE, True, 1.5, None, bytearray(b"k"), (1,)]),
    max_size=5,
)


@settings(max_examples=400, deadline=None)
@given(_USER_KEYS, st.booleans())
def test_native_key_tuples_are_the_python_ones_or_none(keys: list[Any], as_tuple: bool) -> None:
    users = RecordSet(Recorder(), "test", "users")
    given_keys = tuple(keys) if as_tuple else keys
    made = _native.key_tuples("test", "users", given_keys)
    try:
        expected = tuple(users._key(k) for k in keys)
    except (InvalidArgumentError, InvalidTypeError):
        assert made is None  # never vouches for a key Python rejects
        return
    if made is not None:
        assert made == expected
        assert all(m[2] is e[2] for m, e in zip(made, expected, strict=True))
    assert users.keys(given_keys).keys == expected


def test_native_key_tuples_take_plain_keys_and_leave_the_rest() -> None:
    assert _native.key_tuples("test", "s", ["a", 1, b"b"]) == (
        ("test", "s", "a", None),
        ("test", "s", 1, None),
        ("test", "s", b"b", None),
    )
    assert _native.key_tuples("test", "s", []) == ()
    assert _native.key_tuples("test", "s", ["a", LONE]) is None
    assert _native.key_tuples("test", "s", [2**63]) is None
    assert _native.key_tuples("test", "s", [True]) is None
    assert _native.key_tuples("test", "s", iter(["a"])) is None  # only lists and tuples


def test_an_unsupported_scalar_is_named_by_its_type(users: RecordSet[Sync]) -> None:
    np = pytest.importorskip("numpy")
    k = users.key("k")
    with pytest.raises(InvalidTypeError, match=r"add needs an int or float, not numpy\.bool$"):
        k.bin("n").add(np.bool_(True))
    with pytest.raises(InvalidTypeError, match=r"^a list or map value: .* numpy\.bool$"):
        k.bin("l").list.append(np.bool_(True))
    with pytest.raises(InvalidTypeError, match=r"^bin 'b': .* type numpy\.float16$"):
        k.put({"b": np.float16(1)})
