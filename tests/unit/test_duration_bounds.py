"""Durations too large to scale into milliseconds are ``InvalidArgumentError``s (issue 55).

``.timeout(1.7976931348623157e308)`` raised ``OverflowError`` (the value times 1000 is infinite);
so did connect options, policies, config files and transaction timeouts."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import _validate
from aerospike_fluent._exec import Sync
from aerospike_fluent._options import prepare
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.scopes import RecordSet
from aerospike_fluent.transaction import Retry, _seconds

HUGE = 1.7976931348623157e308


@pytest.mark.parametrize("seconds", [HUGE, 1e300, 10**400, timedelta.max])
def test_huge_timeouts_are_invalid_arguments(users: RecordSet[Sync], seconds: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="over the maximum"):
        users.key("k").timeout(seconds)
    with pytest.raises(InvalidArgumentError, match="socket_timeout"):
        users.key("k").timeout(1, socket=seconds)
    with pytest.raises(InvalidArgumentError, match="total_timeout"):
        af.Policy(total_timeout=seconds)
    with pytest.raises(InvalidArgumentError, match="retry_pause"):
        af.Limits(retry_pause=seconds)


@pytest.mark.parametrize("name", ["total_timeout", "connect_timeout", "spin_wait", "tend_interval"])
@pytest.mark.parametrize("seconds", [HUGE, 10**400])
def test_huge_connect_durations_are_invalid_arguments(name: str, seconds: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="over the maximum"):
        prepare("127.0.0.1:3000", {name: seconds}, stacklevel=1)


def test_huge_durations_in_a_config_file_are_invalid_arguments(tmp_path: Path) -> None:
    path = tmp_path / "aerospike.toml"
    path.write_text(f"[connection]\nidle_timeout = {HUGE!r}\n")
    with pytest.raises(InvalidArgumentError, match="idle_timeout"):
        prepare("127.0.0.1:3000", {"config": str(path)}, stacklevel=1)
    path.write_text(f"[policy]\ntotal_timeout = {HUGE!r}\n")
    with pytest.raises(InvalidArgumentError, match="total_timeout"):
        prepare("127.0.0.1:3000", {"config": str(path)}, stacklevel=1)


@pytest.mark.parametrize("seconds", [HUGE, float("nan"), float("inf"), 2**32, 10**400])
def test_hostile_transaction_timeouts_are_invalid_arguments(seconds: float) -> None:
    with pytest.raises(InvalidArgumentError, match="transaction timeout"):
        _seconds(seconds)


def test_the_largest_durations_still_pass() -> None:
    assert _validate.millis("timeout", 0xFFFF_FFFF // 1000) == 0xFFFF_FFFF // 1000 * 1000
    assert prepare("127.0.0.1:3000", {"idle_timeout": 4_000_000}, stacklevel=1)


@pytest.mark.parametrize("seconds", [HUGE, float("nan"), float("inf"), 10**400, -1])
def test_hostile_transaction_backoffs_are_invalid_arguments(seconds: float) -> None:
    with pytest.raises(InvalidArgumentError, match="backoff"):
        Retry(3, seconds, 1.0)
    with pytest.raises(InvalidArgumentError, match="max_backoff"):
        Retry(3, 0.01, seconds)


def test_a_long_run_of_attempts_keeps_its_pause_within_the_cap() -> None:
    assert 0 <= Retry(10**6, 0.01, 2.0).pause(5000) <= 2.0


def test_with_policy_options_refuse_huge_durations() -> None:
    with pytest.raises(InvalidArgumentError, match="total_timeout"):
        af.Policy.from_mapping({"total_timeout": HUGE}, where="with_policy option")
