"""``connect()`` options are checked before anything starts: an unknown name is refused with
the closest known one and the list, a value of the wrong type names the option and its unit."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from aerospike_fluent import errors
from aerospike_fluent.client import _config, _connect_options


@pytest.mark.parametrize(
    ("options", "error", "text"),
    [
        ({"total_timout_ms": 5}, errors.InvalidArgumentError, "did you mean 'total_timeout_ms'"),
        ({"rack_id": 1}, errors.InvalidArgumentError, "unknown connect option 'rack_id'"),
        ({"total_timeout_ms": 0.5}, errors.InvalidTypeError, "whole number (milliseconds)"),
        ({"spin_wait_us": "1"}, errors.InvalidTypeError, "(microseconds)"),
        ({"max_conns_per_node": True}, errors.InvalidTypeError, "max_conns_per_node"),
        ({"metrics": 1}, errors.InvalidTypeError, "True or False"),
        ({"user": 5, "password": "x"}, errors.InvalidTypeError, "user is a str"),
        ({"max_retries": -1}, errors.InvalidArgumentError, "within 0.."),
    ],
)
def test_bad_options_are_named(options: dict[str, Any], error: type[Exception], text: str) -> None:
    with pytest.raises(error) as raised:
        _config("127.0.0.1:3000", options)
    assert text in str(raised.value)
    assert "ClientConfig" not in str(raised.value)


def test_good_options_pass() -> None:
    config = _config("127.0.0.1:3000", {"total_timeout_ms": 500, "metrics": False, "user": None})
    assert "127.0.0.1:3000" in repr(config)


def test_the_documented_options_are_the_accepted_ones() -> None:
    page = Path(__file__).parents[2] / "docs" / "getting-started.md"
    table = page.read_text().split("### Connection options")[1].split("###")[0]
    documented: dict[str, str] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            for name in re.findall(r"`([a-z_]+)`", cells[0]):
                documented[name] = cells[1].strip("`")
    accepted = {**_connect_options(), "auto_batch": False}
    assert sorted(documented) == sorted(accepted)
    for name, default in accepted.items():
        if isinstance(default, int | bool):
            assert documented[name] == str(default), name
