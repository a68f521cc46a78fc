"""Raw Aerospike wire frames for hostile-input tests: AS_MSG requests built byte by byte, so a
test can send what no well-behaved client would, and read the reply's result code."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PROTO_INFO = 1
PROTO_MSG = 3

# field types
NAMESPACE, SET, KEY, DIGEST = 0, 1, 2, 4
UDF_PACKAGE, UDF_FUNCTION, UDF_ARGLIST, UDF_OP = 30, 31, 32, 33
BATCH_INDEX, FILTER_EXP = 41, 43

# op types
READ, WRITE, CDT_READ, CDT_MODIFY, EXP_READ, EXP_MODIFY = 1, 2, 3, 4, 7, 8

# particle types
INTEGER, STRING, LIST = 1, 3, 20

INFO1_READ, INFO1_GET_ALL = 1, 2
INFO2_WRITE = 1
INFO3_LAST = 1


def proto(ptype: int, body: bytes) -> bytes:
    """A proto frame: version 2, ``ptype``, 48-bit length, ``body``."""
    return struct.pack(">Q", (2 << 56) | (ptype << 48) | len(body)) + body


def field(ftype: int, data: bytes) -> bytes:
    return struct.pack(">IB", len(data) + 1, ftype) + data


def op(otype: int, name: bytes, ptype: int, data: bytes) -> bytes:
    head = struct.pack(">IBBBB", len(name) + len(data) + 4, otype, ptype, 0, len(name))
    return head + name + data


def digest_of(name: str) -> bytes:
    """A 20-byte digest (the server trusts whatever digest it is given)."""
    return (name.encode() * 20)[:20]


def msg(
    fields: Sequence[bytes],
    ops: Sequence[bytes] = (),
    *,
    info1: int = 0,
    info2: int = 0,
    info3: int = 0,
    timeout_ms: int = 0,
) -> bytes:
    """An AS_MSG request frame."""
    header = bytes([22, info1, info2, info3, 0, 0]) + struct.pack(
        ">IIIHH", 0, 0, timeout_ms, len(fields), len(ops)
    )
    return proto(PROTO_MSG, header + b"".join(fields) + b"".join(ops))


def record_fields(set_name: str, key: str) -> list[bytes]:
    """Namespace ``test``, the set and a digest for ``key``."""
    return [
        field(NAMESPACE, b"test"),
        field(SET, set_name.encode()),
        field(DIGEST, digest_of(f"{set_name}/{key}")),
    ]


def deep_list(depth: int) -> bytes:
    """msgpack of ``[[[...[1]...]]]`` nested ``depth`` lists deep."""
    return b"\x91" * depth + b"\x01"


def deep_not(depth: int) -> bytes:
    """A packed expression ``not(not(...true))`` ``depth`` operators deep."""
    return b"\x92\x12" * depth + b"\xc3"


@dataclass(frozen=True)
class Reply:
    """One AS_MSG reply: its result code and the raw bytes after the header."""

    result_code: int
    info3: int
    rest: bytes


def read_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(sock: socket.socket) -> tuple[int, bytes]:
    """(proto type, body) of the next frame."""
    word = struct.unpack(">Q", read_exact(sock, 8))[0]
    return (word >> 48) & 0xFF, read_exact(sock, word & 0xFFFF_FFFF_FFFF)


def first_reply(sock: socket.socket) -> Reply:
    """The first AS_MSG of the next frame."""
    _, body = read_frame(sock)
    return Reply(result_code=body[5], info3=body[3], rest=body[22:])


def request(host: str, port: int, frame: bytes, timeout: float = 10.0) -> Reply:
    """Send ``frame`` on a fresh connection; the first reply message."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(frame)
        return first_reply(s)


def skim_replies(sock: socket.socket) -> Iterable[tuple[int, int]]:
    """(size, result code) of every message of a multi-frame reply, up to the LAST one, read
    piece by piece (the reply is never held whole)."""
    while True:
        word = struct.unpack(">Q", read_exact(sock, 8))[0]
        left = word & 0xFFFF_FFFF_FFFF
        while left:
            head = read_exact(sock, 22)
            n_fields, n_ops = struct.unpack(">HH", head[18:22])
            size = 22
            for _ in range(n_fields + n_ops):
                (sz,) = struct.unpack(">I", read_exact(sock, 4))
                _drain(sock, sz)
                size += 4 + sz
            left -= size
            yield size, head[5]
            if head[3] & INFO3_LAST:
                return


def _drain(sock: socket.socket, n: int) -> None:
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        n -= len(chunk)


def udf_call(set_name: str, key: str, module: str, function: str, args: bytes) -> bytes:
    """A record UDF request; ``args`` is the msgpack list of arguments."""
    return msg(
        [
            *record_fields(set_name, key),
            field(UDF_PACKAGE, module.encode()),
            field(UDF_FUNCTION, function.encode()),
            field(UDF_ARGLIST, args),
            field(UDF_OP, b"\x01"),
        ],
        info2=INFO2_WRITE,
    )


def write(set_name: str, key: str, ops: Sequence[bytes]) -> bytes:
    """A write of ``ops`` to ``test/<set_name>/<key>``."""
    return msg(record_fields(set_name, key), ops, info2=INFO2_WRITE)


def read(set_name: str, key: str, ops: Sequence[bytes] = (), filter_exp: bytes = b"") -> bytes:
    """A read (all bins when ``ops`` is empty), with a filter expression when given."""
    fields = record_fields(set_name, key)
    if filter_exp:
        fields.append(field(FILTER_EXP, filter_exp))
    info1 = INFO1_READ | (0 if ops else INFO1_GET_ALL)
    return msg(fields, ops, info1=info1)


def batch_read(rows: int, set_name: str, key: str) -> bytes:
    """A batch reading all bins of the same record ``rows`` times (one row, then repeats)."""
    digest = digest_of(f"{set_name}/{key}")
    body = struct.pack(">I", 0) + digest + bytes([0, INFO1_READ | INFO1_GET_ALL])
    body += struct.pack(">HH", 1, 0) + field(NAMESPACE, b"test")
    for i in range(1, rows):
        body += struct.pack(">I", i) + digest + bytes([1])  # repeat the previous row
    return msg([field(BATCH_INDEX, struct.pack(">IB", rows, 0) + body)], info1=INFO1_READ)


def failure_text(reply: Reply) -> str:
    """The string in a UDF reply's single op (bin FAILURE or SUCCESS)."""
    size, _, _, _, name_len = struct.unpack(">IBBBB", reply.rest[:8])
    return reply.rest[8 + name_len : 4 + size].decode(errors="replace")
