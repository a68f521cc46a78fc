"""A Prometheus collector over :meth:`Client.metrics`.

Installed with ``pip install aerospike-fluent[prometheus]``.

Example:
    >>> from prometheus_client import REGISTRY
    >>> from aerospike_fluent.contrib.prometheus import MetricsCollector
    >>> REGISTRY.register(MetricsCollector(db))

Every scrape reads one snapshot (no I/O); nothing is recorded between scrapes.

"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from aerospike_fluent.metrics import MetricsSnapshot

CALL_LABELS = ["namespace", "node", "command"]
NODE_LABELS = ["node", "address"]


class MetricsCollector(Collector):
    """Exposes a client's metrics under ``prefix`` (``aerospike_client`` by default)."""

    def __init__(self, db: Any, prefix: str = "aerospike_client") -> None:
        self._db = db
        self._prefix = prefix

    def collect(self) -> Iterator[Metric]:
        """Yield the metric families of one snapshot."""
        yield from families(self._db.metrics(), self._prefix)


def families(snapshot: MetricsSnapshot, prefix: str = "aerospike_client") -> Iterator[Metric]:
    """Yield the Prometheus metric families of ``snapshot``."""
    p = prefix
    calls = CounterMetricFamily(f"{p}_calls", "Calls made", labels=CALL_LABELS)
    retries = CounterMetricFamily(
        f"{p}_call_retries", "Attempts after the first", labels=CALL_LABELS
    )
    errors = CounterMetricFamily(f"{p}_call_errors", "Calls that failed", labels=CALL_LABELS)
    timeouts = CounterMetricFamily(
        f"{p}_call_timeouts", "Calls that failed on a deadline", labels=CALL_LABELS
    )
    in_doubt = CounterMetricFamily(
        f"{p}_call_in_doubt", "Writes whose outcome is unknown", labels=CALL_LABELS
    )
    by_code = CounterMetricFamily(
        f"{p}_call_result_codes",
        "Failed calls per result code",
        labels=[*CALL_LABELS, "result_code"],
    )
    duration = HistogramMetricFamily(
        f"{p}_call_duration_seconds", "How long calls took", labels=CALL_LABELS
    )
    for c in snapshot.commands:
        labels = [c.namespace, c.node, c.command]
        calls.add_metric(labels, c.count)
        retries.add_metric(labels, c.retries)
        errors.add_metric(labels, c.errors)
        timeouts.add_metric(labels, c.timeouts)
        in_doubt.add_metric(labels, c.in_doubt)
        for code, failures in c.result_codes.items():
            by_code.add_metric([*labels, str(code)], failures)
        buckets = [(_le(bound), count) for bound, count in c.latency.buckets]
        duration.add_metric(labels, buckets, sum_value=c.latency.sum)
    yield from (calls, retries, errors, timeouts, in_doubt, by_code, duration)

    conns = GaugeMetricFamily(
        f"{p}_connections", "Connections to a node", labels=[*NODE_LABELS, "state"]
    )
    waiting = GaugeMetricFamily(
        f"{p}_connection_waiters", "Calls waiting for a connection", labels=NODE_LABELS
    )
    opened = CounterMetricFamily(f"{p}_connections_opened", "Opened", labels=NODE_LABELS)
    closed = CounterMetricFamily(f"{p}_connections_closed", "Closed", labels=NODE_LABELS)
    failed = CounterMetricFamily(
        f"{p}_connection_open_failures", "Connections that could not open", labels=NODE_LABELS
    )
    sent = CounterMetricFamily(f"{p}_bytes_sent", "Bytes sent", labels=NODE_LABELS)
    received = CounterMetricFamily(f"{p}_bytes_received", "Bytes received", labels=NODE_LABELS)
    active = GaugeMetricFamily(f"{p}_node_active", "1 while in the cluster", labels=NODE_LABELS)
    error_rate = GaugeMetricFamily(
        f"{p}_node_error_rate", "Errors in the circuit breaker's window", labels=NODE_LABELS
    )
    refusals = CounterMetricFamily(
        f"{p}_breaker_refusals", "Calls the circuit breaker refused", labels=NODE_LABELS
    )
    for n in snapshot.nodes:
        labels = [n.name, n.address]
        conns.add_metric([*labels, "in_use"], n.connections.in_use)
        conns.add_metric([*labels, "idle"], n.connections.idle)
        waiting.add_metric(labels, n.connections.waiting)
        opened.add_metric(labels, n.connections.opened)
        closed.add_metric(labels, n.connections.closed)
        failed.add_metric(labels, n.connections.open_failures)
        sent.add_metric(labels, n.bytes_sent)
        received.add_metric(labels, n.bytes_received)
        active.add_metric(labels, 1 if n.active else 0)
        error_rate.add_metric(labels, n.error_rate)
        refusals.add_metric(labels, n.breaker_refusals)
    yield from (conns, waiting, opened, closed, failed, sent, received, active)
    yield from (error_rate, refusals)

    events = snapshot.cluster
    for name, value, text in (
        ("tends", events.tends, "Cluster tends"),
        ("nodes_joined", events.nodes_joined, "Nodes that joined"),
        ("nodes_left", events.nodes_left, "Nodes that left"),
        ("partition_map_changes", events.partition_map_changes, "Partition map changes"),
    ):
        yield CounterMetricFamily(f"{p}_{name}", text, value=value)

    load = snapshot.calls_in_flight
    yield GaugeMetricFamily(f"{p}_calls_in_flight", "Calls not answered yet", value=load.in_flight)
    yield GaugeMetricFamily(
        f"{p}_calls_waiting", "Calls waiting for a slot of max_in_flight", value=load.waiting
    )
    yield CounterMetricFamily(
        f"{p}_queue_timeouts",
        "Calls that waited queue_timeout for a slot",
        value=load.queue_timeouts,
    )


def _le(bound: float) -> str:
    return "+Inf" if bound == float("inf") else repr(bound)
