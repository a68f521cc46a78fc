"""A TCP relay in front of a server that keeps every record request (proto type 3) its clients
send, so a test can compare what two clients put on the wire for the same call."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from aerospike_fluent import _native as n

AS_MSG = 3
CRATE = "AEROSPIKE_FLUENT_CRATE_RECORDS"
"""Set while a client connects: that client's records go through the crate."""


class Recorder:
    """Relays ``127.0.0.1:port`` to ``upstream``; ``requests`` holds each AS_MSG body."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.requests: list[bytes] = []
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._open: list[socket.socket] = [self._listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def take(self) -> list[bytes]:
        """The requests recorded since the last ``take``."""
        with self._lock:
            out, self.requests = self.requests, []
        return out

    def close(self) -> None:
        for s in self._open:
            with suppress(OSError):
                s.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self._open += [client, server]
            threading.Thread(target=self._pipe, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, record: bool) -> None:
        buf = b""
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                dst.close()
                return
            if record:  # recorded before it is passed on, so before any answer
                buf = self._record(buf + data)
            try:
                dst.sendall(data)
            except OSError:
                return

    def _record(self, buf: bytes) -> bytes:
        """Keep each whole AS_MSG request of ``buf``; what is left of it."""
        while len(buf) >= 8:
            size = int.from_bytes(buf[2:8], "big")
            if len(buf) < 8 + size:
                break
            if buf[1] == AS_MSG:
                with self._lock:
                    self.requests.append(buf[8 : 8 + size])
            buf = buf[8 + size :]
        return buf


@contextmanager
def recording(upstream: tuple[str, int]) -> Iterator[Recorder]:
    r = Recorder(upstream)
    try:
        yield r
    finally:
        r.close()


class ClientPair:
    """A crate-path client and a wire-path client behind one recorder."""

    def __init__(self, rec: Recorder, probe: n.Key) -> None:
        self.rec = rec
        seed = f"127.0.0.1:{rec.port}"
        os.environ[CRATE] = "1"
        try:
            self.crate = n.connect_blocking(n.ClientConfig(seed))
            self.crate.get_blocking(probe, None, False, None)  # its pools, made with the env set
        finally:
            del os.environ[CRATE]
        self.wire = n.connect_blocking(n.ClientConfig(seed))

    def close(self) -> None:
        self.crate.close()
        self.wire.close()


def without_timeout(msg: bytes | str) -> bytes | str:
    """A request with the timeout it tells the server blanked (bytes 14..18 of the header)."""
    if isinstance(msg, str):
        return msg
    return msg[:14] + b"\0\0\0\0" + msg[18:]
