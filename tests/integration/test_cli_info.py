"""``aerospike-fluent info``: the cluster's nodes, namespaces, sets, indexes and UDF modules."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster

from ._cli import cli

MODULE = b"function one(rec) return 1 end"


@pytest.fixture
def furnished(sdb: af.SyncClient, set_name: str) -> Iterator[tuple[str, str, str]]:
    """A set of 3 records with an index on it, and a UDF module: (set, index, module)."""
    records = sdb.namespace("test").set(set_name)
    for i in range(3):
        records.key(i).put({"age": i})
    index = records.create_index("age", "numeric", name=f"{set_name}_age")
    module = sdb.udf_register(MODULE, f"{set_name}.lua")
    yield set_name, index, module
    records.drop_index(index)
    sdb.udf_remove(module)


def test_info_prints_a_table_of_each_kind_of_thing(
    seeds: str, furnished: tuple[str, str, str]
) -> None:
    set_name, index, module = furnished
    done = cli(seeds, "info")
    assert done.returncode == 0, done.stderr
    titles = [line.strip() for line in done.stdout.splitlines() if line[:1].isalpha()]
    assert [t.split(":")[0].split(" ")[0] for t in titles] == [
        "Cluster",
        "Namespaces",
        "Sets",
        "Secondary",
        "UDF",
    ]
    set_row = next(line for line in done.stdout.splitlines() if f" {set_name} " in line)
    assert [c.strip() for c in set_row.strip("│ ").split("│")][:3] == ["test", set_name, "3"]
    assert index in done.stdout and module in done.stdout


def test_info_json_holds_the_same_facts(
    seeds: str, sdb: af.SyncClient, furnished: tuple[str, str, str]
) -> None:
    set_name, index, module = furnished
    done = cli(seeds, "info", "--json")
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout)
    nodes = sdb.nodes()
    assert sorted(n["name"] for n in facts["nodes"]) == sorted(n.name for n in nodes)
    assert sorted(n["address"] for n in facts["nodes"]) == sorted(n.address for n in nodes)
    assert "test" in [ns["name"] for ns in facts["namespaces"]]
    assert {"namespace": "test", "set": set_name, "objects": 3} == {
        k: v
        for s in facts["sets"]
        if s["set"] == set_name
        for k, v in s.items()
        if k in ("namespace", "set", "objects")
    }
    mine = [i for i in facts["indexes"] if i["name"] == index]
    assert [(i["set"], i["bin"], i["type"].lower()) for i in mine] == [(set_name, "age", "numeric")]
    assert module in [u["file"] for u in facts["udf_modules"]]


def test_info_of_one_node_by_name_or_address(seeds: str, sdb: af.SyncClient) -> None:
    node = sdb.nodes()[0]
    for wanted in (node.name, node.address):
        done = cli(seeds, "info", wanted, "--json")
        assert done.returncode == 0, done.stderr
        assert [n["name"] for n in json.loads(done.stdout)["nodes"]] == [node.name]


def test_an_unknown_node_fails_naming_the_nodes(seeds: str, sdb: af.SyncClient) -> None:
    done = cli(seeds, "info", "NO_SUCH_NODE")
    assert done.returncode == 1
    assert "no node 'NO_SUCH_NODE'" in done.stderr and sdb.nodes()[0].name in done.stderr


def test_a_cluster_is_shown_node_by_node(cluster: EmbeddedCluster) -> None:
    with af_sync.connect(cluster.seeds) as db:
        for i in range(10):
            db.namespace("test").set("ten").key(i).put({"a": i})
    done = cli(cluster.seeds, "info", "--json")
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout)
    assert sorted(n["name"] for n in facts["nodes"]) == sorted(n.name for n in cluster.nodes)
    masters = sum(n["partitions"]["test"]["masters"] for n in facts["nodes"])
    replicas = sum(n["partitions"]["test"]["replicas"] for n in facts["nodes"])
    assert (masters, replicas) == (4096, 4096)
    test = next(ns for ns in facts["namespaces"] if ns["name"] == "test")
    assert (test["objects"], test["replica_objects"], test["replication_factor"]) == (10, 10, 2)
    assert [(s["set"], s["objects"]) for s in facts["sets"]] == [("ten", 10)]
