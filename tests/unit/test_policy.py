"""Every option at its default means no policy at all; any one set means a policy is built."""

from __future__ import annotations

from datetime import timedelta

import pytest

from aerospike_fluent import _policy

DEFAULTS: tuple[object, ...] = (None, None, 0, None, None, None, None)
SET = {
    "ttl": (0, 60, timedelta(seconds=1), -1),
    "generation": (0, 3),
    "exists": (1, 4),
    "send_key": (True, False),
    "durable": (True, False),
    "filter": ((),),
    "lim": ((100, None, None, None), (None, None, None, False)),
}


def test_all_defaults_are_default() -> None:
    assert _policy.is_default(*DEFAULTS)
    assert _policy.build() is None
    assert _policy.build(operate=True) is _policy.operate_default()


@pytest.mark.parametrize(
    ("position", "value"),
    [(i, v) for i, values in enumerate(SET.values()) for v in values],
)
def test_any_option_set_is_not_default(position: int, value: object) -> None:
    options: list[object] = list(DEFAULTS)
    options[position] = value
    assert not _policy.is_default(*options)


def test_an_explicit_false_is_an_option() -> None:
    # it overrides a client-wide send_key=True / durable_delete=True, so it needs a policy
    assert not _policy.is_default(None, None, 0, False, None, None, None)
    assert not _policy.is_default(None, None, 0, None, False, None, None)
    assert _policy.limits(None, None, None, None) is None
    assert _policy.limits(None, None, None, False) == (None, None, None, False)
