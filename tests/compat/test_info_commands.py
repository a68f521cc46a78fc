"""Admin info commands through the official client: what a real server takes and what it
refuses, with its result code and message."""

from __future__ import annotations

import re
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


# --- the commands a client or an admin tool sends, answered in a real node's formats ---

FEATURES = {
    "batch-any",
    "batch-index",
    "blob-bits",
    "cdt-index",
    "cdt-list",
    "cdt-map",
    "cluster-stable",
    "float",
    "geo",
    "sindex-exists",
    "peers",
    "pipelining",
    "pquery",
    "pscans",
    "query-show",
    "relaxed-sc",
    "replicas",
    "replicas-all",
    "replicas-master",
    "replicas-max",
    "truncate-namespace",
    "udf",
}
LOG_LEVELS = {"CRITICAL", "WARNING", "INFO", "DEBUG", "DETAIL"}
HEX = re.compile(r"[0-9A-F]+")
# a histogram: never sampled yet, or `<units>,<ops/sec>` then the share over 17 thresholds
LATENCY = re.compile(r"((msec|usec),\d+\.\d(,\d+\.\d\d){17})?")
SET_PROPERTIES = [
    "objects",
    "tombstones",
    "data_used_bytes",
    "truncate_lut",
    "sindexes",
    "index_populating",
    "truncating",
    "default-read-touch-ttl-pct",
    "default-ttl",
    "disable-eviction",
    "enable-index",
    "stop-writes-count",
    "stop-writes-size",
]


def _value(client: Any, command: str) -> str:
    """The answer to one command: what follows its echo and tab (possibly empty)."""
    reply: str = client.info_random_node(command)
    echoed, _, value = reply.partition("\t")
    assert echoed == command, reply
    return value.rstrip("\n")


def _pairs(text: str, sep: str = ";") -> dict[str, str]:
    """`k=v<sep>k=v` as a dict; every part must be a pair."""
    parts = [p for p in text.split(sep) if p]
    assert all("=" in p for p in parts), text
    return dict(p.split("=", 1) for p in parts)


def _enterprise(client: Any) -> bool:
    return _value(client, "edition") == "Aerospike Enterprise Edition"


def test_identity_commands_as_a_node_answers_them(client: Any) -> None:
    node = _value(client, "node")
    assert HEX.fullmatch(node), node
    assert _value(client, "name") == node
    assert _value(client, "compatibility-id").isdigit()
    edition = _value(client, "edition")
    assert edition in ("Aerospike Community Edition", "Aerospike Enterprise Edition")
    release = _pairs(_value(client, "release"))
    assert release["edition"] == edition
    assert release["version"] == _value(client, "build")
    assert {"os", "arch", "sha"} <= release.keys()
    assert release["arch"] == _value(client, "build_arch")
    assert _value(client, "digests") == "RIPEMD160"
    assert _value(client, "partitions") == "4096"
    assert _value(client, "status") == "ok"
    assert _value(client, "connection") == "admin=false"
    assert _value(client, "best-practices").startswith("failed_best_practices=")
    assert node in _value(client, "get-sl").split(",")


def test_features_are_those_of_the_release(client: Any) -> None:
    features = set(_value(client, "features").split(";"))
    assert features - {"xdr"} == FEATURES


def test_help_lists_the_commands_of_the_edition(client: Any) -> None:
    commands = _value(client, "help").split(";")
    assert {"get-config", "set-config", "statistics", "latencies", "sindex-list"} <= set(commands)
    # those only clients send are left out
    assert "replicas" not in commands
    assert "peers-tls-std" in commands or not _enterprise(client)
    assert ("racks" in commands) == _enterprise(client)


@pytest.mark.parametrize("command", ["racks:", "rack-ids", "roster:", "feature-key"])
def test_enterprise_commands_on_a_community_node(client: Any, command: str) -> None:
    if _enterprise(client):
        answer = _value(client, command)
        assert not answer.startswith("ERROR"), answer
        return
    with pytest.raises(ex.AerospikeError) as caught:
        client.info_random_node(command)
    assert caught.value.code == 25
    assert "enterprise only" in str(caught.value.msg)


def test_racks_and_roster_of_an_enterprise_node(client: Any) -> None:
    if not _enterprise(client):
        pytest.skip("a Community node refuses them")
    assert _value(client, "racks:").startswith("ns=")
    assert re.fullmatch(r"rack_\d+=[0-9A-F,]+(:\S+)?", _value(client, "racks:namespace=test"))
    roster = _value(client, "roster:namespace=test")
    assert re.fullmatch(r"roster=\S+:pending_roster=\S+:observed_nodes=\S+", roster), roster


def test_statistics_have_a_nodes_names(client: Any) -> None:
    stats = _pairs(_value(client, "statistics"))
    for name in (
        "cluster_size",
        "cluster_generation",
        "uptime",
        "objects",
        "tombstones",
        "client_connections",
        "client_connections_opened",
        "info_complete",
        "migrate_partitions_remaining",
    ):
        assert stats[name].isdigit(), (name, stats[name])
    assert HEX.fullmatch(stats["cluster_key"]) and HEX.fullmatch(stats["cluster_principal"])
    assert stats["cluster_integrity"] == "true"
    assert int(stats["cluster_size"]) >= 1


def test_namespace_statistics_then_configuration(client: Any, set_name: str) -> None:
    client.put(("test", set_name, "k"), {"a": 1})
    info = _pairs(_value(client, "namespace/test"))
    assert int(info["objects"]) >= 1
    for name in ("master_objects", "prole_objects", "ns_cluster_size", "data_used_bytes"):
        assert info[name].isdigit(), (name, info[name])
    assert info["stop_writes"] in ("true", "false")
    assert info["strong-consistency"] in ("true", "false")
    assert info["replication-factor"].isdigit()
    assert "storage-engine" in info
    assert _value(client, "namespace/nosuch") == "type=unknown"


def test_sets_list_each_sets_statistics_and_configuration(client: Any, set_name: str) -> None:
    client.put(("test", set_name, "k"), {"a": 1})
    props = _value(client, f"sets/test/{set_name}")
    assert props.endswith(";")
    fields = _pairs(props.rstrip(";"), sep=":")
    assert list(fields) == SET_PROPERTIES
    assert fields["objects"] == "1"
    assert int(fields["data_used_bytes"]) > 0
    listed = _value(client, "sets/test")
    assert f"ns=test:set={set_name}:objects=1:" in listed
    assert f"ns=test:set={set_name}:" in _value(client, "sets")
    assert _value(client, f"sets/test/{set_name}_none") == ""
    assert _value(client, "sets/nosuch") == "ns_type=unknown"


def test_get_config_by_context(client: Any) -> None:
    service = _pairs(_value(client, "get-config:context=service"))
    assert {"proto-fd-max", "service-threads", "cluster-name", "ticker-interval"} <= set(service)
    network = _pairs(_value(client, "get-config:context=network"))
    assert network["service.port"].isdigit() and network["service.tls-port"].isdigit()
    namespace = _pairs(_value(client, "get-config:context=namespace;id=test"))
    assert {"replication-factor", "storage-engine", "strong-consistency"} <= set(namespace)
    everything = _pairs(_value(client, "get-config:"))
    assert {"ticker-interval", "service.port"} <= set(everything)
    assert _value(client, "get-config:context=xdr") == "" or _enterprise(client)


REFUSED_CONFIG = [
    ("get-config:context=bogus", ex.InvalidRequest, "invalid context"),
    ("get-config:id=test", ex.InvalidRequest, "missing 'context'"),
    ("get-config:context=namespace;id=nosuch", ex.NamespaceNotFound, "namespace not found"),
    ("get-config:context=namespace", ex.NamespaceNotFound, "missing 'namespace'"),
    ("set-config:context=bogus;ticker-interval=10", ex.InvalidRequest, "invalid context"),
    ("set-config:ticker-interval=10", ex.InvalidRequest, "missing 'context'"),
    ("set-config:context=service;no-such-thing=1", ex.InvalidRequest, "invalid set-config"),
    ("set-config:context=service;info-threads=0", ex.InvalidRequest, "invalid set-config"),
    ("set-config:context=service;advertise-ipv6=maybe", ex.InvalidRequest, "invalid set-config"),
    (
        "set-config:context=namespace;id=nosuch;nsup-threads=1",
        ex.NamespaceNotFound,
        "namespace not found",
    ),
    ("get-stats:context=bogus", ex.InvalidRequest, "unknown context"),
]


@pytest.mark.parametrize(("command", "error", "message"), REFUSED_CONFIG)
def test_configuration_refused_as_a_node_refuses_it(
    client: Any, command: str, error: Any, message: str
) -> None:
    with pytest.raises(error) as caught:
        client.info_random_node(command)
    assert message in caught.value.msg


def test_set_config_takes_a_dynamic_parameter(client: Any) -> None:
    before = _pairs(_value(client, "get-config:context=service"))["ticker-interval"]
    changed = str(int(before) + 1)
    try:
        assert _value(client, f"set-config:context=service;ticker-interval={changed}") == "ok"
        after = _pairs(_value(client, "get-config:context=service"))
        assert after["ticker-interval"] == changed
    finally:
        _value(client, f"set-config:context=service;ticker-interval={before}")


def test_log_sinks_contexts_and_levels(client: Any) -> None:
    levels = _pairs(_value(client, "log/0").replace(":", "="))
    assert "misc" in levels and set(levels.values()) <= LOG_LEVELS
    misc = _value(client, "log/0/misc")
    assert misc == f"misc:{levels['misc']}"
    # setting a context to its own level changes nothing
    assert _value(client, f"log-set:id=0;misc={levels['misc']}") == "ok"
    assert _value(client, "log-message:message=compat test;who=test_info_commands") == ""
    with pytest.raises(ex.ServerError, match="bad-id"):
        client.info_random_node("log/99")
    with pytest.raises(ex.ServerError, match="bad-context"):
        client.info_random_node("log/0/no-such-context")


REFUSED_LOGGING = [
    ("log-set:id=0;misc=loud", "bad parameter"),
    ("log-set:id=0;no-such-context=info", "bad parameter"),
    ("log-set:misc=info", "missing id"),
    ("log-set:id=x;misc=info", "bad id"),
    ("log-message:who=test", "missing 'message'"),
    ("log/x", "bad sink-id"),
]


@pytest.mark.parametrize(("command", "message"), REFUSED_LOGGING)
def test_logging_commands_refused(client: Any, command: str, message: str) -> None:
    with pytest.raises(ex.InvalidRequest) as caught:
        client.info_random_node(command)
    assert message in str(caught.value.msg)


def test_latencies_as_histograms(client: Any) -> None:
    entries = _value(client, "latencies:").split(";")
    names = [e.split(":", 1)[0] for e in entries]
    assert "batch-index" in names and "{test}-read" in names and "{test}-write" in names
    for entry in entries:
        _, _, data = entry.partition(":")
        assert LATENCY.fullmatch(data), entry
    one = _value(client, "latencies:hist={test}-read")
    assert one.split(":", 1)[0] == "{test}-read"
    for bad in ("latencies:hist={nosuch}-read", "latencies:hist=bogus"):
        with pytest.raises(ex.InvalidRequest, match="bad hist name"):
            client.info_random_node(bad)


def test_cluster_stability(client: Any) -> None:
    key = _value(client, "cluster-stable:")
    assert HEX.fullmatch(key), key
    size = _pairs(_value(client, "statistics"))["cluster_size"]
    assert _value(client, f"cluster-stable:size={size};ignore-migrations=true") == key
    with pytest.raises(ex.ClusterChangeError, match="cluster not specified size"):
        client.info_random_node("cluster-stable:size=999")
    with pytest.raises(ex.InvalidRequest, match="bad size"):
        client.info_random_node("cluster-stable:size=x")
    with pytest.raises(ex.InvalidRequest, match="bad ignore migrations"):
        client.info_random_node("cluster-stable:ignore-migrations=maybe")
    with pytest.raises(ex.NamespaceNotFound):
        client.info_random_node("cluster-stable:namespace=nosuch")


def test_peers_services_and_replicas(client: Any) -> None:
    generation = _value(client, "peers-generation")
    assert generation.isdigit()
    for command in ("peers-clear-std", "peers-clear-alt", "alumni-clear-std"):
        assert re.fullmatch(r"\d+,3000,\[.*\]", _value(client, command)), command
    assert re.fullmatch(r"\S+:\d+", _value(client, "service-clear-std"))
    assert _value(client, "services-alternate") == ""
    assert _value(client, "partition-generation").lstrip("-").isdigit()
    replicas = dict(p.split(":", 1) for p in _value(client, "replicas:max=1").split(";"))
    regime, count, bitmap = replicas["test"].split(",")
    assert regime.isdigit() and count == "1" and len(bitmap) == 684
    everything = dict(p.split(":", 1) for p in _value(client, "replicas-all").split(";"))
    count, *maps = everything["test"].split(",")
    assert int(count) == len(maps) and all(len(m) == 684 for m in maps)
    master = dict(p.split(":", 1) for p in _value(client, "replicas-master").split(";"))
    assert len(master["test"]) == 684
    with pytest.raises(ex.InvalidRequest, match="bad max"):
        client.info_random_node("replicas:max=x")


REFUSED_JOBS_AND_ADMIN = [
    ("query-show:id=x", ex.InvalidRequest, "bad id"),
    ("query-show:id=0", ex.InvalidRequest, "bad id"),
    ("query-show:id=987654321987", ex.RecordNotFound, "job not found"),
    ("query-abort:id=987654321987", ex.RecordNotFound, "id not active"),
    ("query-abort:", ex.InvalidRequest, "missing 'id'"),
    ("truncate:namespace=test", ex.InvalidRequest, "missing 'set'"),
    ("truncate:ns=test;set={set}", ex.NamespaceNotFound, "missing 'namespace'"),
    ("truncate-namespace:namespace=test;set={set}", ex.InvalidRequest, "unexpected set name"),
    ("truncate-undo:namespace=test", ex.InvalidRequest, "missing 'set'"),
    ("truncate-namespace-undo:set={set}", ex.NamespaceNotFound, "missing 'namespace'"),
    ("histogram:type=ttl", ex.NamespaceNotFound, "missing 'namespace'"),
    ("histogram:namespace=test", ex.InvalidRequest, "missing 'type'"),
    ("histogram:namespace=test;type=bogus", ex.InvalidRequest, "unknown hist name"),
    ("histogram:namespace=test;type=ttl;set={set}", ex.InvalidRequest, "unknown set name"),
    ("eviction-reset:namespace=test;ttl=315360001", ex.InvalidRequest, "ttl too big"),
    ("dump-cluster:verbose=maybe", ex.InvalidRequest, "'verbose' may be either"),
    ("physical-devices:", ex.InvalidRequest, "missing 'path'"),
    ("sindex-list:b64=maybe", ex.InvalidRequest, "bad b64"),
    ("sindex-exists:ns=test", ex.InvalidRequest, "missing 'indexname'"),
    ("tip:host=127.0.0.1", ex.InvalidRequest, "missing 'port'"),
    ("nosuch:namespace=test", ex.InvalidRequest, "unrecognized command"),
]


@pytest.mark.parametrize(("command", "error", "message"), REFUSED_JOBS_AND_ADMIN)
def test_admin_commands_refused_as_a_node_refuses_them(
    client: Any, set_name: str, command: str, error: Any, message: str
) -> None:
    with pytest.raises(error) as caught:
        client.info_random_node(command.format(set=set_name))
    assert message in caught.value.msg


def test_admin_commands_a_node_takes(client: Any, set_name: str) -> None:
    assert _value(client, "query-abort-all:").startswith("number-of-queries-killed:")
    assert _value(client, f"truncate-undo:namespace=test;set={set_name}") == "ok"
    assert _value(client, "objects").isdigit()
    ttl = _value(client, "histogram:namespace=test;type=ttl")
    assert ttl == "" or ttl.startswith("units="), ttl
    assert not _value(client, "health-stats").startswith("ERROR")
    assert not _value(client, "index-pressure").startswith("ERROR")
    assert _value(client, "get-stats:context=xdr") == "" or _enterprise(client)
    assert "service.port=" in _value(client, "endpoints")
    assert _value(client, "sindex/nosuch") == "ns_type=unknown"


def test_index_lists_end_without_a_separator(client: Any, set_name: str) -> None:
    name = f"{set_name}_listed"
    client.info_random_node(_create(f"ns=test;set={set_name};indexname={name};bin=a;type=numeric"))
    try:
        assert _listed(client, name)
        listed = _value(client, "sindex-list:ns=test")
        assert not listed.endswith(";"), listed
        assert f"indexname={name}:" in _value(client, "sindex/test")
        assert _value(client, f"sindex-exists:ns=test;indexname={name}") == "true"
    finally:
        client.info_random_node(f"sindex-delete:ns=test;indexname={name}")
