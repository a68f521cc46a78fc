"""What clients nobody here wrote send (the Rust crate 1.x/2.x and the packages built on it),
answered as a real 8.1.2 node answers (issue 56)."""

from __future__ import annotations

from typing import Any

import aerospike
import pytest

from . import _replay

pytestmark = pytest.mark.compat

# Expression `$.a == 1`: [EQ, [BIN, INT, "a"], 1] packed.
A_EQUALS_1 = bytes([0x93, 0x01, 0x93, 0x51, 0x02, 0xA1]) + b"a" + bytes([0x01])


def test_a_batch_whose_length_counts_the_filter_field_is_served(
    server_address: tuple[str, int], client: Any, set_name: str
) -> None:
    client.put(("test", set_name, "passes"), {"a": 1})
    client.put(("test", set_name, "filtered"), {"a": 2})
    digests = [aerospike.calc_digest("test", set_name, k) for k in ("absent", "filtered", "passes")]
    request = _replay.crate_batch_with_filter("test", digests, A_EQUALS_1)

    replies = _replay.exchange(server_address, request)

    rows = {r.slot: r.result_code for r in replies[:-1]}
    assert rows == {0: 2, 1: 27, 2: 0}  # not found, filtered out, read
    assert replies[-1].info3 & _replay.INFO3_LAST and replies[-1].result_code == 0

