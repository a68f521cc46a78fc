"""Batch rows that run a chain's ops go over the SDK's own connections: the request is byte for
byte the crate's for the same rows (read rows, write rows, repeated headers), and each row's
outcome (record, results, missing record, refusal) is what the crate's batch gives.

One difference is meant: a chain's row answered with no values (a lone ``read_header``) has an
empty ``results`` list, as an operate has; the crate's batch gives ``None`` there when the batch
has several rows (and the empty list for a batch of one)."""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from aerospike_fluent import _native as n

from ._recorder import CRATE, ClientPair, recording, without_timeout

_RUN = uuid.uuid4().hex[:8]
_ids = itertools.count()

pytestmark = pytest.mark.skipif(bool(os.environ.get(CRATE)), reason="the wire path is off")

READS: list[list[Any]] = [
    [("read", "a")],
    [("read_all", None)],
    [("read_header", None)],
    [("read", "a"), ("read", "s")],
    [("list_size", "l", None), ("read", "a")],
    [("map_get_by_key", "m", None, "k", 7)],
    [("exp_read", "x", ("num_add", ("int_bin", "a"), ("int_val", 1)), 0)],
]
WRITES: list[list[Any]] = [
    [("add", "a", 1), ("read", "a")],
    [("write", "b", "text")],
    [("list_append", "l", None, (0, 0), 5), ("list_size", "l", None)],
    [("map_put", "m", None, (0, 0), "k", 9), ("read_all", None)],
    [("touch", None), ("read_header", None)],
    [("append", "s", "!"), ("read", "s")],
    [("delete", None)],
]


def keys(count: int) -> list[n.Key]:
    run = next(_ids)
    return [("test", "batch_ops", f"b{_RUN}_{run}_{i}", None) for i in range(count)]


class Pair(ClientPair):
    """The two clients, each sending one batch at a time."""

    def sent(self, client: n.Client, rows: list[Any]) -> tuple[bytes, list[n.BatchRow]]:
        self.rec.take()
        out = client.batch_blocking(rows, None)
        sent = self.rec.take()
        assert len(sent) == 1, f"{len(sent)} requests for one batch"
        return sent[0], out


@pytest.fixture(scope="module")
def pair(server_address: tuple[str, int]) -> Iterator[Pair]:
    with recording(server_address) as rec:
        p = Pair(rec, keys(1)[0])
        yield p
        p.close()


def seed(client: n.Client, ks: list[n.Key]) -> None:
    for k in ks:
        client.put_blocking(k, {"a": 1, "s": "x", "l": [1, 2], "m": {"k": 3}}, None)


def outcome(row: n.BatchRow) -> tuple[Any, ...]:
    rec = row.record
    return (
        row.result_code,
        None if rec is None else (rec.bins, rec.results or [], rec.generation),
        None if row.error is None else type(row.error).__name__,
    )


def rows_of(ks: list[n.Key], chains: list[list[Any]]) -> list[Any]:
    return [("write", k, chain, None) for k, chain in zip(ks, itertools.cycle(chains))]


@pytest.mark.parametrize("chain", READS + WRITES, ids=str)
def test_repeated_chain_rows_are_sent_as_the_crate_sends_them(pair: Pair, chain: list[Any]) -> None:
    ks = keys(3)
    seed(pair.wire, ks)
    crate, _ = pair.sent(pair.crate, rows_of(ks, [chain]))
    seed(pair.wire, ks)
    wire, _ = pair.sent(pair.wire, rows_of(ks, [chain]))
    assert without_timeout(wire) == without_timeout(crate)


@pytest.mark.parametrize("chains", [READS, WRITES], ids=["reads", "writes"])
def test_rows_of_different_chains_are_sent_and_answered_as_the_crate_does(
    pair: Pair, chains: list[list[Any]]
) -> None:
    ks = keys(len(chains) + 2)  # the last two have no record
    got = {}
    for name, client in (("crate", pair.crate), ("wire", pair.wire)):
        for k in ks:
            client.delete_blocking(k, None)
        seed(client, ks[:-2])
        got[name] = pair.sent(client, rows_of(ks, chains))
    (crate, crate_rows), (wire, wire_rows) = got["crate"], got["wire"]
    assert without_timeout(wire) == without_timeout(crate)
    assert [outcome(r) for r in wire_rows] == [outcome(r) for r in crate_rows]
    assert any(r.result_code == 2 for r in wire_rows) or chains is WRITES


def test_a_refused_chain_row_keeps_its_own_code(pair: Pair) -> None:
    ks = keys(2)
    chain = [("add", "s", 1)]  # a string bin: BIN_TYPE_ERROR (12) for that row only
    rows = [("write", ks[0], chain, None), ("write", ks[1], [("add", "a", 1)], None)]
    got = []
    for client in (pair.crate, pair.wire):
        for k in ks:
            client.delete_blocking(k, None)
        seed(client, ks)
        got.append([outcome(r) for r in pair.sent(client, rows)[1]])
    assert [o[0] for o in got[1]] == [12, 0]
    assert got[1] == got[0]


def test_chain_rows_leave_on_the_sdks_connections(pair: Pair) -> None:
    ks = keys(4)
    seed(pair.wire, ks)
    pair.wire.batch_blocking(rows_of(ks, [[("add", "a", 1)]]), None)
    before = sum(node["bytes_sent"] for node in pair.wire.metrics()["nodes"])
    pair.wire.batch_blocking(rows_of(ks, READS), None)
    after = sum(node["bytes_sent"] for node in pair.wire.metrics()["nodes"])
    assert after > before


def test_a_chain_row_answered_with_no_values_has_empty_results(pair: Pair) -> None:
    ks = keys(3)
    seed(pair.wire, ks)
    for rows in (
        rows_of(ks[:1], [[("read_header", None)]]),
        rows_of(ks, [[("read_header", None)]]),
    ):
        got = pair.wire.batch_blocking(rows, None)
        assert [None if r.record is None else r.record.results for r in got] == [[]] * len(rows)
