"""The official clients' dynamic configuration file: what connect() takes from it, and refuses."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent._config_watch import Watcher
from aerospike_fluent._config_yaml import URL_ENV
from aerospike_fluent._options import prepare

SHARED = (Path(__file__).parent.parent / "config" / "aerospike.yaml").read_text()
"""A file both this SDK and the official C-based client read (``tests/compat``)."""


def _limits(policy: af.Policy, family: str) -> af.Limits:
    section = getattr(policy, family)
    assert isinstance(section, af.Limits)
    return section


def _file(tmp_path: Path, text: str, name: str = "aerospike.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_every_dynamic_section_sets_its_command_family(tmp_path: Path) -> None:
    prepared = prepare(None, {"config": str(_file(tmp_path, SHARED))}, stacklevel=1)
    policy = prepared.policy.resolved()
    assert (policy.replica, policy.read_mode_ap, policy.send_key, policy.durable_delete) == (
        "master",
        "all",
        True,
        True,
    )
    assert policy.read == af.Limits(
        total_timeout=5.678, socket_timeout=1.234, max_retries=9, retry_pause=0.007
    )
    assert _limits(policy, "write").total_timeout == 8.765
    assert _limits(policy, "batch").total_timeout == 0.222
    # scan and query are one family here: query's keys win, scan fills the rest
    assert policy.query == af.Limits(
        total_timeout=3.333, socket_timeout=4.0, max_retries=2, retry_pause=0
    )
    native = prepared.native
    assert (native["max_conns_per_node"], native["connect_timeout_ms"]) == (77, 2500)
    assert native["tend_interval_ms"] == 900
    assert prepared.dynamic is not None and prepared.dynamic[0].interval == 5.0
    assert native["max_error_rate"] == 42
    assert "dynamic.client.max_error_rate" not in prepared.dynamic[0].not_applied


def test_the_url_variable_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _file(tmp_path, SHARED)
    monkeypatch.setenv(URL_ENV, f"file://{path}")
    assert prepare(None, {}, stacklevel=1).policy.resolved().replica == "master"
    monkeypatch.setenv(URL_ENV, str(path))
    assert prepare(None, {}, stacklevel=1).policy.resolved().read_mode_ap == "all"
    monkeypatch.setenv(URL_ENV, "http://example.invalid/c.yaml")
    with pytest.raises(errors.InvalidArgumentError, match="only file:// URLs"):
        prepare(None, {}, stacklevel=1)


def test_explicit_arguments_win_over_the_file(tmp_path: Path) -> None:
    path = str(_file(tmp_path, SHARED))
    prepared = prepare(
        None,
        {"config": path, "policy": af.Policy(replica="sequence", read={"max_retries": 1})},
        stacklevel=1,
    )
    policy = prepared.policy.resolved()
    assert (policy.replica, policy.read_mode_ap) == ("sequence", "all")
    assert (_limits(policy, "read").max_retries, _limits(policy, "read").total_timeout) == (
        1,
        5.678,
    )
    assert (
        prepare(None, {"config": path, "max_conns_per_node": 5}, 1).native["max_conns_per_node"]
        == 5
    )


def test_the_yaml_file_sits_over_the_toml_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = tmp_path / "client.toml"
    toml.write_text('[policy]\nreplica = "random"\nsend_key = false\nmax_retries = 4\n')
    monkeypatch.setenv(URL_ENV, str(_file(tmp_path, SHARED)))
    policy = prepare(None, {"config": str(toml)}, stacklevel=1).policy.resolved()
    assert (policy.replica, policy.send_key) == ("master", True)
    assert _limits(policy, "udf").max_retries == 4  # only the TOML file sets it


def test_an_unknown_key_is_logged_with_file_path_and_closest_name(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    text = SHARED.replace("  write:\n", "  write:\n    totl_timeout: 5\n").replace(
        "unknown_section", "reed"
    )
    path = _file(tmp_path, text)
    with caplog.at_level(logging.WARNING, logger="aerospike_fluent.config"):
        policy = prepare(None, {"config": str(path)}, stacklevel=1).policy.resolved()
    assert _limits(policy, "write").total_timeout == 8.765
    messages = [r.getMessage() for r in caplog.records]
    assert (
        f"{path}: unknown key dynamic.write.totl_timeout ignored; did you mean 'total_timeout'?"
        in messages
    )
    assert f"{path}: unknown key dynamic.reed ignored; did you mean 'read'?" in messages


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "max_retries: 9",
            "max_retries: nine",
            "dynamic.read.max_retries is a whole number >= 0, not str 'nine'",
        ),
        ("send_key: true", "send_key: 1", "dynamic.write.send_key is true or false, not int 1"),
        ("replica: MASTER", "replica: NEAREST", "dynamic.read.replica is one of MASTER, "),
        (
            "total_timeout: 3333",
            "total_timeout: -1",
            "dynamic.query.total_timeout is a whole number >= 0, not int -1",
        ),
        (
            "config_interval: 5000",
            "config_interval: [2]",
            "static.client.config_interval is a whole number",
        ),
        ("  read:\n", "  read: 5\n  other:\n", "dynamic.read is a mapping, not int 5"),
    ],
)
def test_an_ill_typed_value_is_refused_naming_file_path_and_type(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert old in SHARED
    path = _file(tmp_path, SHARED.replace(old, new, 1))
    with pytest.raises(errors.InvalidTypeError) as refused:
        prepare(None, {"config": str(path)}, stacklevel=1)
    assert str(refused.value).startswith(f"{path}: {message}")


def test_a_broken_document_and_a_zero_interval_are_refused(tmp_path: Path) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="is not valid YAML"):
        prepare(None, {"config": str(_file(tmp_path, "dynamic: : :\n"))}, stacklevel=1)
    zero = _file(tmp_path, SHARED.replace("config_interval: 5000", "config_interval: 0"))
    with pytest.raises(
        errors.InvalidArgumentError, match="config_interval is seconds between checks, not 0"
    ):
        prepare(None, {"config": str(zero)}, stacklevel=1)
    with pytest.raises(errors.InvalidArgumentError, match="does not exist"):
        prepare(None, {"config": str(tmp_path / "missing.yml")}, stacklevel=1)


def test_a_file_without_version_is_read_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _file(tmp_path, "dynamic:\n  read:\n    max_retries: 3\n")
    with caplog.at_level(logging.WARNING, logger="aerospike_fluent.config"):
        policy = prepare(None, {"config": str(path)}, stacklevel=1).policy.resolved()
    assert _limits(policy, "read").max_retries == 3
    assert any("no 'version' key" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(("given", "seconds"), [(1, 1.0), (30, 30.0), (5000, 5.0), (250, 0.25)])
def test_config_interval_reads_seconds_and_the_c_clients_milliseconds(
    tmp_path: Path, given: int, seconds: float
) -> None:
    path = _file(tmp_path, SHARED.replace("config_interval: 5000", f"config_interval: {given}"))
    prepared = prepare(None, {"config": str(path)}, stacklevel=1)
    assert prepared.dynamic is not None and prepared.dynamic[0].interval == seconds


def test_a_reload_applies_the_dynamic_section_only(tmp_path: Path) -> None:
    path = _file(tmp_path, SHARED)
    prepared = prepare(None, {"config": str(path)}, stacklevel=1)
    assert prepared.dynamic is not None
    config, layers = prepared.dynamic
    applied: list[af.Policy] = []
    watcher = Watcher(config, layers, applied.append, lambda: watcher)
    try:
        path.write_text(
            SHARED.replace("5000", "9000").replace("replica: MASTER", "replica: RANDOM")
        )
        watcher.check()
        watcher.check()  # unchanged since: nothing more applied
    finally:
        watcher.stop()
    assert [p.resolved().replica for p in applied] == ["random"]
    assert watcher.current.interval == 5.0  # static: kept from connect
    assert (watcher.counts().checks, watcher.counts().applied) == (2, 1)
