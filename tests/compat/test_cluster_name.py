"""`cluster-name` of the embedded server: clients configured with a cluster name (the C
client's ``cluster_name``, the Rust client's ``AEROSPIKE_CLUSTER``) connect only to a node of
that name (issue 56)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex

from aerospike_fluent.server import EmbeddedCluster, EmbeddedServer

pytestmark = pytest.mark.compat


def _client(seeds: str, lua_path: Path, **config: Any) -> Any:
    hosts = [(h, int(p)) for h, _, p in (seed.rpartition(":") for seed in seeds.split(","))]
    return aerospike.client({"hosts": hosts, "lua": {"user_path": str(lua_path)}, **config})


def _cluster_name(client: Any) -> str:
    return str(next(iter(client.info_all("cluster-name").values()))[1]).strip()


def test_a_client_configured_with_the_name_connects(lua_path: Path) -> None:
    with EmbeddedServer(cluster_name="fluent-ci") as server:
        c = _client(server.seeds, lua_path, cluster_name="fluent-ci").connect()
        try:
            assert _cluster_name(c) == "fluent-ci"
            c.put(("test", "cluster_name", 1), {"a": 1})
        finally:
            c.close()
        with pytest.raises(ex.AerospikeError):
            _client(server.seeds, lua_path, cluster_name="other").connect()


def test_every_node_of_a_cluster_carries_the_name(lua_path: Path) -> None:
    with EmbeddedCluster(nodes=2, replication_factor=2, cluster_name="fluent-ci") as cluster:
        c = _client(cluster.seeds, lua_path, cluster_name="fluent-ci").connect()
        try:
            names = {str(v[1]).strip() for v in c.info_all("cluster-name").values()}
            assert names == {"fluent-ci"} and len(c.get_nodes()) == 2
        finally:
            c.close()


@pytest.mark.skipif(bool(os.environ.get("AEROSPIKE_HOST")), reason="a real node has a name")
def test_without_a_name_it_answers_null(client: Any) -> None:
    assert _cluster_name(client) == "null"


@pytest.mark.parametrize("name", ["", "x" * 64, "two words", "a;b"])
def test_a_name_a_node_could_not_start_with_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="cluster_name"):
        EmbeddedServer(cluster_name=name)


def test_the_command_line_takes_a_cluster_name(lua_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "aerospike_fluent.server", "--port=0", "--cluster-name=from-cli"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        seeds = proc.stdout.readline().split()[-1]
        c = _client(seeds, lua_path, cluster_name="from-cli").connect()
        try:
            assert _cluster_name(c) == "from-cli"
        finally:
            c.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
