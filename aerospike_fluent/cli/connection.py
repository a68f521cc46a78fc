"""The connection options every command takes: those of ``connect()``, as flags.

A flag left out is not passed, so the config file (``--config`` or
``AEROSPIKE_FLUENT_CONFIG``) and ``AEROSPIKE_HOST`` fill it in exactly as they do for
``connect()``; a flag given wins over them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import click

from aerospike_fluent import sync
from aerospike_fluent.client import SyncClient

R = TypeVar("R")

_OPTIONS = (
    click.option(
        "--host",
        metavar="HOST:PORT[,...]",
        help="Seed nodes (default: AEROSPIKE_HOST, the config file's seeds, 127.0.0.1:3000).",
    ),
    click.option(
        "--config",
        metavar="FILE",
        help="A connect() config file (default: the one AEROSPIKE_FLUENT_CONFIG names).",
    ),
    click.option("--user", help="User name (Enterprise security)."),
    click.option(
        "--password",
        envvar="AEROSPIKE_PASSWORD",
        show_envvar=True,
        help="Password of --user.",
    ),
    click.option(
        "--auth-mode",
        type=click.Choice(["internal", "external", "pki"]),
        help="How the user is checked (default internal).",
    ),
    click.option("--cluster-name", help="Refuse nodes of another cluster."),
    click.option("--tls-name", help="The name the server certificate carries."),
    click.option("--tls-ca-file", metavar="PEM", help="CA(s) to trust; turns TLS on."),
    click.option("--tls-cert-file", metavar="PEM", help="Client certificate (mutual TLS)."),
    click.option("--tls-key-file", metavar="PEM", help="Client certificate's key."),
    click.option(
        "--timeout",
        "total_timeout",
        type=click.FloatRange(min=0),
        metavar="SECONDS",
        help="Total time of a command, retries included (default 1; queries: none).",
    ),
    click.option(
        "--connect-timeout",
        type=click.FloatRange(min=0),
        metavar="SECONDS",
        help="Time to connect to a node (default 1).",
    ),
)
_NAMES = (
    "host",
    "config",
    "user",
    "password",
    "auth_mode",
    "cluster_name",
    "tls_name",
    "tls_ca_file",
    "tls_cert_file",
    "tls_key_file",
    "total_timeout",
    "connect_timeout",
)


@dataclass(frozen=True, slots=True)
class Connection:
    """Where to connect: the seeds given (or None) and the ``connect()`` options given."""

    host: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @contextmanager
    def open(self) -> Iterator[SyncClient]:
        """Connect a blocking client, closed on exit."""
        with sync.connect(self.host, **self.options) as db:
            yield db


def connection_options(command: Callable[..., R]) -> Callable[..., R]:
    """Add the connection flags to ``command``, which receives them as ``connection``.

    Flags given before the command name (:func:`group_connection_options`) count too; the
    command's own win.
    """

    @functools.wraps(command)
    def with_connection(**flags: Any) -> R:
        before = click.get_current_context().find_root().obj or {}
        given = {**before, **_given(flags)}
        host = given.pop("host", None)
        return command(connection=Connection(host, given), **flags)

    return _with_flags(with_connection)


def group_connection_options(group: Callable[[], None]) -> Callable[..., None]:
    """Add the connection flags to the command group, keeping them for its command."""

    @functools.wraps(group)
    def keep(**flags: Any) -> None:
        click.get_current_context().obj = _given(flags)
        group()

    return _with_flags(keep)


def _given(flags: dict[str, Any]) -> dict[str, Any]:
    """Take the connection flags out of ``flags``: those given."""
    taken = {name: flags.pop(name) for name in _NAMES}
    return {name: value for name, value in taken.items() if value is not None}


def _with_flags(callback: Callable[..., R]) -> Callable[..., R]:
    for option in reversed(_OPTIONS):
        callback = option(callback)
    return callback
