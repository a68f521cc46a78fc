"""Every duration follows one rule: 0 means no limit, and a positive duration shorter than the
unit it is sent in (1 ms; 1 µs for ``spin_wait``) is refused, never rounded to 0."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent._options import prepare
from aerospike_fluent.scopes import RecordSet

TOO_SHORT = (0.0004, timedelta(microseconds=400))


def _refused(make: Callable[[], object], name: str) -> None:
    with pytest.raises(errors.InvalidArgumentError, match=f"{name}=.* is below 1 ms"):
        make()


@pytest.mark.parametrize("short", TOO_SHORT, ids=["float", "timedelta"])
def test_a_policy_refuses_a_duration_under_a_millisecond(short: Any) -> None:
    _refused(lambda: af.Policy(total_timeout=short), "total_timeout")
    _refused(lambda: af.Policy(socket_timeout=short), "socket_timeout")
    _refused(lambda: af.Policy(retry_pause=short), "retry_pause")
    _refused(lambda: af.Policy(read={"total_timeout": short}), "total_timeout")
    _refused(lambda: af.Limits(socket_timeout=short), "socket_timeout")
    _refused(lambda: af.Policy().derive(total_timeout=short), "total_timeout")
    _refused(lambda: af.Policy.from_mapping({"total_timeout": short}), "total_timeout")


@pytest.mark.parametrize("short", TOO_SHORT, ids=["float", "timedelta"])
def test_a_chain_timeout_refuses_a_duration_under_a_millisecond(
    users: RecordSet[Any], short: Any
) -> None:
    _refused(lambda: users.key("k").timeout(short, retries=0), "timeout")
    _refused(lambda: users.key("k").timeout(socket=short), "socket_timeout")
    _refused(lambda: users.keys(["a"]).timeout(short), "timeout")
    _refused(lambda: users.query().timeout(short), "timeout")
    _refused(lambda: users.put_many({"a": {"n": 1}}, timeout=short), "timeout")


def _connect(**options: Any) -> object:
    return prepare("127.0.0.1:3000", options, stacklevel=1)


def test_connect_refuses_it() -> None:
    _refused(lambda: _connect(total_timeout=0.0004), "total_timeout")
    _refused(lambda: _connect(socket_timeout=0.0004), "socket_timeout")
    _refused(lambda: _connect(connect_timeout=0.0004), "connect_timeout")
    _refused(lambda: _connect(policy={"query": {"total_timeout": 0.0004}}), "total_timeout")
    _refused(lambda: _connect(profiles={"p": {"total_timeout": 0.0004}}), "total_timeout")


@pytest.mark.parametrize(
    ("table", "name"),
    [
        ("policy", "total_timeout"),
        ("profiles.fast", "socket_timeout"),
        ("connection", "idle_timeout"),
    ],
)
def test_the_config_file_refuses_it(tmp_path: Path, table: str, name: str) -> None:
    path = tmp_path / "aerospike.toml"
    path.write_text(f"[{table}]\n{name} = 0.0004\n")
    _refused(lambda: _connect(config=path), name)


def test_a_transaction_timeout_refuses_a_fraction_of_a_second() -> None:
    from aerospike_fluent.transaction import _seconds

    with pytest.raises(errors.InvalidArgumentError, match="whole seconds"):
        _seconds(0.0004)


@pytest.mark.parametrize(
    ("value", "ms"), [(0, 0), (0.001, 1), (0.0015, 2), (timedelta(milliseconds=7), 7), (2, 2000)]
)
def test_zero_and_whole_milliseconds_pass(value: Any, ms: int) -> None:
    assert af.Policy(total_timeout=value).resolved().read._native()[0] == ms  # type: ignore[union-attr]
