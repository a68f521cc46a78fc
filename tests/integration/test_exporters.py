"""The optional exporters: a Prometheus collector over ``db.metrics()`` (checked through the
exposition text ``prometheus_client`` renders) and OpenTelemetry spans and metrics (checked
with opentelemetry-sdk's in-memory exporter and reader)."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor

prometheus_client = pytest.importorskip("prometheus_client")
pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402

from aerospike_fluent.contrib.otel import instrument  # noqa: E402
from aerospike_fluent.contrib.prometheus import MetricsCollector  # noqa: E402


async def test_prometheus_exposition(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    for i in range(3):
        await fl.run(s.key(i).put({"i": i}))
    with pytest.raises(errors.RecordExistsError):
        await fl.run(s.key(0).insert({"i": 0}))
    registry = prometheus_client.CollectorRegistry()
    registry.register(MetricsCollector(fl.db))
    text = prometheus_client.generate_latest(registry).decode()

    def total(name: str, **labels: str) -> float:
        value = 0.0
        for family in registry.collect():
            for sample in family.samples:
                if sample.name == name and all(
                    sample.labels.get(k) == v for k, v in labels.items()
                ):
                    value += sample.value
        return value

    assert total("aerospike_client_calls_total", command="put", namespace="test") == 4
    assert total("aerospike_client_call_errors_total", command="put") == 1
    assert total("aerospike_client_call_result_codes_total", result_code="5") == 1
    assert total("aerospike_client_call_duration_seconds_count", command="put") == 4
    assert total("aerospike_client_call_duration_seconds_bucket", command="put", le="+Inf") == 4
    assert "# TYPE aerospike_client_call_duration_seconds histogram" in text
    assert "# TYPE aerospike_client_connections gauge" in text
    assert total("aerospike_client_tends_total") >= 0
    assert total("aerospike_client_node_active") == len(fl.db.node_names())


async def test_otel_spans_follow_the_database_conventions(fl: Flavor, set_name: str) -> None:
    spans = InMemorySpanExporter()
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    instrumentation = instrument(
        fl.db, tracer_provider=tracing, meter_provider=MeterProvider(metric_readers=[reader])
    )
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("a").put({"n": 1}))
    await fl.run(s.key("a").get())
    with pytest.raises(errors.RecordExistsError):
        await fl.run(s.key("a").insert({"n": 2}))
    await fl.run(s.keys(["a", "b"]).get())

    done = spans.get_finished_spans()
    first = min((n.name, n.address) for n in fl.db.metrics().nodes if n.active)
    address, _, port = first[1].rpartition(":")
    assert [sp.name for sp in done] == [
        f"put {set_name}",
        f"get {set_name}",
        f"put {set_name}",
        f"batch {set_name}",
    ]
    put = done[0]
    assert put.kind == SpanKind.CLIENT
    assert put.attributes is not None
    assert dict(put.attributes) == {
        "db.system.name": "aerospike",
        "db.operation.name": "put",
        "db.namespace": "test",
        "db.collection.name": set_name,
        "server.address": address,
        "server.port": int(port),
    }
    refused = done[2]
    assert refused.status.status_code == StatusCode.ERROR
    assert refused.attributes is not None
    assert refused.attributes["error.type"] == "RecordExistsError"
    assert refused.attributes["db.response.status_code"] == "5"

    data = reader.get_metrics_data()
    assert data is not None
    points = {
        m.name: m.data.data_points
        for rm in data.resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
    }
    durations = points["db.client.operation.duration"]
    assert sum(p.count for p in durations if isinstance(p, HistogramDataPoint)) == 4
    connections = points["db.client.connection.count"]
    assert {(p.attributes or {}).get("state") for p in connections} == {"used", "idle"}

    instrumentation.uninstrument()
    await fl.run(s.key("a").get())
    assert len(spans.get_finished_spans()) == 4
