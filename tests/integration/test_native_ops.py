"""Every native operation through the blocking twin and the async path (asyncio and trio)."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from aerospike_fluent import _bridge
from aerospike_fluent import _native as n

NS = "test"
_RUN = uuid.uuid4().hex[:8]  # names unique per run: a real server keeps what earlier runs left
_ids = itertools.count()


@pytest.fixture(scope="module")
def client(server_address: tuple[str, int]) -> Iterator[n.Client]:
    host, port = server_address
    c = n.connect_blocking(n.ClientConfig(f"{host}:{port}"))
    yield c
    c.close()


@pytest.fixture(params=["blocking", "asyncio", "trio"])
def call(request: pytest.FixtureRequest, client: n.Client) -> Callable[..., Any]:
    """``call("get", *args)`` runs ``client.get`` through the selected path."""
    mode: str = request.param

    def run(name: str, *args: Any, target: Any = None) -> Any:
        obj = client if target is None else target
        if mode == "blocking":
            return getattr(obj, f"{name}_blocking")(*args)
        method = getattr(obj, name)

        async def main() -> Any:
            return await _bridge.wait(lambda done: method(done, *args))

        return anyio.run(main, backend=mode)

    return run


def key(set_name: str = "ops") -> n.Key:
    return (NS, set_name, f"k{_RUN}_{next(_ids)}", None)


def test_put_get_all_selected_header(call: Callable[..., Any]) -> None:
    k = key()
    assert call("put", k, {"a": 1, "b": "two", "c": [1, 2]}, None) is None
    rec = call("get", k, None, False, None)
    assert isinstance(rec, n.Record)
    assert rec.bins == {"a": 1, "b": "two", "c": [1, 2]}
    assert rec.generation == 1
    assert rec.key is not None and rec.key[:3] == k[:3]
    sel = call("get", k, ["b"], False, None)
    assert sel.bins == {"b": "two"}
    head = call("get", k, None, True, None)
    assert head.bins == {} and head.generation == 1


def test_get_missing_is_none(call: Callable[..., Any]) -> None:
    assert call("get", key(), None, False, None) is None


def test_exists_delete_touch(call: Callable[..., Any]) -> None:
    k = key()
    assert call("exists", k, None) is False
    call("put", k, {"a": 1}, None)
    assert call("exists", k, None) is True
    assert call("touch", k, None) is None
    assert call("get", k, None, True, None).generation == 2
    assert call("delete", k, None) is True
    assert call("delete", k, None) is False
    with pytest.raises(n.RecordNotFoundError) as info:
        call("touch", k, None)
    assert info.value.result_code == 2
    assert info.value.key is not None and info.value.key[2] == k[2]


@pytest.mark.parametrize(
    ("exists", "first_ok", "second_error"),
    [
        (0, True, None),  # upsert
        (1, False, n.RecordNotFoundError),  # update-only on a missing record
        (2, True, None),  # replace
        (3, False, n.RecordNotFoundError),  # replace-only
        (4, True, n.RecordExistsError),  # create-only, twice
    ],
)
def test_exists_actions(
    call: Callable[..., Any],
    exists: int,
    first_ok: bool,
    second_error: type[Exception] | None,
) -> None:
    k = key()
    pol = n.Policy(exists=exists)
    if not first_ok:
        with pytest.raises(second_error or Exception):
            call("put", k, {"a": 1}, pol)
        return
    call("put", k, {"a": 1, "b": 2}, pol)
    if second_error is None:
        call("put", k, {"a": 3}, pol)
        bins = call("get", k, None, False, None).bins
        assert bins == ({"a": 3} if exists == 2 else {"a": 3, "b": 2})
    else:
        with pytest.raises(second_error):
            call("put", k, {"a": 3}, pol)


def test_generation_check(call: Callable[..., Any]) -> None:
    k = key()
    call("put", k, {"a": 1}, None)
    call("put", k, {"a": 2}, n.Policy(generation=1))
    with pytest.raises(n.GenerationError) as info:
        call("put", k, {"a": 3}, n.Policy(generation=1))
    assert info.value.result_code == 3
    assert call("get", k, None, False, None).bins == {"a": 2}


def test_ttl_variants(call: Callable[..., Any]) -> None:
    k = key()
    call("put", k, {"a": 1}, n.Policy(ttl=1000))
    ttl = call("get", k, None, True, None).ttl
    assert ttl is not None and 990 <= ttl <= 1000
    call("put", k, {"a": 2}, n.Policy(ttl=-2))  # do not change
    ttl2 = call("get", k, None, True, None).ttl
    assert ttl2 is not None and ttl2 <= 1000
    call("put", k, {"a": 3}, n.Policy(ttl=-1))  # never expire
    assert call("get", k, None, True, None).ttl is None


def test_send_key_and_durable_delete(call: Callable[..., Any], client: n.Client) -> None:
    k = key()
    call("put", k, {"a": 1}, n.Policy(send_key=True))
    rec = call("get", k, None, False, None)
    assert rec.key is not None and rec.key[2] == k[2]
    edition = client.info_blocking("edition", None)["edition"]
    if "Community" in edition:
        # An Enterprise-only feature: a Community server refuses it and keeps the record.
        with pytest.raises(n.EnterpriseOnlyError) as caught:
            call("delete", k, n.Policy(durable_delete=True))
        assert caught.value.result_code == 25 and caught.value.in_doubt is False
        assert call("exists", k, None) is True
    else:
        assert call("delete", k, n.Policy(durable_delete=True)) is True
        assert call("exists", k, None) is False


def test_digest_key(call: Callable[..., Any]) -> None:
    k = key()
    call("put", k, {"a": 1}, None)
    digest = call("get", k, None, True, None).key[3]
    assert isinstance(digest, bytes) and len(digest) == 20
    rec = call("get", (NS, k[1], None, digest), None, False, None)
    assert rec.bins == {"a": 1}


def test_operate_scalar_ops(call: Callable[..., Any]) -> None:
    k = key()
    call("put", k, {"n": 1, "s": "b", "x": 1}, None)
    rec = call(
        "operate",
        k,
        [
            ("add", "n", 5),
            ("append", "s", "c"),
            ("prepend", "s", "a"),
            ("write", "w", 7),
            ("write", "x", None),
            ("read", "n"),
            ("read", "s"),
        ],
        None,
    )
    assert rec["n"] == 6 and rec["s"] == "abc"
    full = call("operate", k, [("read_all", None)], None)
    assert full.bins == {"n": 6, "s": "abc", "w": 7}
    assert rec.results is not None and len(rec.results) == 7
    assert call("operate", key(), [("read", "n")], None) is None
    call("operate", k, [("delete", None)], None)
    assert call("exists", k, None) is False


def test_operate_touch_and_header(call: Callable[..., Any]) -> None:
    k = key()
    call("put", k, {"n": 1}, None)
    head = call("operate", k, [("touch", None), ("read_header", None)], None)
    assert head.generation == 2 and head.bins == {}


def test_operate_cdt_list_and_map_with_ctx(call: Callable[..., Any]) -> None:
    k = key()
    call("put", k, {"l": [[1, 2], [3]], "m": {"a": {"x": 1}}}, None)
    rec = call(
        "operate",
        k,
        [
            ("list_append", "l", (("list_index", 1),), (0, 0), 4),
            ("list_size", "l", ()),
            ("map_put", "m", (("map_key", "a"),), (0, 0), "y", 2),
            ("map_get_by_key", "m", (("map_key", "a"),), "y", 7),
        ],
        None,
    )
    bins = call("get", k, None, False, None).bins
    assert bins["l"] == [[1, 2], [3, 4]]
    assert bins["m"] == {"a": {"x": 1, "y": 2}}
    assert rec is not None


def test_operate_expression_ops(call: Callable[..., Any]) -> None:
    k = key()
    call("put", k, {"a": 4}, None)
    rec = call(
        "operate",
        k,
        [
            ("exp_write", "b", ("num_mul", ("int_bin", "a"), ("int_val", 10)), 0),
            ("exp_read", "c", ("num_add", ("int_bin", "a"), ("int_val", 1)), 0),
        ],
        None,
    )
    assert rec["c"] == 5
    assert call("get", k, ["b"], False, None).bins == {"b": 40}


def test_filter_expression(call: Callable[..., Any]) -> None:
    k = key()
    call("put", k, {"a": 4}, None)
    keep = n.Policy(filter=("gt", ("int_bin", "a"), ("int_val", 1)))
    drop = n.Policy(filter=("gt", ("int_bin", "a"), ("int_val", 10)))
    assert call("get", k, None, False, keep).bins == {"a": 4}
    with pytest.raises(n.FilteredOutError):
        call("get", k, None, False, drop)


def test_batch_rows(call: Callable[..., Any]) -> None:
    k1, k2, k3, missing = key("b"), key("b"), key("b"), key("b")
    call("put", k1, {"a": 1}, None)
    call("put", k3, {"a": 3}, None)
    rows = call(
        "batch",
        [
            ("read", k1, None, False, None),
            ("read", missing, None, False, None),
            ("write", k2, [("write", "a", 2)], None),
            ("delete", k3, None),
            ("read", k1, ["a"], True, None),
        ],
        None,
    )
    assert [type(r) for r in rows] == [n.BatchRow] * 5
    assert rows[0].result_code == 0 and rows[0].record is not None
    assert rows[0].record.bins == {"a": 1}
    assert rows[1].record is None and rows[1].result_code == 2
    assert rows[1].error is None  # a missing record is an outcome of a read row, not an error
    assert rows[2].result_code == 0
    assert rows[3].result_code == 0
    assert rows[4].record is not None and rows[4].record.bins == {}
    assert call("get", k2, None, False, None).bins == {"a": 2}
    assert call("exists", k3, None) is False


def test_info(call: Callable[..., Any], client: n.Client) -> None:
    out = call("info", "build", None)
    assert set(out) == {"build"}
    node = client.node_names()[0]
    assert "node" in call("info", "node", node)


def test_truncate(call: Callable[..., Any]) -> None:
    set_name = f"trunc{_RUN}_{next(_ids)}"
    ks = [key(set_name) for _ in range(3)]
    for k in ks:
        call("put", k, {"a": 1}, None)
    time.sleep(0.002)  # truncating to now keeps what was written in the current millisecond
    call("truncate", NS, set_name, 0)
    assert all(call("exists", k, None) is False for k in ks)


def test_query_scan_chunks_and_resume(call: Callable[..., Any], client: n.Client) -> None:
    set_name = f"scan{_RUN}_{next(_ids)}"
    for i in range(25):
        call("put", (NS, set_name, i, None), {"i": i, "j": -i}, None)
    stream = client.query(NS, set_name, ["i"], None, None, 0, None, 10)
    first = call("next_chunk", target=stream)
    assert 1 <= len(first) <= 10 and all(set(r.bins) == {"i"} for r in first)
    token = stream.resume_token()
    stream.close()
    rest: list[n.Record] = []
    resumed = client.query(NS, set_name, ["i"], None, None, 0, token, 10)
    while (chunk := call("next_chunk", target=resumed)) is not None:
        rest.extend(chunk)
    seen = [r["i"] for r in first] + [r["i"] for r in rest]
    assert sorted(seen) == list(range(25))
    done_token = resumed.resume_token()
    again = client.query(NS, set_name, None, None, None, 0, done_token, 10)
    assert call("next_chunk", target=again) is None


def _ready(stream: n.QueryStream) -> list[n.Record] | None:
    """The next chunk through ``ready_chunk``, polled until the producer has buffered it."""
    deadline = time.monotonic() + 10
    while True:
        taken, chunk = stream.ready_chunk()
        if taken:
            return chunk
        assert chunk is None
        assert time.monotonic() < deadline, "no chunk was buffered within 10 s"
        time.sleep(0.001)


def test_ready_chunk_hands_out_buffered_chunks_in_turn_with_next_chunk(
    call: Callable[..., Any], client: n.Client
) -> None:
    set_name = f"scanready{_RUN}_{next(_ids)}"
    for i in range(25):
        call("put", (NS, set_name, i, None), {"i": i}, None)
    stream = client.query(NS, set_name, ["i"], None, None, 0, None, 4)
    first = _ready(stream)
    assert first is not None and 1 <= len(first) <= 4
    got = list(first) + list(call("next_chunk", target=stream))
    assert stream.progress()[0] == len(got)
    while (chunk := _ready(stream)) is not None:
        got.extend(chunk)
    assert sorted(r["i"] for r in got) == list(range(25))
    assert _ready(stream) is None  # the end stays the end
    assert call("next_chunk", target=stream) is None
    stream.close()
    assert stream.ready_chunk() == (False, None)  # closed: next_chunk reports it


def test_ready_chunk_resumes_after_the_chunks_it_handed_out(client: n.Client) -> None:
    set_name = f"scanreadyresume{_RUN}_{next(_ids)}"
    for i in range(30):
        client.put_blocking((NS, set_name, i, None), {"i": i}, None)
    stream = client.query(NS, set_name, ["i"], None, None, 0, None, 5)
    first = _ready(stream)
    assert first is not None
    token = stream.resume_token()
    stream.close()
    rest: list[n.Record] = []
    resumed = client.query(NS, set_name, ["i"], None, None, 0, token, 5)
    while (chunk := _ready(resumed)) is not None:
        rest.extend(chunk)
    assert sorted(r["i"] for r in first + rest) == list(range(30))


def test_query_max_records_and_partitions(client: n.Client) -> None:
    set_name = f"scanmax{_RUN}_{next(_ids)}"
    for i in range(20):
        client.put_blocking((NS, set_name, i, None), {"i": i}, None)
    stream = client.query(NS, set_name, None, None, None, 5, None, 100)
    got: list[n.Record] = []
    while (chunk := stream.next_chunk_blocking()) is not None:
        got.extend(chunk)
    assert len(got) == 5
    halves = []
    for begin in (0, 2048):
        s = client.query(NS, set_name, None, None, None, 0, (begin, 2048), 100)
        part: list[n.Record] = []
        while (chunk := s.next_chunk_blocking()) is not None:
            part.extend(chunk)
        halves.append(part)
    assert sorted(r["i"] for h in halves for r in h) == list(range(20))


def test_query_with_no_bins_returns_headers_only(client: n.Client) -> None:
    set_name = f"scannobins{_RUN}_{next(_ids)}"
    for i in range(5):
        client.put_blocking((NS, set_name, i, None), {"i": i, "pad": "x" * 100}, None)
    stream = client.query(NS, set_name, [], None, None, 0, None, 100)
    got: list[n.Record] = []
    while (chunk := stream.next_chunk_blocking()) is not None:
        got.extend(chunk)
    assert len(got) == 5 and all(r.bins == {} for r in got)


def test_secondary_index_query(call: Callable[..., Any], client: n.Client) -> None:
    set_name = f"si{_RUN}_{next(_ids)}"
    name = f"idx_{set_name}"
    for i in range(10):
        call("put", (NS, set_name, i, None), {"age": i}, None)
    call("create_index", NS, set_name, "age", name, "numeric", None, None, None)
    try:
        s = client.query(NS, set_name, None, ("range", "age", 3, 5), None, 0, None, 100)
        got: list[n.Record] = []
        while (chunk := s.next_chunk_blocking()) is not None:
            got.extend(chunk)
        assert sorted(r["age"] for r in got) == [3, 4, 5]
        s = client.query(NS, set_name, None, ("equal", "age", 7), None, 0, None, 100)
        assert [r["age"] for r in s.next_chunk_blocking() or []] == [7]
    finally:
        call("drop_index", NS, set_name, name)


UDF = b"""
function add(rec, bin, n)
  rec[bin] = rec[bin] + n
  aerospike:update(rec)
  return rec[bin]
end
"""


def test_udf_register_apply_remove(call: Callable[..., Any]) -> None:
    module = f"m{next(_ids)}"
    call("udf_register", UDF, f"{module}.lua")
    try:
        k = key()
        call("put", k, {"a": 1}, None)
        assert call("udf_apply", k, module, "add", ["a", 41], None) == 42
        assert call("get", k, None, False, None).bins == {"a": 42}
        rows = call("batch", [("udf", k, module, "add", ["a", 1], None)], None)
        assert rows[0].result_code == 0
    finally:
        call("udf_remove", f"{module}.lua")
