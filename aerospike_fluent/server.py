"""The embedded in-memory Aerospike-compatible server, for tests, notebooks and examples.

Run it in the foreground with ``python -m aerospike_fluent.server [--host H] [--port 3000]
[--namespace test ...] [--nodes 3 [--replication-factor 2] [--racks 2]]
[--cluster-name NAME]``, or in-process::

    with EmbeddedServer() as server:
        async with af.connect(server.seeds) as db: ...

:class:`EmbeddedCluster` runs several nodes forming one cluster.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Literal

from aerospike_fluent import _native
from aerospike_fluent._cluster import ClusterNode, EmbeddedCluster
from aerospike_fluent._fork import started
from aerospike_fluent._lifecycle import StopsOnExit
from aerospike_fluent.errors import AerospikeError

__all__ = ["DEFAULT_NAMESPACES", "ClusterNode", "EmbeddedCluster", "EmbeddedServer", "main"]

DEFAULT_NAMESPACES = ("test", "bar")


class EmbeddedServer(StopsOnExit):
    """An in-process server (started on construction; ``port=0`` picks a free port).

    Data lives in memory and is lost when the server stops. ``cluster_name`` is what the node
    answers to ``cluster-name`` (clients configured with a cluster name check it); without one
    it answers ``null``. Usable as a sync or async context manager; both stop it on exit.
    """

    __slots__ = ("_server",)

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        namespaces: Sequence[str] = DEFAULT_NAMESPACES,
        *,
        tls_cert_file: str | None = None,
        tls_key_file: str | None = None,
        users: Mapping[str, str] | None = None,
        edition: Literal["community", "enterprise"] = "community",
        strong_consistency: Sequence[str] = (),
        cluster_name: str | None = None,
    ) -> None:
        self._server = started(
            _native.EmbeddedServer(
                host,
                port,
                tuple(namespaces),
                tls_cert_file=tls_cert_file,
                tls_key_file=tls_key_file,
                users=None if users is None else dict(users),
                edition=edition,
                strong_consistency=list(strong_consistency),
                cluster_name=cluster_name,
            )
        )

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<EmbeddedServer {self.seeds} {state}>"

    @property
    def host(self) -> str:
        """The listening host."""
        return self._server.host

    @property
    def port(self) -> int:
        """The listening port."""
        return self._server.port

    @property
    def seeds(self) -> str:
        """``"host:port"``, ready for :func:`aerospike_fluent.connect`."""
        return f"{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        """Whether it is accepting connections."""
        return self._server.running

    def stop(self) -> None:
        """Stop and close every connection; idempotent."""
        self._server.stop()

    def restart(self) -> None:
        """Stop and start again on the same port, keeping the data."""
        self._server.restart()

    def stats(self) -> dict[str, int]:
        """Return request counters by kind (``read``, ``write``, ``operate``, ``batch``...)."""
        return self._server.stats()

    def reset_stats(self) -> None:
        """Zero the counters."""
        self._server.reset_stats()

    def fault_delay(self, millis: int, count: int | None = None) -> None:
        """Delay the next ``count`` replies (every reply while None) by ``millis``."""
        self._server.fault_delay(millis, count)

    def fault_drop(self, after: int) -> None:
        """Drop the connection of a request once ``after`` more requests have been served."""
        self._server.fault_drop(after)

    def fault_fail(self, result_code: int, count: int) -> None:
        """Answer the next ``count`` record requests with ``result_code``."""
        self._server.fault_fail(result_code, count)

    def fault_pause_accept(self, paused: bool) -> None:
        """Stop (or resume) accepting new connections."""
        self._server.fault_pause_accept(paused)

    def clear_faults(self) -> None:
        """Remove every injected fault."""
        self._server.clear_faults()


def main(argv: Sequence[str] | None = None, prog: str = "python -m aerospike_fluent.server") -> int:
    """Run the server in the foreground until Ctrl-C (``prog`` names the command in help)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="In-memory Aerospike-compatible server (data is lost when it stops).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument(
        "--namespace",
        action="append",
        dest="namespaces",
        help="namespace to serve (repeatable; default: test, bar)",
    )
    parser.add_argument("--nodes", type=int, default=1, help="nodes of a cluster (default 1)")
    parser.add_argument(
        "--replication-factor",
        type=int,
        default=2,
        help="copies of each partition in a cluster (default 2, at most --nodes)",
    )
    parser.add_argument(
        "--edition",
        choices=("community", "enterprise"),
        default="community",
        help="whose rules to follow: community refuses Enterprise-only requests (default)",
    )
    parser.add_argument(
        "--racks",
        type=int,
        default=0,
        help="racks the nodes are spread over in turn (Enterprise rules: with --edition "
        "enterprise; default 0, none)",
    )
    parser.add_argument(
        "--strong-consistency",
        action="append",
        default=[],
        metavar="NAMESPACE",
        help="serve NAMESPACE in strong-consistency mode, for transactions (repeatable; "
        "Enterprise rules: with --edition enterprise)",
    )
    parser.add_argument(
        "--cluster-name",
        default=None,
        metavar="NAME",
        help="the cluster's name, which clients configured with one check (default: none, "
        "answered as 'null')",
    )
    args = parser.parse_args(argv)
    namespaces = args.namespaces or DEFAULT_NAMESPACES
    server: EmbeddedServer | EmbeddedCluster
    try:
        if args.nodes == 1 and not args.racks:
            server = EmbeddedServer(
                args.host,
                args.port,
                namespaces,
                edition=args.edition,
                strong_consistency=args.strong_consistency,
                cluster_name=args.cluster_name,
            )
        else:
            rf = min(args.replication_factor, args.nodes)
            server = EmbeddedCluster(
                args.nodes,
                rf,
                host=args.host,
                port=args.port,
                namespaces=namespaces,
                edition=args.edition,
                racks=args.racks,
                strong_consistency=args.strong_consistency,
                cluster_name=args.cluster_name,
            )
    except (AerospikeError, ValueError) as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 1
    print(f"aerospike_fluent embedded server listening on {server.seeds}", flush=True)
    print(f"namespaces: {', '.join(namespaces)}; Ctrl-C to stop")
    try:
        while _running(server):
            time.sleep(0.2)
    except KeyboardInterrupt:
        print("stopping", flush=True)
    finally:
        server.stop()
    return 0


def _running(server: EmbeddedServer | EmbeddedCluster) -> bool:
    if isinstance(server, EmbeddedServer):
        return server.running
    return any(n.status != "removed" for n in server.nodes)


if __name__ == "__main__":
    sys.exit(main())
