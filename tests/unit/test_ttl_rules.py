"""TTLs a server would misread (wire sentinels) or refuse (over 10 years) are refused (issue 55)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import _validate
from aerospike_fluent._exec import Sync
from aerospike_fluent.batch import Batch
from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.scopes import RecordSet

from .recorder import Recorder


@pytest.mark.parametrize(
    "ttl",
    [0xFFFF_FFFF, 0xFFFF_FFFE, 0xFFFF_FFFD, 315_360_001, 4_000_000_000, -3, 2**64],
)
def test_ttls_a_server_would_misread_or_refuse_are_named(
    users: RecordSet[Sync], rec: Recorder, ttl: int
) -> None:
    key = users.key("k")
    calls: list[Any] = [
        lambda: key.put({"a": 1}, ttl=ttl),
        lambda: key.touch(ttl=ttl),
        lambda: key.add("a", 1).execute(ttl=ttl),
        lambda: users.keys(["k"]).put({"a": 1}, ttl=ttl),
        lambda: users.put_many({"k": {"a": 1}}, ttl=ttl),
        lambda: Batch(rec).put(key, {"a": 1}, ttl=ttl),
        lambda: key.put({"a": 1}, ttl=timedelta(seconds=min(ttl, 10**12))),
        lambda: af.Policy(ttl=ttl),
    ]
    for call in calls:
        with pytest.raises(InvalidArgumentError) as info:
            call()
        message = str(info.value)
        assert "af.NEVER_EXPIRE" in message and "af.KEEP_TTL" in message
        assert "315360000" in message
    assert rec.calls == []


def test_the_named_ttls_and_the_limit_still_pass(users: RecordSet[Sync], rec: Recorder) -> None:
    for ttl in (af.NEVER_EXPIRE, af.KEEP_TTL, 0, 1, _validate.TTL_MAX):
        users.key("k").put({"a": 1}, ttl=ttl)
        af.Policy(ttl=ttl)
    assert len(rec.calls) == 5
    assert af.Policy(ttl="never").ttl == "never"
