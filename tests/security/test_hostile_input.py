"""Hostile requests against the development build's server (in a child process, so a crash fails
a test rather than the run): nesting bombs on every decode path, replies much larger than their
requests, requests that would hold every other client, Lua that eats memory or never ends. The
server answers each with an error (or serves it in bounded memory) and keeps serving."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator

import pytest

from . import _wire as w
from ._process import ServerProcess

pytestmark = pytest.mark.timeout(120)

PARAMETER_ERROR = 4
UDF_BAD_RESPONSE = 100
MAX_NESTING = 256


@pytest.fixture
def srv() -> Iterator[ServerProcess]:
    server = ServerProcess()
    try:
        yield server
    finally:
        server.close()


def _int(i: int) -> bytes:
    return struct.pack(">q", i)


# Each builds a request carrying a value (or expression) nested `depth` lists deep.
NESTING_PATHS: dict[str, Callable[[ServerProcess, int], bytes]] = {
    "list append (CDT)": lambda s, d: w.write(
        "n", "cdt", [w.op(w.CDT_MODIFY, b"l", 0, b"\x92\x01" + w.deep_list(d))]
    ),
    "UDF arguments (field 32), missing module": lambda s, d: w.udf_call(
        "n", "udf", "missing", "f", b"\x91" + w.deep_list(d - 1)
    ),
    "UDF arguments into Lua": lambda s, d: w.udf_call(
        "n", "lua", "echo", "echo", b"\x91" + w.deep_list(d - 1)
    ),
    "filter expression (field 43)": lambda s, d: w.read("n", "f", filter_exp=w.deep_not(d)),
    "expression write": lambda s, d: w.write(
        "n", "e", [w.op(w.EXP_MODIFY, b"x", 0, b"\x92" + w.deep_not(d) + b"\x00")]
    ),
}


@pytest.mark.parametrize("path", list(NESTING_PATHS))
def test_nesting_past_the_limit_is_a_parameter_error(srv: ServerProcess, path: str) -> None:
    srv.put_udf("echo.lua", "function echo(rec, v) return v end")
    srv.request(w.write("n", "f", [w.op(w.WRITE, b"i", w.INTEGER, _int(1))]))
    for depth in (MAX_NESTING + 1, 10_000, 100_000):
        reply = srv.request(NESTING_PATHS[path](srv, depth))
        assert reply.result_code == PARAMETER_ERROR, (path, depth)
        assert srv.serving(), (path, depth)


def test_nesting_at_the_limit_is_served(srv: ServerProcess) -> None:
    srv.request(w.write("n", "f", [w.op(w.WRITE, b"i", w.INTEGER, _int(1))]))
    srv.request(w.write("n", "cdt", [w.op(w.WRITE, b"l", w.LIST, b"\x90")]))
    # not(not(...(true))) 256 operators deep is true: the record passes the filter
    assert srv.request(w.read("n", "f", filter_exp=w.deep_not(MAX_NESTING))).result_code == 0
    expression = b"\x92" + w.deep_not(MAX_NESTING) + b"\x00"
    written = srv.request(w.write("n", "e", [w.op(w.EXP_MODIFY, b"x", 0, expression)]))
    assert written.result_code == 0
    # a 255-deep value appended to a list: the bin is 256 levels deep, and CDT reads decode it
    value = b"\x92\x01" + w.deep_list(MAX_NESTING - 1)
    assert srv.request(w.write("n", "cdt", [w.op(w.CDT_MODIFY, b"l", 0, value)])).result_code == 0
    size = srv.request(w.read("n", "cdt", [w.op(w.CDT_READ, b"l", 0, b"\x91\x10")]))
    assert size.result_code == 0
    assert srv.serving()


def test_deep_values_are_stored_whole_as_a_real_server_stores_them(srv: ServerProcess) -> None:
    """A real server validates a written list without recursion and stores it however deep; only
    the paths that decode it (CDT ops, expressions, Lua) refuse it."""
    deep = w.deep_list(10_000)
    assert srv.request(w.write("n", "d", [w.op(w.WRITE, b"l", w.LIST, deep)])).result_code == 0
    got = srv.request(w.read("n", "d"))
    assert got.result_code == 0 and deep in got.rest
    size = srv.request(w.read("n", "d", [w.op(w.CDT_READ, b"l", 0, b"\x91\x10")]))
    assert size.result_code == PARAMETER_ERROR
    srv.put_udf("get.lua", "function get(rec, name) return rec[name] end")
    assert srv.request(w.udf_call("n", "d", "get", "get", b"\x91\xa2\x03l")).result_code == (
        UDF_BAD_RESPONSE
    )
    assert srv.serving()


def test_the_official_client_gets_parameter_errors_for_deep_udf_arguments(
    srv: ServerProcess,
) -> None:
    aerospike = pytest.importorskip("aerospike")
    from aerospike import exception as ex

    nested: list[object] = [1]
    for _ in range(1_000):
        nested = [nested]
    client = aerospike.client({"hosts": [(srv.host, srv.port)]}).connect()
    try:
        key = ("test", "hostile", "udf")
        with pytest.raises(ex.AerospikeError) as caught:
            client.apply(key, "missing", "f", [nested])
        assert caught.value.code == PARAMETER_ERROR
        client.put(key, {"n": 1})
        assert client.get(key)[2] == {"n": 1}
    finally:
        client.close()
    assert srv.serving()


EIGHT_MB_BLOB = b"\x00" * (8 * 1024 * 1024 - 256)


def _big_record(srv: ServerProcess) -> None:
    reply = srv.request(w.write("b", "big", [w.op(w.WRITE, b"b", 4, EIGHT_MB_BLOB)]))
    assert reply.result_code == 0


def test_a_batch_of_large_records_is_streamed_in_bounded_memory(srv: ServerProcess) -> None:
    _big_record(srv)
    before = srv.status_mb("VmHWM")
    request = w.batch_read(60, "b", "big")
    assert len(request) < 2000  # 1.5 KB asking for about 500 MB
    with srv_socket(srv) as s:
        s.sendall(request)
        sizes = [size for size, rc in w.skim_replies(s) if rc == 0]
    assert len(sizes) == 61 and sum(sizes) > 60 * len(EIGHT_MB_BLOB)
    grown = srv.status_mb("VmHWM") - before
    assert grown < 160, f"peak RSS grew {grown:.0f} MiB for a streamed batch"
    assert srv.serving()


def test_pipelined_reads_of_large_records_are_written_as_they_go(srv: ServerProcess) -> None:
    _big_record(srv)
    before = srv.status_mb("VmHWM")
    with srv_socket(srv) as s:
        s.sendall(w.read("b", "big") * 60)
        for _ in range(60):
            assert w.first_reply(s).result_code == 0
    grown = srv.status_mb("VmHWM") - before
    assert grown < 160, f"peak RSS grew {grown:.0f} MiB for 60 pipelined reads"


def test_info_replies_are_bounded(srv: ServerProcess) -> None:
    before = srv.status_mb("VmHWM")
    reply = srv.info("replicas\n" * 100_000, timeout=60)
    assert len(reply) < 9 * 1024 * 1024
    assert reply.endswith("replicas\tERROR:4:reply too large\n")
    assert srv.status_mb("VmHWM") - before < 64
    assert srv.serving()


def _bins(n: int) -> list[bytes]:
    return [w.op(w.WRITE, f"b{i}".encode(), w.INTEGER, _int(i)) for i in range(n)]


def test_a_write_of_more_bins_than_a_record_may_have_is_refused(srv: ServerProcess) -> None:
    assert srv.request(w.write("m", "too-many", _bins(65_535))).result_code == PARAMETER_ERROR
    assert srv.request(w.write("m", "most", _bins(32_767))).result_code == 0
    got = srv.request(w.read("m", "most"))
    assert got.result_code == 0
    assert srv.serving()


def test_a_udf_cannot_take_unbounded_memory(srv: ServerProcess) -> None:
    srv.put_udf("rep.lua", 'function rep(rec, n) return #string.rep("x", n) end')
    before = srv.status_mb("VmHWM")
    reply = srv.request(w.udf_call("u", "r", "rep", "rep", b"\x91\xce" + struct.pack(">I", 10**9)))
    assert reply.result_code == UDF_BAD_RESPONSE
    assert "memory" in w.failure_text(reply)
    assert srv.status_mb("VmHWM") - before < 256
    ok = srv.request(w.udf_call("u", "r", "rep", "rep", b"\x91\xcd\x10\x00"))
    assert ok.result_code == 0
    assert srv.serving()


def test_an_endless_udf_neither_runs_forever_nor_holds_other_clients(srv: ServerProcess) -> None:
    # Both digests start with "u/", so both records are in one partition: the UDF must not
    # hold the partition while Lua runs.
    srv.put_udf("spin.lua", "function spin(rec) while true do end end")
    srv.request(w.write("u", "other", [w.op(w.WRITE, b"i", w.INTEGER, _int(7))]))
    spun: list[w.Reply] = []
    done = threading.Event()

    def spin() -> None:
        spun.append(srv.request(w.udf_call("u", "spin", "spin", "spin", b"\x90")))
        done.set()

    thread = threading.Thread(target=spin)
    thread.start()
    try:
        assert not done.wait(0.2)  # the UDF is running
        read = srv.request(w.read("u", "other"))
        written = srv.request(w.write("u", "other", [w.op(w.WRITE, b"i", w.INTEGER, _int(8))]))
        answered_during = not done.is_set()
    finally:
        thread.join(60)
    assert (read.result_code, written.result_code) == (0, 0)
    assert spun and spun[0].result_code == UDF_BAD_RESPONSE
    assert answered_during, "the other client was answered only after the UDF ended"


def srv_socket(srv: ServerProcess) -> socket.socket:
    return socket.create_connection((srv.host, srv.port), timeout=60)
