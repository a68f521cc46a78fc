"""OpenTelemetry spans and metrics for a client (``pip install aerospike-fluent[otel]``).

Example:
    >>> from aerospike_fluent.contrib.otel import instrument
    >>> instrumentation = instrument(db)          # the global tracer and meter providers
    >>> ...
    >>> instrumentation.uninstrument()

Each record, batch, info and admin call becomes a span of kind ``CLIENT`` named
``"{operation} {set}"``, with the database semantic conventions' attributes:
``db.system.name`` (``aerospike``), ``db.namespace``, ``db.collection.name`` (the set),
``db.operation.name``, ``server.address`` and ``server.port`` (the cluster node the client
first saw), and on failure ``error.type`` (the exception class) and
``db.response.status_code`` (the result code). Its duration is recorded in the
``db.client.operation.duration`` histogram (seconds). Streams (scans, queries) are counted by
:meth:`Client.metrics`, not traced. Connection counts per node are observable gauges
(``db.client.connection.count``, by ``state``: ``used`` / ``idle``).

"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.metrics import CallbackOptions, Observation

from aerospike_fluent import __version__
from aerospike_fluent.errors import AerospikeError

SYSTEM = "aerospike"


def _target(method: str, args: tuple[Any, ...]) -> tuple[str | None, str | None]:
    """Namespace and set of a call, read from its key (or its first batch row's)."""
    first = args[0] if args else None
    if method.startswith("batch") and isinstance(first, list | tuple) and first:
        row = first[0]
        first = row[1] if isinstance(row, tuple) and len(row) > 1 else None
    if isinstance(first, tuple) and len(first) >= 2 and isinstance(first[0], str):
        return first[0], first[1] if isinstance(first[1], str) else None
    return None, None


def _server(db: Any) -> dict[str, Any]:
    """``server.address`` and ``server.port`` of the client's first active node (by name)."""
    nodes = sorted((n.name, n.address) for n in db.metrics().nodes if n.active)
    if not nodes:
        return {}
    host, _, port = nodes[0][1].rpartition(":")
    if not port.isdigit():
        return {"server.address": nodes[0][1]}
    return {"server.address": host.strip("[]"), "server.port": int(port)}


class Instrumentation:
    """Spans and metrics of one client, until :meth:`uninstrument`."""

    def __init__(
        self,
        db: Any,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        self._db = db
        self._tracer = trace.get_tracer("aerospike_fluent", __version__, tracer_provider)
        meter = metrics.get_meter("aerospike_fluent", __version__, meter_provider)
        self._duration = meter.create_histogram(
            "db.client.operation.duration", unit="s", description="Duration of client calls"
        )
        self._connections = meter.create_observable_gauge(
            "db.client.connection.count",
            callbacks=[self._observe_connections],
            unit="{connection}",
            description="Connections to each node, used and idle",
        )
        self._calls = meter.create_observable_gauge(
            "aerospike.client.calls",
            callbacks=[self._observe_calls],
            unit="{call}",
            description="Calls in flight, and calls waiting for a slot of max_in_flight",
        )
        self._queue_timeouts = meter.create_observable_counter(
            "aerospike.client.queue_timeouts",
            callbacks=[self._observe_queue_timeouts],
            unit="{call}",
            description="Calls that waited queue_timeout for a slot of max_in_flight",
        )
        self._async = db._ex.is_async
        self._server = _server(db)
        verbs = db._ex.verbs
        self._verbs = verbs
        self._bind = verbs._bind
        self._originals = dict(verbs)
        for name, fn in list(verbs.items()):
            verbs[name] = self._wrap(name, fn)
        verbs._bind = lambda native, method: self._wrap(method, self._bind(native, method))

    def uninstrument(self) -> None:
        """Stop tracing this client's calls."""
        self._verbs._bind = self._bind
        self._verbs.clear()
        self._verbs.update(self._originals)

    def _observe_connections(self, options: CallbackOptions) -> Iterable[Observation]:
        if self._db.native.closed:
            return []
        out = []
        for node in self._db.metrics().nodes:
            base = {"db.system.name": SYSTEM, "server.address": node.address, "node": node.name}
            out.append(Observation(node.connections.in_use, {**base, "state": "used"}))
            out.append(Observation(node.connections.idle, {**base, "state": "idle"}))
        return out

    def _observe_calls(self, options: CallbackOptions) -> Iterable[Observation]:
        if self._db.native.closed:
            return []
        load = self._db.metrics().calls_in_flight
        return [
            Observation(load.in_flight, {"db.system.name": SYSTEM, "state": "in_flight"}),
            Observation(load.waiting, {"db.system.name": SYSTEM, "state": "waiting"}),
        ]

    def _observe_queue_timeouts(self, options: CallbackOptions) -> Iterable[Observation]:
        if self._db.native.closed:
            return []
        timeouts = self._db.metrics().calls_in_flight.queue_timeouts
        return [Observation(timeouts, {"db.system.name": SYSTEM})]

    def _wrap(self, method: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        tracer, duration, server = self._tracer, self._duration, self._server

        def start(args: tuple[Any, ...]) -> tuple[Any, dict[str, Any]]:
            namespace, set_name = _target(method, args)
            attributes: dict[str, Any] = {
                "db.system.name": SYSTEM,
                "db.operation.name": method,
                **server,
            }
            if namespace is not None:
                attributes["db.namespace"] = namespace
            if set_name:
                attributes["db.collection.name"] = set_name
            name = f"{method} {set_name}" if set_name else method
            span = tracer.start_span(name, kind=trace.SpanKind.CLIENT, attributes=attributes)
            return span, attributes

        def failed(span: Any, attributes: dict[str, Any], exc: BaseException) -> None:
            attributes["error.type"] = type(exc).__name__
            span.set_attribute("error.type", type(exc).__name__)
            code = getattr(exc, "result_code", None) if isinstance(exc, AerospikeError) else None
            if code is not None:
                span.set_attribute("db.response.status_code", str(code))
            span.record_exception(exc)
            span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc)))

        if self._async:

            async def traced_async(*args: Any) -> Any:
                span, attributes = start(args)
                t0 = time.perf_counter()
                try:
                    with trace.use_span(span, end_on_exit=True, record_exception=False):
                        try:
                            return await fn(*args)
                        except BaseException as exc:
                            failed(span, attributes, exc)
                            raise
                finally:
                    duration.record(time.perf_counter() - t0, attributes)

            return traced_async

        def traced(*args: Any) -> Any:
            span, attributes = start(args)
            t0 = time.perf_counter()
            try:
                with trace.use_span(span, end_on_exit=True, record_exception=False):
                    try:
                        return fn(*args)
                    except BaseException as exc:
                        failed(span, attributes, exc)
                        raise
            finally:
                duration.record(time.perf_counter() - t0, attributes)

        return traced


def instrument(
    db: Any,
    *,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> Instrumentation:
    """Trace ``db``'s calls and export its connection counts (global providers by default)."""
    return Instrumentation(db, tracer_provider, meter_provider)
