"""In-process servers across ``fork()``.

A forked child closes the sockets of the servers its parent runs (their listeners and accepted
connections), so the parent can restart on its port and nothing connects to a listener nobody
serves; the child sees those servers as stopped.
"""

from __future__ import annotations

import os
import socket
import weakref
from typing import TypeVar

from aerospike_fluent import _native

InProcess = TypeVar("InProcess", _native.EmbeddedServer, _native.EmbeddedCluster)
_STARTED: weakref.WeakSet[_native.EmbeddedServer | _native.EmbeddedCluster] = weakref.WeakSet()


def started(server: InProcess) -> InProcess:
    """Remember an in-process server or cluster, so that a forked child closes its sockets."""
    _STARTED.add(server)
    return server


def _ports(server: _native.EmbeddedServer | _native.EmbeddedCluster) -> list[int]:
    if isinstance(server, _native.EmbeddedServer):
        return [server.port]
    return server.ports


def _server_sockets(ports: set[int]) -> list[int]:
    """Descriptors of the TCP sockets bound to one of ``ports``.

    Those are listeners and the connections they accepted; a client's socket has an ephemeral
    local port.
    """
    try:
        fds = [int(name) for name in os.listdir("/dev/fd")]
    except OSError:
        return []
    found = []
    for fd in fds:
        try:
            sock = socket.socket(fileno=fd)
        except OSError:
            continue  # not a socket (or already closed)
        try:
            local = sock.getsockname()
            if (
                sock.family in (socket.AF_INET, socket.AF_INET6)
                and sock.type == socket.SOCK_STREAM
                and local[1] in ports
            ):
                found.append(fd)
        except OSError:
            pass
        finally:
            sock.detach()
    return found


def _close_inherited_servers() -> None:
    """In a forked child: close the sockets of the servers the parent runs.

    The parent can then restart on its port, and nothing connects to a listener nobody serves.
    """
    servers = list(_STARTED)
    if not servers:
        return
    for fd in _server_sockets({port for srv in servers for port in _ports(srv)}):
        os.close(fd)
    for srv in servers:
        srv._forget_after_fork()


os.register_at_fork(after_in_child=_close_inherited_servers)
