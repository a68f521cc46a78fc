"""A record whose list nests deeper than the client reads raises DeserializeError on every read
path (single key, batch, query; sync, asyncio, trio), never crashes the process.

The embedded server stores a plain put's list particle as sent, so a raw write can nest it to
any depth. Each flavor reads in a child process: a crash fails the test instead of the run."""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import uuid

import pytest

import aerospike_fluent as af
from aerospike_fluent.server import EmbeddedServer

pytestmark = pytest.mark.timeout(120)

DEPTHS = (512, 3_000, 100_000)
"""The deepest the client reads, then past it (crashed the dev build), then far past it."""


def _write_list(server: EmbeddedServer, ns: str, set_name: str, digest: bytes, depth: int) -> None:
    """Put bin ``l`` = ``depth`` nested one-element lists around 1, as a raw AS_MSG write."""
    value = b"\x91" * depth + b"\x01"
    fields = b"".join(
        struct.pack(">IB", len(data) + 1, ftype) + data
        for ftype, data in ((0, ns.encode()), (1, set_name.encode()), (4, digest))
    )
    op = struct.pack(">IBBBB", 4 + 1 + len(value), 2, 20, 0, 1) + b"l" + value
    header = bytes([22, 0, 1, 0, 0, 0]) + bytes(12) + struct.pack(">HH", 3, 1)
    body = header + fields + op
    with socket.create_connection((server.host, server.port), timeout=10) as s:
        s.sendall(struct.pack(">Q", (2 << 56) | (3 << 48) | len(body)) + body)
        reply = b""
        while len(reply) < 8 + 22:
            reply += s.recv(4096)
    assert reply[8 + 5] == 0, f"raw write refused with code {reply[8 + 5]}"


_READER = r"""
import asyncio, json, sys
import aerospike_fluent as af
from aerospike_fluent import _native, errors, sync as af_sync

seeds, set_name, flavor = sys.argv[1:4]
keys = json.loads(sys.argv[4])

def depth(v):
    n = 0
    while isinstance(v, list):
        n, v = n + 1, v[0]
    return n

def outcome(read):
    try:
        return ["ok", depth(read())]
    except errors.DeserializeError as e:
        return ["DeserializeError", e.result_code, str(e)]

def row_outcome(row):
    if isinstance(row.error, errors.DeserializeError):
        return ["DeserializeError", row.error.result_code, str(row.error)]
    assert row.error is None, row.error
    return ["ok", depth(row.bins["l"])]

def run_sync():
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        out = {}
        for k in keys:
            out["get", k] = outcome(lambda: s.key(k).get()["l"])
            out["operate", k] = outcome(lambda: s.key(k).read("l").execute()["l"])
            out["batch", k] = row_outcome(s.keys([k]).get()[0])
        return out, query(lambda: [r["l"] for r in s.query()])

async def run_async():
    async with af.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        out = {}
        for k in keys:
            for _ in range(_native.LOOP_RUNTIME_AFTER * 2):  # onto the loop's own runtime
                await s.key("warm").exists()
            out["get", k] = await aoutcome(lambda: s.key(k).get(), "l")
            out["operate", k] = await aoutcome(lambda: s.key(k).read("l").execute(), "l")
            out["batch", k] = row_outcome((await s.keys([k]).get())[0])
        async def scan():
            return [r["l"] async for r in s.query()]
        try:
            rows = await scan()
            q = ["ok", sorted(depth(v) for v in rows)]
        except errors.DeserializeError as e:
            q = ["DeserializeError", e.result_code, str(e)]
        return out, q

async def aoutcome(call, bin_name):
    try:
        return ["ok", depth((await call())[bin_name])]
    except errors.DeserializeError as e:
        return ["DeserializeError", e.result_code, str(e)]

def query(read):
    try:
        return ["ok", sorted(depth(v) for v in read())]
    except errors.DeserializeError as e:
        return ["DeserializeError", e.result_code, str(e)]

if flavor == "sync":
    out, q = run_sync()
elif flavor == "asyncio":
    out, q = asyncio.run(run_async())
else:
    import trio
    out, q = trio.run(run_async)
print(json.dumps({"rows": {f"{a} {b}": v for (a, b), v in out.items()}, "query": q}))
"""


@pytest.mark.parametrize("flavor", ["sync", "asyncio", "trio"])
def test_lists_nested_past_the_limit_raise_deserialize_error(
    server: EmbeddedServer, flavor: str
) -> None:
    set_name = "deep_" + uuid.uuid4().hex[:10]
    keys = [f"d{depth}" for depth in DEPTHS]
    with af.sync.connect(server.seeds) as db:
        s = db.namespace("test").set(set_name)
        for k, depth in zip(keys, DEPTHS, strict=True):
            s.key(k).put({"l": 0})
            rec = s.key(k).get()
            assert rec is not None and rec.key is not None and rec.key[3] is not None
            _write_list(server, "test", set_name, rec.key[3], depth)
    child = subprocess.run(
        [sys.executable, "-c", _READER, server.seeds, set_name, flavor, json.dumps(keys)],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert child.returncode == 0, f"reader died ({child.returncode}): {child.stderr[-2000:]}"
    got = json.loads(child.stdout)
    for path in ("get", "operate", "batch"):
        assert got["rows"][f"{path} d512"] == ["ok", 512]
        for k in keys[1:]:
            kind, code, message = got["rows"][f"{path} {k}"]
            assert (kind, code) == ("DeserializeError", -2), (path, k)
            assert "deeper than 512 levels" in message and "bin 'l'" in message
    kind, code, message = got["query"]
    assert (kind, code) == ("DeserializeError", -2)
    assert "deeper than 512 levels" in message


_STREAM_READER = r"""
import sys
from aerospike_fluent import errors, sync as af_sync

seeds, set_name = sys.argv[1:3]
with af_sync.connect(seeds) as db:
    records = list(db.namespace("test").set(set_name).query().stream())
    out = []
    for r in records:
        try:
            out.append(len(r.bins))
        except errors.DeserializeError as e:
            out.append(f"DeserializeError {e.result_code} {e.key is not None}")
print(sorted(map(str, out)))
"""


def test_a_stream_hands_out_every_record_and_only_the_deep_one_raises(
    server: EmbeddedServer,
) -> None:
    set_name = "deep_" + uuid.uuid4().hex[:10]
    with af.sync.connect(server.seeds) as db:
        s = db.namespace("test").set(set_name)
        s.put_many({i: {"a": i, "b": i} for i in range(5)}).raise_on_error()
        rec = s.key(0).get()
        assert rec is not None and rec.key is not None and rec.key[3] is not None
        _write_list(server, "test", set_name, rec.key[3], 3_000)
    child = subprocess.run(
        [sys.executable, "-c", _STREAM_READER, server.seeds, set_name],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert child.returncode == 0, f"reader died ({child.returncode}): {child.stderr[-2000:]}"
    assert child.stdout.strip() == str(["2", "2", "2", "2", "DeserializeError -2 True"])
