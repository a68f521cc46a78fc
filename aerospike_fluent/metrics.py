"""What a client has done since it connected: :meth:`Client.metrics` and :meth:`Client.nodes`.

Every call is counted once, whichever way the client served it: per namespace, node and kind
of command (``get``, ``exists``, ``put``, ``delete``, ``touch``, ``operate``, ``udf``,
``batch_read``, ``batch_write``, ``scan``, ``query``, ``aggregate``, ``info``, ``admin``,
``commit``, ``abort``).
Durations are in seconds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, NamedTuple

from aerospike_fluent._config_watch import ConfigReloads


@dataclasses.dataclass(frozen=True, slots=True)
class Latency:
    """How long calls took, in seconds (percentiles within 13% of the true value)."""

    mean: float
    p50: float
    p90: float
    p99: float
    max: float
    sum: float
    buckets: tuple[tuple[float, int], ...]
    """``(upper bound, calls that took at most that long)``, cumulative; the last is ``inf``."""


@dataclasses.dataclass(frozen=True, slots=True)
class CommandMetrics:
    """One kind of command on one node of one namespace.

    ``node`` is the node the call was addressed to, or ``""`` for calls that span nodes
    (batches, scans, queries) or go to any node (info, admin).
    """

    namespace: str
    node: str
    command: str
    count: int
    retries: int
    """Attempts made after the first: single-record calls and batches on the SDK's own path,
    and a call the crate's path ran only when it failed (not scans and queries)."""
    errors: int
    timeouts: int
    in_doubt: int
    """Writes that failed in a way that leaves it unknown whether they were applied."""
    result_codes: Mapping[int, int]
    """Failures per result code (server codes >= 0, client codes < 0)."""
    latency: Latency


@dataclasses.dataclass(frozen=True, slots=True)
class Connections:
    """A node's connections from this client (every runtime and path together)."""

    open: int
    in_use: int
    idle: int
    waiting: int
    """Calls waiting for a connection because the node's ``max_conns_per_node`` are in use."""
    opened: int
    closed: int
    open_failures: int


@dataclasses.dataclass(frozen=True, slots=True)
class NodeMetrics:
    """A node's connections, and the bytes sent and received over the client's own ones."""

    name: str
    address: str
    active: bool
    """In the cluster now (a node that left keeps its counts)."""
    connections: Connections
    bytes_sent: int
    bytes_received: int
    error_rate: int = 0
    """Errors counted against the node in the circuit breaker's current window
    (``max_error_rate``, ``error_rate_window``)."""
    breaker_refusals: int = 0
    """Calls refused at once because the node's circuit breaker was open."""


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterEvents:
    """What the client saw the cluster do."""

    tends: int
    nodes_joined: int
    nodes_left: int
    partition_map_changes: int


@dataclasses.dataclass(frozen=True, slots=True)
class CallsInFlight:
    """The client's calls at one moment, against its ``max_in_flight`` limit."""

    max_in_flight: int | None = None
    """The limit (``connect(max_in_flight=...)``); None: no limit."""
    in_flight: int = 0
    """Calls started and not answered yet (queries and scans: a page being fetched)."""
    peak_in_flight: int | None = None
    """The most calls in flight at once since the client connected (with a limit)."""
    waiting: int = 0
    """Calls waiting for a slot now."""
    waited: int = 0
    """Calls that found no free slot and waited, since the client connected."""
    queue_timeouts: int = 0
    """Calls that waited ``queue_timeout`` for a slot and failed, since the client connected."""


@dataclasses.dataclass(frozen=True, slots=True)
class MetricsSnapshot:
    """The client's metrics at one moment, cumulative since it connected."""

    enabled: bool
    """False when the client was connected with ``metrics=False``: no call is counted."""
    uptime: float
    commands: tuple[CommandMetrics, ...]
    nodes: tuple[NodeMetrics, ...]
    cluster: ClusterEvents
    config: ConfigReloads = dataclasses.field(default_factory=ConfigReloads)
    """What the dynamic configuration file did (its checks, applied and refused versions)."""
    calls_in_flight: CallsInFlight = dataclasses.field(default_factory=CallsInFlight)

    def calls(
        self, command: str | None = None, *, namespace: str | None = None, node: str | None = None
    ) -> tuple[CommandMetrics, ...]:
        """Return the rows of ``commands`` matching every filter given."""
        return tuple(
            c
            for c in self.commands
            if (command is None or c.command == command)
            and (namespace is None or c.namespace == namespace)
            and (node is None or c.node == node)
        )

    def count(
        self, command: str | None = None, *, namespace: str | None = None, node: str | None = None
    ) -> int:
        """Return the calls counted in the rows matching every filter given."""
        return sum(c.count for c in self.calls(command, namespace=namespace, node=node))

    def to_dict(self) -> dict[str, Any]:
        """Plain values under stable snake_case names (for JSON, logs, exporters)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_native(cls, raw: Mapping[str, Any]) -> MetricsSnapshot:
        """Build a snapshot from ``_native.Client.metrics()``."""
        return cls(
            enabled=raw["enabled"],
            uptime=raw["uptime"],
            commands=tuple(
                CommandMetrics(
                    **{k: v for k, v in c.items() if k != "latency"},
                    latency=Latency(
                        **{k: v for k, v in c["latency"].items() if k != "buckets"},
                        buckets=tuple(c["latency"]["buckets"]),
                    ),
                )
                for c in raw["commands"]
            ),
            nodes=tuple(
                NodeMetrics(
                    **{k: v for k, v in n.items() if k != "connections"},
                    connections=Connections(**n["connections"]),
                )
                for n in raw["nodes"]
            ),
            cluster=ClusterEvents(**raw["cluster"]),
            calls_in_flight=CallsInFlight(**raw["calls"]),
        )


class Partitions(NamedTuple):
    """A node's share of a namespace: partitions it masters, replicas of others it holds."""

    masters: int
    replicas: int


@dataclasses.dataclass(frozen=True, slots=True)
class NodeInfo:
    """A cluster node as the client sees it (:meth:`Client.nodes`)."""

    name: str
    address: str
    active: bool
    partitions: Mapping[str, Partitions]
    """Per namespace, in the partition map every call routes by."""
    connections: int
    """Connections this client holds open to the node."""
    racks: Mapping[str, int] = dataclasses.field(default_factory=dict)
    """Per namespace, the rack the node is in (Enterprise nodes say; Community ones do not)."""

    @property
    def rack(self) -> int | None:
        """The node's rack when its namespaces agree on one, else ``None`` (see ``racks``)."""
        found = set(self.racks.values())
        return found.pop() if len(found) == 1 else None


def node_infos(raw: list[dict[str, Any]], snapshot: MetricsSnapshot) -> list[NodeInfo]:
    """Build the node view from ``_native.Client.nodes()`` and the connections of ``snapshot``."""
    open_per_node = {n.name: n.connections.open for n in snapshot.nodes}
    return [
        NodeInfo(
            name=n["name"],
            address=n["address"],
            active=n["active"],
            partitions={ns: Partitions(*held) for ns, held in n["partitions"].items()},
            connections=open_per_node.get(n["name"], 0),
            racks=dict(n.get("racks", {})),
        )
        for n in raw
    ]
