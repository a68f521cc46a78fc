"""``info [NODE]``: the cluster's nodes, namespaces, sets, secondary indexes and UDF modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from rich.table import Table

from aerospike_fluent.cli.cluster_facts import ClusterFacts, gather
from aerospike_fluent.cli.connection import Connection, connection_options
from aerospike_fluent.cli.output import stdout, to_json


@click.command(name="info")
@click.argument("node", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the facts as one JSON document.")
@connection_options
def command(connection: Connection, node: str | None, as_json: bool) -> None:
    """Show the cluster (or NODE, a name or HOST:PORT): nodes, namespaces, sets, indexes, UDFs."""
    with connection.open() as db:
        facts = gather(db, node)
    if as_json:
        click.echo(to_json(facts.to_dict()))
        return
    for table in tables(facts):
        stdout.print(table)


def tables(facts: ClusterFacts) -> list[Table]:
    """Return the facts as one table per kind of thing."""
    name = facts.cluster_name or "(unnamed)"
    return [
        _table(
            f"Cluster {name}: {len(facts.nodes)} node(s)",
            ("node", "address", "build", "rack", "partitions (masters/replicas)"),
            [
                (
                    n["name"],
                    n["address"],
                    n["build"],
                    _or_dash(n["rack"]),
                    _partitions(n["partitions"]),
                )
                for n in facts.nodes
            ],
        ),
        _table(
            "Namespaces",
            (
                "namespace",
                "objects",
                "replicas",
                "data used",
                "data size",
                "used",
                "index used",
                "sets",
            ),
            [
                (
                    ns["name"],
                    f"{ns['objects']:,}",
                    f"{ns['replica_objects']:,}",
                    _bytes(ns["data_used_bytes"]),
                    _bytes(ns["data_total_bytes"]),
                    _percent(ns["data_used_bytes"], ns["data_total_bytes"]),
                    _bytes(ns["index_used_bytes"]),
                    str(sum(1 for s in facts.sets if s["namespace"] == ns["name"])),
                )
                for ns in facts.namespaces
            ],
        ),
        _table(
            "Sets",
            ("namespace", "set", "objects", "data used", "indexes"),
            [
                (
                    s["namespace"],
                    s["set"],
                    f"{s['objects']:,}",
                    _bytes(s["data_used_bytes"]),
                    str(s["indexes"]),
                )
                for s in facts.sets
            ],
        ),
        _table(
            "Secondary indexes",
            ("namespace", "set", "index", "on", "type", "collection", "state"),
            [
                (
                    i["namespace"],
                    i["set"] or "",
                    i["name"],
                    i["bin"] or ("expression" if i["expression"] else ""),
                    i["type"].lower(),
                    i["collection"].lower(),
                    i["state"],
                )
                for i in facts.indexes
            ],
        ),
        _table(
            "UDF modules",
            ("module", "type", "hash"),
            [(u["file"], u["type"], u["hash"]) for u in facts.udf_modules],
        ),
    ]


def _table(title: str, columns: Sequence[str], rows: list[tuple[str, ...]]) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*row)
    if not rows:
        table.add_row("(none)", *[""] * (len(columns) - 1))
    return table


def _partitions(held: dict[str, Any]) -> str:
    return ", ".join(f"{ns} {p['masters']}/{p['replicas']}" for ns, p in sorted(held.items()))


def _or_dash(value: object) -> str:
    return "-" if value is None else str(value)


def _bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def _percent(used: int, total: int) -> str:
    return f"{100 * used / total:.1f}%" if total else "-"
