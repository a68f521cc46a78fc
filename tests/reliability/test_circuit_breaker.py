"""The per-node circuit breaker (``max_error_rate``, ``error_rate_window``) on a 2-node embedded
cluster, one copy of each record: once a node's errors in a window pass the rate, calls to it
fail at once with ``MaxErrorRateError`` and reach it no more (the node's own request counters
say so), calls to the other node go on, the refusals are counted in the metrics, and traffic
resumes by itself once the window turns on a healthy node; ``max_error_rate=0`` turns it off.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync
from aerospike_fluent.errors import AerospikeError, MaxErrorRateError, TimeoutError
from aerospike_fluent.metrics import NodeMetrics
from aerospike_fluent.server import ClusterNode, EmbeddedCluster

from ._util import settle

pytestmark = [
    pytest.mark.skipif(
        bool(os.environ.get("AEROSPIKE_HOST")),
        reason="needs the embedded cluster: injected delays, a paused and a killed node",
    ),
    pytest.mark.timeout(120),
]

SET = "breaker50"
KEYS = range(24)
RATE = 2
LATE_MS = 60_000
"""A delayed reply comes after the whole test: the node counts no delayed request meanwhile."""
NEVER = 100_000
"""A window of this many tend intervals does not turn during a test."""
SHORT = 12
"""A window of 3 s at a tend interval of 0.25 s: room for the rate's timeouts and one more
(0.5 s each) on a loaded machine, and it turns within the test."""


def tripping(max_error_rate: int, error_rate_window: int = 1) -> af.ConnectOptions:
    """Short calls: each attempt on a late node times out, one error for its breaker."""
    return {
        "max_error_rate": max_error_rate,
        "error_rate_window": error_rate_window,
        "tend_interval": 0.25,
        "total_timeout": 0.5,
        "max_retries": 0,
    }


@pytest.fixture
def cluster() -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(nodes=2, replication_factor=1) as c:
        yield c


def answer(call: Callable[[], Any]) -> Any:
    """What the call returned, or the SDK error it raised."""
    try:
        return call()
    except AerospikeError as e:
        return e


async def answer_async(call: Awaitable[Any]) -> Any:
    try:
        return await call
    except AerospikeError as e:
        return e


def kind(got: Any) -> str:
    if isinstance(got, MaxErrorRateError):
        return "refused"
    if isinstance(got, TimeoutError):
        return "timeout"
    if isinstance(got, AerospikeError):
        raise got
    return "ok"


def outcome(call: Callable[[], Any]) -> str:
    return kind(answer(call))


def node_row(db: af.Client[Any], name: str) -> NodeMetrics:
    """The node's metrics (``metrics()`` is synchronous on every client)."""
    nodes: tuple[NodeMetrics, ...] = db.metrics().nodes
    return next(n for n in nodes if n.name == name)


def trip(s: Any, node: str, db: Any) -> None:
    """Call the node's keys with short calls until one is refused: its breaker opened (the
    window turns every 3 s, so a window may pass first)."""
    first = {i: answer(s.key(i).get) for i in KEYS}
    its_keys = [i for i, got in first.items() if kind(got) != "ok"]
    assert its_keys and len(its_keys) < len(KEYS), first
    refused = [got for got in first.values() if kind(got) == "refused"]
    for _ in range(200):
        if refused:
            break
        got = answer(s.key(its_keys[0]).get)
        refused += [got] if kind(got) == "refused" else []
    assert refused
    check_refusal(refused[0], node, SHORT)
    assert node_row(db, node).breaker_refusals > 0


def reads_back(s: Any) -> bool:
    """Whether every key is read, each from its own node."""
    try:
        return all(s.key(i).get() is not None for i in KEYS)
    except AerospikeError:
        return False


def check_refusal(e: MaxErrorRateError, node: str, window: int = NEVER) -> None:
    """The refusal names the node, its errors in the window (the rate's and one more at
    least; exactly that when the window never turns), the window and the rate."""
    assert e.result_code == -12
    assert not e.in_doubt
    assert e.key is not None
    text = str(e)
    assert f"node {node} at " in text
    counted = re.search(rf"had (\d+) errors in the last {window} tend interval\(s\)", text)
    assert counted is not None, text
    errors = int(counted.group(1))
    assert errors == RATE + 1 if window == NEVER else errors > RATE
    assert f"(max_error_rate={RATE})" in text


PATIENT_RETRIES = 5


def refusals(outcomes: dict[int, str]) -> int:
    """The refusals counted: each refused short call, then every attempt of a patient call on
    each key of the opened node (a retry goes to the next copy: the same node, refused again)."""
    values = list(outcomes.values())
    return values.count("refused") + (PATIENT_RETRIES + 1) * (len(values) - values.count("ok"))


def filled(db: af.SyncClient) -> Any:
    """The test set of a sync client, holding every key."""
    s = db.namespace("test").set(SET)
    for i in KEYS:
        s.key(i).put({"i": i})
    return s


def patient_set(db: af.Client[Any]) -> Any:
    """The test set for a caller that would wait an hour, with retries."""
    return (
        db.with_policy(total_timeout=3600, max_retries=PATIENT_RETRIES).namespace("test").set(SET)
    )


def check_patient(
    outcomes: dict[int, str],
    answers: dict[int, Any],
    late: ClusterNode,
    reads: int,
    db: af.Client[Any],
) -> None:
    """A caller that would wait an hour, with retries, is refused at once on the opened node
    (which counts no read), and served by the other."""
    for i, o in outcomes.items():
        if o == "ok":
            assert answers[i] is not None and not isinstance(answers[i], AerospikeError)
        else:
            assert isinstance(answers[i], MaxErrorRateError), answers[i]
            check_refusal(answers[i], late.name)
    assert late.stats()["read"] == reads
    row = node_row(db, late.name)
    assert row.error_rate == RATE + 1
    assert row.breaker_refusals == refusals(outcomes)


def check_opened(outcomes: dict[int, str]) -> None:
    """Exactly the rate's worth of timeouts and one more opened the breaker; the late node's
    other keys were refused, the other node's read."""
    counts = {o: list(outcomes.values()).count(o) for o in ("ok", "timeout", "refused")}
    assert counts["timeout"] == RATE + 1, outcomes
    assert counts["refused"] > 0, outcomes
    assert counts["ok"] > 0, outcomes


def test_sync_calls_to_an_opened_node_fail_at_once_and_others_go_on(
    cluster: EmbeddedCluster,
) -> None:
    late = cluster.nodes[0]
    with af_sync.connect(cluster.seeds, **tripping(RATE, NEVER)) as db:
        s = filled(db)
        late.fault_delay(LATE_MS)
        outcomes = {i: outcome(s.key(i).get) for i in KEYS}
        check_opened(outcomes)
        patient = patient_set(db)
        reads = late.stats()["read"]
        check_patient(outcomes, {i: answer(patient.key(i).get) for i in KEYS}, late, reads, db)
        assert node_row(db, cluster.nodes[1].name).breaker_refusals == 0
        # A batch: the opened node's rows refused, the other node's read; a scan refused.
        with pytest.raises(MaxErrorRateError) as batch:
            patient.keys(list(KEYS)).get()
        rows = batch.value.partial
        assert [r.record is not None for r in rows] == [o == "ok" for o in outcomes.values()]
        with pytest.raises(MaxErrorRateError):
            list(patient.query())
        assert {k: late.stats()[k] for k in ("read", "batch", "scan")} == {
            "read": reads,
            "batch": 0,
            "scan": 0,
        }


@pytest.mark.anyio
async def test_async_calls_to_an_opened_node_fail_at_once_and_others_go_on(
    cluster: EmbeddedCluster, anyio_backend: str
) -> None:
    late = cluster.nodes[0]
    async with af.connect(cluster.seeds, **tripping(RATE, NEVER)) as db:
        s = db.namespace("test").set(SET)
        for i in KEYS:
            await s.key(i).put({"i": i})
        late.fault_delay(LATE_MS)
        outcomes = {i: kind(await answer_async(s.key(i).get())) for i in KEYS}
        check_opened(outcomes)
        patient = patient_set(db)
        reads = late.stats()["read"]
        answers = {i: await answer_async(patient.key(i).get()) for i in KEYS}
        check_patient(outcomes, answers, late, reads, db)


def test_calls_the_crates_road_serves_are_refused_alike(cluster: EmbeddedCluster) -> None:
    late = cluster.nodes[0]
    # An AP read of every copy is not a plain read: the crate's road serves it, with its own
    # breaker under the same settings.
    options: af.ConnectOptions = {**tripping(RATE, NEVER), "policy": af.Policy(read_mode_ap="all")}
    with af_sync.connect(cluster.seeds, **options) as db:
        s = filled(db)
        late.fault_delay(LATE_MS)
        outcomes = {i: outcome(s.key(i).get) for i in KEYS}
        check_opened(outcomes)
        reads = late.stats()["read"]
        answers = {i: answer(patient_set(db).key(i).get) for i in KEYS}
        opened = [i for i, o in outcomes.items() if o != "ok"]
        for i in opened:
            check_refusal(answers[i], late.name)
        assert late.stats()["read"] == reads
        # The crate's refusals are counted per call.
        refused_first = list(outcomes.values()).count("refused")
        assert node_row(db, late.name).breaker_refusals == refused_first + len(opened)


@pytest.mark.parametrize("fault", ["hung", "killed"])
def test_traffic_resumes_by_itself_once_the_node_is_healthy(
    cluster: EmbeddedCluster, fault: str
) -> None:
    node = cluster.nodes[0]
    with af_sync.connect(cluster.seeds, **tripping(RATE, SHORT)) as db:
        s = filled(db)
        if fault == "hung":
            node.pause()  # answers nothing, as a stopped process, and stays a member
        else:
            node.fault_delay(LATE_MS)
        trip(s, node.name, db)
        if fault == "hung":
            node.resume()
        else:
            node.clear_faults()  # a fault outlives a restart: the node comes back healthy
            node.kill(keep_data=True)
            node.restart()
        # No reconnect, no new client: the window turns and the node is called again.
        assert settle(lambda: reads_back(s), seconds=15)


@pytest.mark.anyio
async def test_async_traffic_resumes_by_itself_once_a_hung_node_answers(
    cluster: EmbeddedCluster, anyio_backend: str
) -> None:
    hung = cluster.nodes[0]
    async with af.connect(cluster.seeds, **tripping(RATE, SHORT)) as db:
        s = db.namespace("test").set(SET)
        for i in KEYS:
            await s.key(i).put({"i": i})
        hung.pause()
        seen: list[str] = []
        for _ in range(20):  # each round: every key once, until one finds the breaker open
            seen += [kind(await answer_async(s.key(i).get())) for i in KEYS]
            if "refused" in seen:
                break
        assert "refused" in seen and "timeout" in seen
        hung.resume()
        for _ in range(300):
            answers = [await answer_async(s.key(i).get()) for i in KEYS]
            if all(a is not None and not isinstance(a, AerospikeError) for a in answers):
                break
            await anyio.sleep(0.05)
        assert [a["i"] for a in answers] == list(KEYS)


def test_max_error_rate_0_turns_the_breaker_off(cluster: EmbeddedCluster) -> None:
    late = cluster.nodes[0]
    with af_sync.connect(cluster.seeds, **tripping(0)) as db:
        s = filled(db)
        late.fault_delay(LATE_MS)
        outcomes = [outcome(s.key(i).get) for i in KEYS]
        assert "refused" not in outcomes
        assert outcomes.count("timeout") > RATE + 1, outcomes
        row = node_row(db, late.name)
        assert (row.error_rate, row.breaker_refusals) == (0, 0)
