"""Admin info commands through the official client: what a real server takes and what it
refuses, with its result code and message."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from aerospike import exception as ex

pytestmark = pytest.mark.compat


def _create(args: str) -> str:
    return f"sindex-create:{args}"


# (command, exception, message) with a fresh `{name}` (index name) and `{set}` per test
REFUSED = [
    (
        _create("ns=test;set={set};indexname={name};bin=" + "b" * 16 + ";type=numeric"),
        ex.InvalidRequest,
        "'bin' value too long",
    ),
    (
        _create("ns=test;set=" + "s" * 64 + ";indexname={name};bin=a;type=numeric"),
        ex.InvalidRequest,
        "'set' value too long",
    ),
    (
        _create("ns=test;set={set};indexname=" + "i" * 64 + ";bin=a;type=numeric"),
        ex.InvalidRequest,
        "'indexname' value too long",
    ),
    (
        _create("ns=" + "n" * 32 + ";set={set};indexname={name};bin=a;type=numeric"),
        ex.NamespaceNotFound,
        "'namespace' value too long",
    ),
    (
        _create("ns=test;set=;indexname={name};bin=a;type=numeric"),
        ex.InvalidRequest,
        "missing 'set' value",
    ),
    (_create("ns=test;set={set};bin=a;type=numeric"), ex.InvalidRequest, "missing 'indexname'"),
    (
        _create("set={set};indexname={name};bin=a;type=numeric"),
        ex.NamespaceNotFound,
        "missing 'namespace'",
    ),
    (
        _create("ns=test;set={set};indexname={name};bin=a;type=bogus"),
        ex.InvalidRequest,
        "bad 'type' - must be one of 'numeric', 'string', 'blob', 'geo2dsphere'",
    ),
    (
        _create("ns=test;set={set};indexname={name};bin=a;type=numeric;indextype=bogus"),
        ex.InvalidRequest,
        "bad 'indextype' - must be one of 'default', 'list', 'mapkeys'",
    ),
    (
        _create("ns=test;set={set};indexname={name};type=numeric"),
        ex.InvalidRequest,
        "both 'bin' and 'exp' are missing",
    ),
    (
        _create("ns=test;set={set};indexname={name};bin=a"),
        ex.InvalidRequest,
        "both 'indexdata' and 'type' are missing",
    ),
    (
        _create("ns=test;set={set};indexname={name};indexdata=a,numeric;type=numeric"),
        ex.InvalidRequest,
        "both 'indexdata' and 'type' are specified",
    ),
    (
        _create("ns=test;set={set};indexname={name};indexdata=a"),
        ex.InvalidRequest,
        "'indexdata' missing bin type",
    ),
    (
        _create("ns=test;set={set};indexname={name};bin=a;type=geo2dsphere;indextype=mapkeys"),
        ex.InvalidRequest,
        "bad 'indexdata' bin type for 'indextype' 'mapkeys'",
    ),
    (
        "sindex-delete:ns=test;indexname=" + "i" * 64,
        ex.InvalidRequest,
        "'indexname' value too long",
    ),
    ("sindex-list:ns=nosuch{set}", ex.NamespaceNotFound, "namespace not found on node"),
    ("truncate:namespace=test;set=", ex.InvalidRequest, "missing 'set' value"),
    ("no-such-command-{set}", ex.InvalidRequest, "unrecognized command"),
    ("truncate:namespace=test;set={set};lut=2147483649", ex.InvalidRequest, "would truncate to 0"),
    ("truncate:namespace=test;set={set};lut=abc", ex.InvalidRequest, "would truncate to 0"),
    ("truncate:namespace=test;set={set};lut=", ex.InvalidRequest, "missing 'lut' value"),
    (
        "truncate:namespace=test;set={set};lut=99999999999999999999",
        ex.InvalidRequest,
        "would truncate in the future",
    ),
]


@pytest.mark.parametrize(("command", "error", "message"), REFUSED)
def test_refused_with_the_servers_code_and_message(
    client: Any, set_name: str, command: str, error: Any, message: str
) -> None:
    name = f"{set_name}_ix"
    with pytest.raises(error) as caught:
        client.info_random_node(command.format(name=name, set=set_name))
    assert message in caught.value.msg


def test_the_longest_names_a_server_takes(client: Any, set_name: str) -> None:
    name = f"{set_name}_" + "i" * (63 - len(set_name) - 1)
    long_set = set_name + "s" * (63 - len(set_name))
    bin_name = "b" * 15
    reply = client.info_random_node(
        _create(f"ns=test;set={long_set};indexname={name};bin={bin_name};type=numeric")
    )
    try:
        assert reply.strip().endswith("ok")
        assert _listed(client, name)
    finally:
        client.info_random_node(f"sindex-delete:ns=test;indexname={name}")


def test_what_a_server_answers_ok(client: Any, set_name: str) -> None:
    missing = f"nosuch_{uuid.uuid4().hex[:8]}"
    for command in (
        f"sindex-delete:ns=test;indexname={missing}",
        f"udf-remove:filename={missing}.lua",
        f"truncate:namespace={missing};set={set_name}",
        f"truncate-namespace:namespace={missing}",
    ):
        assert client.info_random_node(command).strip().endswith("ok"), command
    assert client.info_random_node(f"namespace/{missing}").strip().endswith("type=unknown")


def test_index_status_of_an_unknown_namespace_or_index(client: Any, set_name: str) -> None:
    with pytest.raises(ex.NamespaceNotFound, match="namespace not found on node"):
        client.info_random_node(f"sindex-stat:namespace=nosuch;indexname={set_name}")
    with pytest.raises(ex.NamespaceNotFound):
        client.info_random_node(f"sindex-exists:ns=nosuch;indexname={set_name}")
    with pytest.raises(ex.IndexNotFound, match="no index"):
        client.info_random_node(f"sindex-stat:namespace=test;indexname={set_name}")
    exists = client.info_random_node(f"sindex-exists:ns=test;indexname={set_name}")
    assert exists.strip().endswith("false")
    with pytest.raises(ex.NamespaceNotFound):
        client.index_integer_create("nosuch", set_name, "age", f"{set_name}_age")


def _listed(client: Any, name: str) -> bool:
    for _ in range(50):
        if f"indexname={name}:" in client.info_random_node("sindex-list:ns=test"):
            return True
        time.sleep(0.1)
    return False


def test_a_definition_for_an_unknown_namespace_is_kept_and_its_name_taken(
    client: Any, set_name: str
) -> None:
    ns = f"nosuch{uuid.uuid4().hex[:8]}"
    name = f"{set_name}_kept"
    create = f"sindex-create:ns={ns};set={set_name};indexname={name};type=numeric;bin="
    assert client.info_random_node(create + "a").strip().endswith("ok")
    try:
        assert client.info_random_node(create + "a").strip().endswith("ok")
        with pytest.raises(ex.IndexFoundError, match="already exists with different definition"):
            client.info_random_node(create + "b")
        assert f"indexname={name}:" not in client.info_random_node("sindex-list:")
    finally:
        client.info_random_node(f"sindex-delete:ns={ns};indexname={name}")
    assert client.info_random_node(create + "b").strip().endswith("ok")
    client.info_random_node(f"sindex-delete:ns={ns};indexname={name}")


def test_build_version_and_log_sinks_as_a_node_answers_them(client: Any) -> None:
    build = client.info_random_node("build").strip().split("\t")[-1]
    assert build.split(".")[:3] == ["8", "1", "2"], build
    version = client.info_random_node("version").strip().split("\t")[-1]
    edition = client.info_random_node("edition").strip().split("\t")[-1]
    assert version == f"{edition} build {build}", (version, edition)
    logs = client.info_random_node("logs").strip().split("\t")[-1]
    assert logs.split(":")[0] == "0" and logs.split(":", 1)[1], logs
