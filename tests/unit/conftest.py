"""Unit-test fixtures: builders over a recording executor."""

from __future__ import annotations

import pytest

from aerospike_fluent._exec import Sync
from aerospike_fluent.scopes import Namespace, RecordSet

from .recorder import Recorder


@pytest.fixture
def rec() -> Recorder:
    return Recorder()


@pytest.fixture
def ns(rec: Recorder) -> Namespace[Sync]:
    return Namespace(rec, "test")


@pytest.fixture
def users(ns: Namespace[Sync]) -> RecordSet[Sync]:
    return ns.set("users")
