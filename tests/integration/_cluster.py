"""Helpers of the tests that run on a 3-node embedded cluster."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

PARTITIONS = 4096

ON_EMBEDDED_CLUSTER = [
    pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="embedded cluster"),
    pytest.mark.timeout(90),
]
"""``pytestmark`` of a module that starts embedded clusters of its own."""


def settle(check: Callable[[], bool], within: float = 15.0) -> bool:
    """Whether ``check()`` holds within ``within`` seconds (the cluster moves in tends)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.1)
    return check()
