"""What ``info`` shows, read from the cluster's info commands: plain data, ready for JSON."""

from __future__ import annotations

import dataclasses
from typing import Any

from aerospike_fluent._indexes import parse_index_list
from aerospike_fluent.cli.output import fail
from aerospike_fluent.client import SyncClient
from aerospike_fluent.metrics import NodeInfo


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterFacts:
    """A cluster (or one node of it): nodes, namespaces, sets, indexes and UDF modules."""

    cluster_name: str | None
    nodes: list[dict[str, Any]]
    namespaces: list[dict[str, Any]]
    sets: list[dict[str, Any]]
    indexes: list[dict[str, Any]]
    udf_modules: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        """Return the facts as plain values (for ``--json``)."""
        return dataclasses.asdict(self)


def gather(db: SyncClient, node: str | None) -> ClusterFacts:
    """Read the facts of every node, or of ``node`` (a node name or ``host:port``) alone."""
    nodes = _chosen(db.nodes(), node)
    answers = {
        n.name: _ask(db, n.name, ("build", "namespaces", "sets", "cluster-name")) for n in nodes
    }
    namespaces = sorted({ns for a in answers.values() for ns in _split(a["namespaces"], ";")})
    stats = {n.name: _ask(db, n.name, tuple(f"namespace/{ns}" for ns in namespaces)) for n in nodes}
    first = nodes[0].name
    name = answers[first].get("cluster-name")
    return ClusterFacts(
        cluster_name=None if name in (None, "", "null") else name,
        nodes=[_node(n, answers[n.name]) for n in nodes],
        namespaces=[
            _namespace(ns, [stats[n.name][f"namespace/{ns}"] for n in nodes]) for ns in namespaces
        ],
        sets=_sets([answers[n.name]["sets"] for n in nodes], stats),
        indexes=[dataclasses.asdict(i) for i in _indexes(db, first)],
        udf_modules=_udf_modules(_ask(db, first, ("udf-list",))["udf-list"]),
    )


def _chosen(nodes: list[NodeInfo], wanted: str | None) -> list[NodeInfo]:
    active = [n for n in nodes if n.active]
    if wanted is None:
        if not active:
            fail("the cluster has no active node")
        return active
    for n in active:
        if wanted in (n.name, n.address):
            return [n]
    known = ", ".join(f"{n.name} ({n.address})" for n in active)
    fail(f"no node {wanted!r} in the cluster: its nodes are {known}")


def _ask(db: SyncClient, node: str, commands: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for command in commands:
        out.update(db.info(command, node=node))
    return out


def _split(text: str, sep: str) -> list[str]:
    return [part for part in text.split(sep) if part]


def _fields(text: str, sep: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in _split(text, sep) if "=" in part)


def _number(fields: dict[str, str], *names: str) -> int:
    for name in names:
        value = fields.get(name, "")
        if value.isdigit():
            return int(value)
    return 0


def _node(node: NodeInfo, answers: dict[str, str]) -> dict[str, Any]:
    return {
        "name": node.name,
        "address": node.address,
        "build": answers.get("build", ""),
        "rack": node.rack,
        "partitions": {
            ns: {"masters": p.masters, "replicas": p.replicas} for ns, p in node.partitions.items()
        },
    }


def _namespace(name: str, per_node: list[str]) -> dict[str, Any]:
    nodes = [_fields(text, ";") for text in per_node]
    total = {
        key: sum(_number(f, *names) for f in nodes)
        for key, names in {
            "objects": ("master_objects", "objects"),
            "replica_objects": ("prole_objects",),
            "data_used_bytes": ("data_used_bytes", "device_used_bytes", "memory_used_bytes"),
            "data_total_bytes": ("data_total_bytes", "device_total_bytes", "memory-size"),
            "index_used_bytes": ("index_used_bytes",),
        }.items()
    }
    factor = max(
        (_number(f, "effective_replication_factor", "replication-factor") for f in nodes), default=1
    )
    return {"name": name, "replication_factor": factor or 1, **total}


def _sets(per_node: list[str], stats: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    factors: dict[str, int] = {}
    for answers in stats.values():
        for command, text in answers.items():
            ns = command.removeprefix("namespace/")
            factors[ns] = max(
                factors.get(ns, 1), _number(_fields(text, ";"), "effective_replication_factor")
            )
    found: dict[tuple[str, str], dict[str, int]] = {}
    for text in per_node:
        for entry in _split(text, ";"):
            f = _fields(entry, ":")
            row = found.setdefault(
                (f.get("ns", ""), f.get("set", "")),
                {"objects": 0, "data_used_bytes": 0, "sindexes": 0},
            )
            row["objects"] += _number(f, "objects")
            row["data_used_bytes"] += _number(
                f, "data_used_bytes", "device_data_bytes", "memory_data_bytes"
            )
            row["sindexes"] = max(row["sindexes"], _number(f, "sindexes"))
    return [
        {
            "namespace": ns,
            "set": name,
            "objects": row["objects"] // factors.get(ns, 1)
            if len(per_node) > 1
            else row["objects"],
            "data_used_bytes": row["data_used_bytes"],
            "indexes": row["sindexes"],
        }
        for (ns, name), row in sorted(found.items())
    ]


def _indexes(db: SyncClient, node: str) -> list[Any]:
    return parse_index_list(db.info("sindex-list:", node=node)["sindex-list:"])


def _udf_modules(text: str) -> list[dict[str, Any]]:
    out = []
    for entry in _split(text, ";"):
        f = _fields(entry, ",")
        out.append(
            {
                "file": f.get("filename", ""),
                "type": f.get("type", "").lower(),
                "hash": f.get("hash", ""),
            }
        )
    return out
