"""The embedded cluster: several in-memory nodes in this process.

For tests of routing, paging and failover::

    with EmbeddedCluster(nodes=3, replication_factor=2) as cluster:
        async with af.connect(cluster.seeds) as db: ...
        cluster.nodes[1].kill()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from aerospike_fluent import _native
from aerospike_fluent._fork import started
from aerospike_fluent._lifecycle import StopsOnExit

NodeStatus = Literal["up", "paused", "isolated", "down", "removed"]


class ClusterNode:
    """One node of an :class:`EmbeddedCluster`: its address, state and faults."""

    __slots__ = ("_cluster", "index")

    def __init__(self, cluster: _native.EmbeddedCluster, index: int) -> None:
        self._cluster = cluster
        self.index = index

    def __repr__(self) -> str:
        return f"<ClusterNode {self.index} {self.seeds} {self.status}>"

    @property
    def host(self) -> str:
        """The listening host."""
        return self._cluster.host

    @property
    def port(self) -> int:
        """The listening port (kept across restarts)."""
        return self._cluster.port(self.index)

    @property
    def seeds(self) -> str:
        """``"host:port"`` of this node alone."""
        return f"{self.host}:{self.port}"

    @property
    def name(self) -> str:
        """The node name clients report."""
        return self._cluster.node_name(self.index)

    @property
    def status(self) -> NodeStatus:
        """``up``, ``paused``, ``isolated``, ``down`` or ``removed``."""
        return self._cluster.status(self.index)

    @property
    def generation(self) -> int:
        """The partition generation: it changes whenever the node's view of the cluster does."""
        return self._cluster.generation(self.index)

    @property
    def rack_id(self) -> int:
        """The node's rack (0: none)."""
        return self._cluster.rack_id(self.index)

    def kill(self, *, keep_data: bool = False) -> None:
        """Stop the node at once; the others take over its partitions from the replicas.

        With ``keep_data`` its records survive for :meth:`restart` (as on disk).
        """
        self._cluster.kill(self.index, keep_data)

    def restart(self) -> None:
        """Start a killed node again on its port; it rejoins and the partitions rebalance."""
        self._cluster.restart(self.index)

    def pause(self) -> None:
        """Answer nothing (as a stopped process) while staying a member."""
        self._cluster.pause(self.index, True)

    def resume(self) -> None:
        """Answer again after :meth:`pause`."""
        self._cluster.pause(self.index, False)

    def isolate(self) -> None:
        """Cut the node off from the others: each side becomes a cluster of its own."""
        self._cluster.isolate(self.index, True)

    def heal(self) -> None:
        """Rejoin after :meth:`isolate`; both sides' data merge."""
        self._cluster.isolate(self.index, False)

    def remove(self) -> None:
        """Leave the cluster gracefully: the partitions move to the others, then it stops."""
        self._cluster.remove_node(self.index)

    def stats(self) -> dict[str, int]:
        """Request counters of this node, and ``records``: the copies it stores."""
        return self._cluster.stats(self.index)

    def reset_stats(self) -> None:
        """Zero this node's counters."""
        self._cluster.reset_stats(self.index)

    def fault_delay(self, millis: int, count: int | None = None) -> None:
        """Delay the node's next ``count`` replies (every reply while None) by ``millis``."""
        self._cluster.fault_delay(self.index, millis, count)

    def fault_fail(self, result_code: int, count: int) -> None:
        """Answer the node's next ``count`` record requests with ``result_code``."""
        self._cluster.fault_fail(self.index, result_code, count)

    def clear_faults(self) -> None:
        """Remove this node's injected faults (a pause included)."""
        self._cluster.clear_faults(self.index)


class EmbeddedCluster(StopsOnExit):
    """In-process nodes forming one cluster, started on construction.

    ``port=0`` picks free ports, else nodes listen on ``port``, ``port + 1``... Every
    partition has ``replication_factor`` copies on distinct nodes; writes reach every copy
    before they are acknowledged. With ``racks=R`` (Enterprise rules: ``edition="enterprise"``)
    node ``i`` is on rack ``i % R + 1`` and a partition's copies go to distinct racks. The
    namespaces in ``strong_consistency`` (Enterprise rules) take transactions; every node
    answers ``cluster_name`` to ``cluster-name`` (``null`` without one). Usable as
    a sync or async context manager; both stop every node on exit.
    """

    __slots__ = ("_cluster",)

    def __init__(
        self,
        nodes: int = 3,
        replication_factor: int = 2,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        namespaces: Sequence[str] = ("test", "bar"),
        tls_cert_file: str | None = None,
        tls_key_file: str | None = None,
        users: Mapping[str, str] | None = None,
        edition: Literal["community", "enterprise"] = "community",
        racks: int = 0,
        strong_consistency: Sequence[str] = (),
        cluster_name: str | None = None,
    ) -> None:
        self._cluster = started(
            _native.EmbeddedCluster(
                nodes,
                replication_factor,
                host,
                port,
                tuple(namespaces),
                tls_cert_file=tls_cert_file,
                tls_key_file=tls_key_file,
                users=None if users is None else dict(users),
                edition=edition,
                racks=racks,
                strong_consistency=list(strong_consistency),
                cluster_name=cluster_name,
            )
        )

    def __repr__(self) -> str:
        return f"<EmbeddedCluster {self.seeds}>"

    @property
    def nodes(self) -> tuple[ClusterNode, ...]:
        """Every node ever started, in order (removed ones included)."""
        return tuple(ClusterNode(self._cluster, i) for i in range(self._cluster.size))

    @property
    def seeds(self) -> str:
        """``"host:port,host:port..."`` of the nodes that are not down or removed."""
        live = [n.seeds for n in self.nodes if n.status not in ("down", "removed")]
        return ",".join(live)

    def add_node(self) -> ClusterNode:
        """Start a new node; it joins and takes its share of the partitions."""
        return ClusterNode(self._cluster, self._cluster.add_node())

    def stats(self) -> dict[str, int]:
        """Counters summed over every node (``records`` counts every copy)."""
        total: dict[str, int] = {}
        for node in self.nodes:
            for name, value in node.stats().items():
                total[name] = total.get(name, 0) + value
        return total

    def stop(self) -> None:
        """Stop every node; idempotent."""
        self._cluster.stop()
