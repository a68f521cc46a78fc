"""The official C client against a 3-node embedded cluster: it discovers every node from one
seed, routes to partition masters, scans every partition once, and follows a node's loss."""

from __future__ import annotations

import time
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex

from aerospike_fluent.server import EmbeddedCluster

N = 300


def _connect(cluster: EmbeddedCluster, tmp_path: Any) -> Any:
    seed = cluster.nodes[0]
    config = {"hosts": [(seed.host, seed.port)], "lua": {"user_path": str(tmp_path)}}
    return aerospike.client(config).connect()


def _settle(client: Any, nodes: int) -> None:
    for _ in range(100):
        if len(client.get_node_names()) == nodes:
            time.sleep(1.2)  # one more tend: every node's partition map is in
            return
        time.sleep(0.1)
    pytest.fail(f"client sees {client.get_node_names()}, wanted {nodes} nodes")


def test_c_client_discovers_routes_and_scans(
    aerospike_cluster: EmbeddedCluster, set_name: str, tmp_path: Any
) -> None:
    client = _connect(aerospike_cluster, tmp_path)
    try:
        _settle(client, 3)
        for node in aerospike_cluster.nodes:
            node.reset_stats()
        for i in range(N):
            client.put(("test", set_name, i), {"i": i})
        writes = [n.stats()["write"] for n in aerospike_cluster.nodes]
        assert sum(writes) == N and all(w > N // 6 for w in writes), writes
        assert aerospike_cluster.stats()["records"] == 2 * N
        found = sorted(bins["i"] for _, _, bins in client.scan("test", set_name).results())
        assert found == list(range(N))
    finally:
        client.close()


def test_c_client_follows_a_killed_node(
    aerospike_cluster: EmbeddedCluster, set_name: str, tmp_path: Any
) -> None:
    client = _connect(aerospike_cluster, tmp_path)
    try:
        _settle(client, 3)
        for i in range(N):
            client.put(("test", set_name, i), {"i": i})
        aerospike_cluster.nodes[2].kill()
        _settle(client, 2)
        for i in range(N):
            _, _, bins = client.get(("test", set_name, i))
            assert bins == {"i": i}
        found = sorted(bins["i"] for _, _, bins in client.scan("test", set_name).results())
        assert found == list(range(N))
        with pytest.raises(ex.RecordNotFound):
            client.get(("test", set_name, N + 1))
    finally:
        client.close()
