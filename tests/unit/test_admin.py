"""Privileges as ``db.admin`` takes them: the names agree with the native check, and a bad one
is refused when it is built, naming what was wrong."""

from __future__ import annotations

import pytest

from aerospike_fluent import _native, errors
from aerospike_fluent.admin import GLOBAL_CODES, PRIVILEGE_CODES, Privilege


def test_the_privilege_names_are_the_native_ones() -> None:
    assert list(PRIVILEGE_CODES) == _native.PRIVILEGE_NAMES
    assert {"user-admin", "sys-admin", "data-admin", "udf-admin", "sindex-admin"} == GLOBAL_CODES


def test_an_unknown_privilege_names_the_closest_and_all() -> None:
    with pytest.raises(errors.InvalidArgumentError) as caught:
        Privilege("read-wirte")  # type: ignore[arg-type]
    assert "did you mean 'read-write'" in str(caught.value)
    assert "'truncate'" in str(caught.value)


def test_scopes_are_checked() -> None:
    assert Privilege("read", "test", "s") == Privilege("read", "test", "s")
    with pytest.raises(errors.InvalidArgumentError, match="'user-admin' is global"):
        Privilege("user-admin", "test")
    with pytest.raises(errors.InvalidArgumentError, match="a set needs its namespace"):
        Privilege("write", set="s")
    with pytest.raises(errors.InvalidTypeError, match="namespace must be a str"):
        Privilege("write", 3)  # type: ignore[arg-type]
