"""``get``, ``put`` and ``delete`` of one record, printing the record and its metadata."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table

from aerospike_fluent._exec import Sync
from aerospike_fluent._native import Record
from aerospike_fluent.cli.connection import Connection, connection_options
from aerospike_fluent.cli.output import cell, fail, note, stdout, to_json
from aerospike_fluent.cli.targets import KEY_TYPES, KeyType, check_namespace, target, user_key
from aerospike_fluent.client import SyncClient
from aerospike_fluent.keys import KeyRef

NOT_FOUND = 1

_key_type = click.option(
    "--key-type",
    type=click.Choice(KEY_TYPES),
    default="auto",
    show_default=True,
    help="How KEY is read: auto makes an integer an int key, anything else a str; bytes is hex.",
)
_as_json = click.option(
    "--json", "as_json", is_flag=True, help="Print the record as one JSON document."
)


@click.command(name="get")
@click.argument("location", metavar="NS.SET")
@click.argument("key")
@click.option("--bins", metavar="A,B,...", help="Read only these bins.")
@_key_type
@_as_json
@connection_options
def get(
    connection: Connection,
    location: str,
    key: str,
    bins: str | None,
    key_type: KeyType,
    as_json: bool,
) -> None:
    """Print the record KEY of NS.SET with its generation and TTL."""
    with connection.open() as db:
        ref = _ref(db, location, key, key_type)
        names = [b.strip() for b in bins.split(",") if b.strip()] if bins else []
        _print(ref, ref.get(*names), as_json)


@click.command(name="put")
@click.argument("location", metavar="NS.SET")
@click.argument("key")
@click.argument("bins", nargs=-1, metavar="BIN=VALUE...")
@click.option(
    "--ttl", type=int, help="Seconds to live (-1: never expires; default: the namespace's)."
)
@_key_type
@_as_json
@connection_options
def put(
    connection: Connection,
    location: str,
    key: str,
    bins: tuple[str, ...],
    ttl: int | None,
    key_type: KeyType,
    as_json: bool,
) -> None:
    """Write BIN=VALUE pairs to the record KEY of NS.SET; a VALUE that is JSON is read as JSON.

    age=42 is an int, tags='["a","b"]' a list, name=Ann (not JSON) the text Ann.
    """
    values = dict(_bin(pair) for pair in bins)
    if not values:
        fail("give at least one BIN=VALUE to write")
    with connection.open() as db:
        ref = _ref(db, location, key, key_type)
        ref.put(values, ttl=ttl, send_key=True)
        _print(ref, ref.get(), as_json)


@click.command(name="delete")
@click.argument("location", metavar="NS.SET")
@click.argument("key")
@_key_type
@connection_options
def delete(connection: Connection, location: str, key: str, key_type: KeyType) -> None:
    """Delete the record KEY of NS.SET (exit code 1 when there was none)."""
    with connection.open() as db:
        ref = _ref(db, location, key, key_type)
        if not ref.delete():
            note(f"no record {key} in {location}")
            raise click.exceptions.Exit(NOT_FOUND)
    click.echo(f"deleted {key} from {location}")


def _ref(db: SyncClient, location: str, key: str, key_type: KeyType) -> KeyRef[Sync]:
    named = target(location, need_set=True)
    check_namespace(db, named.namespace)
    return db.namespace(named.namespace).set(str(named.set)).key(user_key(key, key_type))


def _bin(pair: str) -> tuple[str, Any]:
    name, eq, text = pair.partition("=")
    if not eq or not name:
        fail(f"{pair!r} is not BIN=VALUE")
    try:
        return name, json.loads(text)
    except ValueError:
        return name, text


def _print(ref: KeyRef[Sync], record: Record | None, as_json: bool) -> None:
    namespace, set_name, user, _ = ref.key
    if record is None:
        note(f"no record {user!r} in {namespace}.{set_name}")
        raise click.exceptions.Exit(NOT_FOUND)
    meta = {
        "namespace": namespace,
        "set": set_name,
        "key": user,
        "generation": record.generation,
        "ttl": record.ttl,
    }
    if as_json:
        click.echo(to_json({**meta, "bins": dict(record.bins)}))
        return
    table = Table(title=f"{namespace}.{set_name} {user!r}", title_justify="left", show_header=True)
    table.add_column("bin")
    table.add_column("value", overflow="fold")
    for name, value in record.bins.items():
        table.add_row(name, cell(value, width=1000))
    stdout.print(table)
    ttl = "never expires" if record.ttl is None else f"{record.ttl:,} s"
    stdout.print(f"generation {record.generation}, ttl {ttl}", highlight=False)
