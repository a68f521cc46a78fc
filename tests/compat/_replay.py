"""Requests replayed byte for byte as clients nobody here wrote send them (the Rust crate
1.x/2.x and the packages built on it), and the reply messages read back."""

from __future__ import annotations

import socket
import struct
from collections.abc import Sequence
from dataclasses import dataclass

PROTO_MSG = 3
MSG_HEADER = 22
INFO1_READ, INFO1_GET_ALL, INFO1_BATCH = 1, 2, 8
INFO2_WRITE = 1
INFO3_LAST, INFO3_PARTITION_DONE = 1, 4
NAMESPACE, SET, DIGEST, BATCH_INDEX, FILTER_EXP = 0, 1, 4, 41, 43
PID_ARRAY, N_PARTITIONS = 11, 4096
QUERY_ID, INDEX_NAME, INDEX_RANGE, INDEX_CONTEXT, INDEX_EXPRESSION, INDEX_TYPE = (
    7,
    21,
    22,
    23,
    24,
    26,
)
UDF_PACKAGE, UDF_FUNCTION, UDF_ARGLIST, UDF_OP = 30, 31, 32, 33
UDF_OP_BACKGROUND = 2
INFO1_SHORT_QUERY = 4
OP_READ, OP_WRITE = 1, 2
INTEGER, STRING, GEOJSON, LIST, MAP = 1, 3, 23, 20, 19
BATCH_ROW_REPEAT = 1

# A record digest as the official client computes it (``aerospike.calc_digest``).
Digest = bytes | bytearray


@dataclass(frozen=True)
class Reply:
    """One reply message: result code, ``info3``, the timeout slot (a batch row's index),
    the record's digest (empty when the message names none) and its ops' particle bytes."""

    result_code: int
    info3: int
    slot: int
    digest: bytes = b""
    values: tuple[bytes, ...] = ()


def field(ftype: int, data: bytes) -> bytes:
    return struct.pack(">IB", len(data) + 1, ftype) + data


def frame(body: bytes) -> bytes:
    return struct.pack(">Q", (2 << 56) | (PROTO_MSG << 48) | len(body)) + body


def header(info1: int, n_fields: int) -> bytes:
    return bytes([MSG_HEADER, info1, 0, 0, 0, 0]) + struct.pack(">IIIHH", 0, 0, 0, n_fields, 0)


def batch_rows(namespace: str, digests: Sequence[Digest]) -> bytes:
    """Batch-index rows reading every bin: the first names the namespace, the rest repeat it."""
    rows = struct.pack(">IB", len(digests), 0)
    for i, digest in enumerate(digests):
        rows += struct.pack(">I", i) + digest
        if i:
            rows += bytes([BATCH_ROW_REPEAT])
        else:
            rows += bytes([0, INFO1_READ | INFO1_GET_ALL]) + struct.pack(">HH", 1, 0)
            rows += field(NAMESPACE, namespace.encode())
    return rows


def crate_batch_with_filter(namespace: str, digests: Sequence[Digest], filter_exp: bytes) -> bytes:
    """A batch read with a filter as the Rust crate 1.x/2.x sends it: the filter field first,
    then the batch field, whose declared length also counts the filter field."""
    filter_field = field(FILTER_EXP, filter_exp)
    batch = field(BATCH_INDEX, batch_rows(namespace, digests))
    overstated = struct.pack(">I", len(batch) - 4 + len(filter_field))
    batch = overstated + batch[4:]
    return frame(header(INFO1_READ | INFO1_BATCH, 2) + filter_field + batch)


def index_range(bin_name: str, ptype: int, begin: bytes, end: bytes) -> bytes:
    """An index range field's value: one range on ``bin_name`` (empty when the request names
    the index), its value type, then both ends."""
    name = bin_name.encode()
    ends = struct.pack(">I", len(begin)) + begin + struct.pack(">I", len(end)) + end
    return bytes([1, len(name)]) + name + bytes([ptype]) + ends


def int_range(bin_name: str, low: int, high: int) -> bytes:
    """One range of integers on ``bin_name``, both ends included."""
    return index_range(bin_name, INTEGER, struct.pack(">q", low), struct.pack(">q", high))


def query(set_name: str, fields: Sequence[tuple[int, bytes]]) -> bytes:
    """A foreground query of every bin of ``set_name`` over every partition, with the given
    extra fields, as the crate 3.x sends it (a real node refuses a query without partitions)."""
    every_partition = b"".join(struct.pack("<H", pid) for pid in range(N_PARTITIONS))
    body = field(NAMESPACE, b"test") + field(SET, set_name.encode())
    body += field(PID_ARRAY, every_partition)
    body += b"".join(field(ftype, data) for ftype, data in fields)
    head = bytearray(header(INFO1_READ, 3 + len(fields)))
    head[3] = INFO3_PARTITION_DONE
    return frame(bytes(head) + body)


def crate_background_udf(
    set_name: str,
    job_id: int,
    udf: tuple[str, str, bytes],
    index_range: bytes | None = None,
    info1: int = INFO1_READ,
) -> bytes:
    """A background UDF query as the Rust crate 1.x/2.x sends it: the read flag only, the
    UDF-op field saying "background", then module, function and packed argument list."""
    module, function, args = udf
    fields = field(NAMESPACE, b"test") + field(SET, set_name.encode())
    fields += field(QUERY_ID, struct.pack(">Q", job_id))
    n_fields = 7
    if index_range is not None:
        fields += field(INDEX_RANGE, index_range)
        n_fields += 1
    fields += field(UDF_OP, bytes([UDF_OP_BACKGROUND]))
    fields += field(UDF_PACKAGE, module.encode()) + field(UDF_FUNCTION, function.encode())
    fields += field(UDF_ARGLIST, args)
    return frame(header(info1, n_fields) + fields)


def write_int(set_name: str, digest: Digest, bin_name: bytes, value: int, ttl: int = 0) -> bytes:
    """A single-record write of integer ``value`` to bin ``bin_name`` (any bytes) with wire
    TTL ``ttl``."""
    data = struct.pack(">q", value)
    return _single(set_name, digest, 0, INFO2_WRITE, OP_WRITE, bin_name, data, ttl)


def write_bin(set_name: str, digest: Digest, bin_name: bytes, ptype: int, data: bytes) -> bytes:
    """A single-record write of particle ``data`` of type ``ptype`` (msgpack for a list or
    map) to bin ``bin_name``."""
    return _single(set_name, digest, 0, INFO2_WRITE, OP_WRITE, bin_name, data, ptype=ptype)


def read_bin(set_name: str, digest: Digest, bin_name: bytes) -> bytes:
    """A single-record read of bin ``bin_name`` (any bytes)."""
    return _single(set_name, digest, INFO1_READ, 0, OP_READ, bin_name, b"")


def _single(
    set_name: str,
    digest: Digest,
    info1: int,
    info2: int,
    otype: int,
    name: bytes,
    data: bytes,
    ttl: int = 0,
    ptype: int = INTEGER,
) -> bytes:
    fields = field(NAMESPACE, b"test") + field(SET, set_name.encode())
    fields += field(DIGEST, bytes(digest))
    ptype = ptype if data else 0
    op = struct.pack(">IBBBB", 4 + len(name) + len(data), otype, ptype, 0, len(name))
    head = bytes([MSG_HEADER, info1, info2, 0, 0, 0]) + struct.pack(">IIIHH", 0, ttl, 0, 3, 1)
    return frame(head + fields + op + name + data)


def exchange(
    address: tuple[str, int], request: bytes, timeout: float = 5.0, stream: bool = False
) -> list[Reply]:
    """Sends ``request`` and reads its reply: a batch's or a ``stream``'s (a query's) messages
    up to the one marked last, another request's one frame."""
    until_last = stream or request[9] & INFO1_BATCH != 0
    replies: list[Reply] = []
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.sendall(request)
        while not replies or (until_last and not _ends(replies[-1])):
            size = struct.unpack(">Q", _read(sock, 8))[0] & 0xFFFF_FFFF_FFFF
            replies += _messages(_read(sock, size))
    return replies


def _ends(reply: Reply) -> bool:
    """Whether a batch or stream ends with ``reply``: marked last, or (a real node's refusal)
    an error that is not a partition's."""
    return bool(reply.info3 & INFO3_LAST) or (
        reply.result_code != 0 and not reply.info3 & INFO3_PARTITION_DONE
    )


def _messages(body: bytes) -> list[Reply]:
    out = []
    at = 0
    while at < len(body):
        info3, result = body[at + 3], body[at + 5]
        slot, n_fields, n_ops = struct.unpack(">IHH", body[at + 14 : at + 22])
        at += MSG_HEADER
        digest = b""
        for _ in range(n_fields):
            size = struct.unpack(">I", body[at : at + 4])[0]
            if body[at + 4] == DIGEST:
                digest = body[at + 5 : at + 4 + size]
            at += 4 + size
        values = []
        for _ in range(n_ops):
            size = struct.unpack(">I", body[at : at + 4])[0]
            values.append(body[at + 8 + body[at + 7] : at + 4 + size])
            at += 4 + size
        out.append(Reply(result, info3, slot, digest, tuple(values)))
    return out


def _read(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        buf += chunk
    return buf
