"""`bytes` keys hashed as the official C client hashes them (`bytes_keys="string"`), or as a blob
(the default, as aerospike-sdk, Java and the Rust crate do); a `bytearray` is a blob either way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import aerospike
import pytest

from aerospike_fluent import sync as af_sync
from aerospike_fluent.policy import BytesKeys

pytestmark = pytest.mark.compat

# No NUL in a bytes key: the C client ends one there.
KEYS: list[Any] = ["k", 7, b"\x07k", bytearray(b"\x07k"), b"\xff\xfe"]
IDS = ["str", "int", "bytes", "bytearray", "bytes-not-utf8"]


@pytest.fixture
def string_db(seeds: str) -> Iterator[af_sync.SyncClient]:
    with af_sync.connect(seeds, bytes_keys="string") as db:
        yield db


def c_digest(client: Any, set_name: str, key: Any) -> bytes:
    """The digest the official client files ``key`` under (``calc_digest`` refuses ``bytes``)."""
    client.put(("test", set_name, key), {"c": 1})
    digest: bytes = client.get(("test", set_name, key))[0][3]
    if type(key) is not bytes:
        assert digest == aerospike.calc_digest("test", set_name, key)
    return bytes(digest)


@pytest.mark.parametrize("mode", ["blob", "string"])
@pytest.mark.parametrize("key", KEYS, ids=IDS)
def test_digests_are_the_c_clients(
    client: Any, seeds: str, set_name: str, mode: BytesKeys, key: Any
) -> None:
    with af_sync.connect(seeds, bytes_keys=mode) as db:
        ref = db.namespace("test").set(set_name).key(key)
        ref.put({"a": 1})
        record = ref.get()
    assert record is not None and record.key is not None
    as_c_client_key = bytearray(key) if mode == "blob" and type(key) is bytes else key
    assert record.key[3] == c_digest(client, set_name, as_c_client_key)


def test_the_c_clients_records_are_found(
    client: Any, seeds: str, string_db: af_sync.SyncClient, set_name: str
) -> None:
    for key in KEYS:
        client.put(("test", set_name, key), {"v": repr(key)})
    s = string_db.namespace("test").set(set_name)
    for key in KEYS:
        record = s.key(key).get()
        assert record is not None and record["v"] == repr(key), key
    rows = s.keys(KEYS).get()
    assert [r.record["v"] if r.record else None for r in rows] == [repr(k) for k in KEYS]
    with af_sync.connect(seeds) as blob_db:  # the default: bytes is a blob, as a bytearray
        record = blob_db.namespace("test").set(set_name).key(b"\x07k").get()
        assert record is not None and record["v"] == repr(bytearray(b"\x07k"))


def test_a_sent_key_has_the_type_of_its_digest(
    client: Any, string_db: af_sync.SyncClient, set_name: str
) -> None:
    client.put(("test", set_name, b"c\x07"), {"v": 1}, policy={"key": aerospike.POLICY_KEY_SEND})
    s = string_db.namespace("test").set(set_name)
    s.key(b"f\x07").put({"v": 1}, send_key=True)
    stored = {k[2]: k[2] for k, _, _ in client.query("test", set_name).results()}
    assert set(stored) == {"c\x07", "f\x07"}  # both stored as strings
    _, meta, bins = client.get(("test", set_name, b"f\x07"))
    assert meta is not None and bins == {"v": 1}
