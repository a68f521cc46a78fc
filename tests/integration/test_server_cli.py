"""The server's command line and embedded URLs: a busy port or a bad option is one line on
stderr; ``--nodes`` and ``embedded://?nodes=`` start a cluster every client discovers."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync


def test_a_busy_port_is_one_line_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "aerospike_fluent.server", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Address already in use" in lines[0] and "Traceback" not in done.stderr


def test_nodes_starts_a_cluster_any_client_discovers() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "aerospike_fluent.server", "--port", "0", "--nodes", "3"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("aerospike_fluent embedded server listening on")
        seeds = first.split()[-1].split(",")
        assert len(seeds) == 3
        with af_sync.connect(seeds[0]) as db:
            assert len(db.node_names()) == 3
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_bad_node_count_is_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aerospike_fluent.server", "--port", "0", "--nodes", "99"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "nodes must be within 1..32" in done.stderr


def test_connect_embedded_cluster_url() -> None:
    with af_sync.connect("embedded://?nodes=3&replication_factor=2") as db:
        cluster = db.embedded_cluster
        assert cluster is not None and db.embedded_server is None
        assert len(cluster.nodes) == 3 and len(db.node_names()) == 3
        db.namespace("test").set("cli_url").key(1).put({"a": 1})
        assert cluster.stats()["records"] == 2
        assert sorted(db.node_names()) == sorted(n.name for n in cluster.nodes)
        cluster.nodes[2].kill()  # the guide's cluster API, on the client's own cluster
        assert cluster.nodes[2].status == "down"
    assert cluster.nodes[0].status == "up"  # nodes stop with the client; state stays readable


def test_connect_embedded_refuses_unknown_options() -> None:
    with pytest.raises(
        errors.InvalidArgumentError, match="unknown embedded option 'node'; did you mean 'nodes'"
    ):
        af_sync.connect("embedded://?node=3")
    with pytest.raises(errors.InvalidArgumentError, match="replication_factor must be within"):
        af_sync.connect("embedded://?nodes=2&replication_factor=3")
