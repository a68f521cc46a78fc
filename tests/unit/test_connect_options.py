"""``connect()`` options are checked before anything starts: an unknown name is refused with
the closest known one, a value of the wrong type names the option and its unit, durations are
seconds (the older millisecond names warn), and the documented table is the accepted set."""

from __future__ import annotations

import re
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from aerospike_fluent import errors
from aerospike_fluent._options import DURATIONS, POLICY_SHORTHANDS, config, prepare, public_options
from aerospike_fluent.policy import Policy


def _prepare(options: dict[str, Any]) -> Any:
    return prepare("127.0.0.1:3000", options, stacklevel=1)


@pytest.mark.parametrize(
    ("options", "error", "text"),
    [
        ({"total_timout": 5}, errors.InvalidArgumentError, "did you mean 'total_timeout'"),
        ({"rack_idz": 1}, errors.InvalidArgumentError, "did you mean 'rack_id'"),
        ({"rack_id": 1, "rack_ids": [2]}, errors.InvalidArgumentError, "not both"),
        ({"rack_ids": []}, errors.InvalidArgumentError, "rack_ids is empty"),
        ({"rack_ids": "1"}, errors.InvalidTypeError, "list of whole numbers"),
        ({"policy": 5}, errors.InvalidTypeError, "af.Policy or a mapping"),
        ({"policy": {"sendkey": True}}, errors.InvalidArgumentError, "did you mean 'send_key'"),
        ({"profiles": {"fast": {"replica": "nearest"}}}, errors.InvalidArgumentError, "replica"),
        ({"total_timeout": "1"}, errors.InvalidTypeError, "seconds or a timedelta"),
        ({"total_timeout": -1}, errors.InvalidArgumentError, "finite number of seconds"),
        ({"total_timeout": float("nan")}, errors.InvalidArgumentError, "finite number"),
        ({"total_timeout": 0.0001}, errors.InvalidArgumentError, "below 1 ms"),
        ({"spin_wait": 5e-8}, errors.InvalidArgumentError, "below 1 µs"),
        ({"tend_interval": 2**32}, errors.InvalidArgumentError, "over the maximum"),
        ({"total_timeout": 1, "total_timeout_ms": 5}, errors.InvalidArgumentError, "not both"),
    ],
)
def test_bad_public_options_are_named(
    options: dict[str, Any], error: type[Exception], text: str
) -> None:
    with pytest.raises(error) as raised:
        _prepare(options)
    assert text in str(raised.value)


@pytest.mark.parametrize(
    ("options", "error", "text"),
    [
        ({"total_timeout_ms": 0.5}, errors.InvalidTypeError, "whole number (milliseconds)"),
        ({"spin_wait_us": "1"}, errors.InvalidTypeError, "(microseconds)"),
        ({"max_conns_per_node": True}, errors.InvalidTypeError, "max_conns_per_node"),
        ({"metrics": 1}, errors.InvalidTypeError, "True or False"),
        ({"user": 5, "password": "x"}, errors.InvalidTypeError, "user is a str"),
        ({"max_retries": -1}, errors.InvalidArgumentError, "within 0.."),
        ({"max_error_rate": -1}, errors.InvalidArgumentError, "max_error_rate must be within"),
        ({"max_error_rate": 1.5}, errors.InvalidTypeError, "max_error_rate takes a whole"),
        ({"error_rate_window": "2"}, errors.InvalidTypeError, "error_rate_window takes a whole"),
        ({"error_rate_window": 0}, errors.InvalidArgumentError, "error_rate_window counts tend"),
    ],
)
def test_bad_native_values_are_named(
    options: dict[str, Any], error: type[Exception], text: str
) -> None:
    with pytest.raises(error) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        config("127.0.0.1:3000", _prepare(options))
    assert text in str(raised.value)
    assert "ClientConfig" not in str(raised.value)


def test_durations_are_seconds_or_timedeltas() -> None:
    prepared = _prepare(
        {
            "total_timeout": 0.5,
            "connect_timeout": timedelta(seconds=2),
            "socket_timeout": 0,
            "spin_wait": 0.0002,
            "max_retries": 1,
        }
    )
    assert prepared.native == {"connect_timeout_ms": 2000, "spin_wait_us": 200}
    assert prepared.policy == Policy(total_timeout=0.5, socket_timeout=0, max_retries=1)
    config("127.0.0.1:3000", prepared)


def test_the_timeout_shorthands_win_over_the_policy_they_sit_beside() -> None:
    prepared = _prepare({"total_timeout": 2, "policy": Policy(total_timeout=9, send_key=True)})
    assert prepared.policy == Policy(total_timeout=2, send_key=True)
    assert set(POLICY_SHORTHANDS) <= set(public_options())


def test_millisecond_names_still_work_and_name_their_replacement() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prepared = _prepare({"total_timeout_ms": 1500, "tend_interval_ms": 500})
    assert prepared.policy == Policy(total_timeout=1.5)
    assert prepared.native == {"tend_interval_ms": 500}
    warning = caught[0]
    assert warning.category is DeprecationWarning
    assert "use total_timeout in seconds (e.g. total_timeout=1.5)" in str(warning.message)


def test_the_documented_options_are_the_accepted_ones() -> None:
    page = Path(__file__).parents[2] / "docs" / "getting-started.md"
    table = page.read_text().split("### Connection options")[1].split("###")[0]
    documented: dict[str, str] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            for name in re.findall(r"`([a-z_]+)`", cells[0]):
                documented[name] = cells[1].strip("`")
    accepted = public_options()
    assert sorted(documented) == sorted(accepted)
    for name, default in accepted.items():
        if name in DURATIONS or name in ("total_timeout", "socket_timeout"):
            assert float(documented[name]) == default, name
        elif isinstance(default, int | bool):
            assert documented[name] == str(default), name
