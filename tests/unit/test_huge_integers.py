"""Integers too long for Python to print are refused with a typed error (issue 55).

Python refuses to turn an int of more than 4,300 digits into text, so an error message that
printed one raised ``ValueError`` in its place; messages now give such a number's size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import F, _validate
from aerospike_fluent._exec import Sync
from aerospike_fluent._options import prepare
from aerospike_fluent.errors import AerospikeError
from aerospike_fluent.scopes import RecordSet
from aerospike_fluent.transaction import _seconds

HUGE = 10**5000


def _calls(users: RecordSet[Sync], n: int) -> dict[str, Callable[[], Any]]:
    key = users.key("k")
    return {
        "F.val": lambda: F.val(n),
        "expression operand": lambda: F.bin("a") + n,
        "AEL parameter": lambda: F.parse("$.a == ?0", n),
        "bin value": lambda: key.put({"n": n}),
        "nested value": lambda: key.put({"n": [{"k": n}]}),
        "user key": lambda: users.key(n),
        "ttl": lambda: key.put({"n": 1}, ttl=n),
        "generation": lambda: key.put({"n": 1}, generation=n),
        "timeout": lambda: key.timeout(n),
        "policy timeout": lambda: af.Policy(total_timeout=n),
        "policy ttl": lambda: af.Policy(ttl=n),
        "connect duration": lambda: prepare("h:3000", {"idle_timeout": n}, stacklevel=1),
        "connect count": lambda: prepare("h:3000", {"max_conns_per_node": n}, stacklevel=1),
        "deprecated ms": lambda: prepare("h:3000", {"total_timeout_ms": n}, stacklevel=1),
        "transaction timeout": lambda: _seconds(n),
    }


@pytest.mark.parametrize("n", [HUGE, -HUGE], ids=["positive", "negative"])
def test_huge_integers_are_typed_errors_everywhere(users: RecordSet[Sync], n: int) -> None:
    for what, call in _calls(users, n).items():
        with pytest.raises(AerospikeError) as info:
            call()
        assert len(str(info.value)) < 300, what  # the size of the number, not its digits


def test_integers_that_print_are_printed_in_full() -> None:
    assert _validate.shown(2**70) == "1180591620717411303424"
    assert _validate.shown(-(2**127)) == str(-(2**127))
    assert _validate.shown(2**128) == "<an integer of about 39 digits>"
    assert _validate.shown(-HUGE) == "-<an integer of about 5,001 digits>"
