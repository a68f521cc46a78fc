"""The official clients' dynamic configuration file (YAML), as this SDK reads it.

``AEROSPIKE_CLIENT_CONFIG_URL=file:///etc/app/aerospike.yaml`` (or a bare path) names it, or
``connect(config="aerospike.yaml")``. Its ``static`` section applies at connect; its
``dynamic`` section applies at connect and again whenever the file changes (see
``_config_watch``). Keys the official clients know but this SDK does not apply are listed in
``NOT_APPLIED``; a key nobody knows is logged at warning, since the official clients ignore it.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import yaml

from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.policy import Policy

URL_ENV: Final = "AEROSPIKE_CLIENT_CONFIG_URL"
SUFFIXES: Final = (".yaml", ".yml")
DEFAULT_INTERVAL: Final = 5.0
"""Seconds between checks of the file when ``static.client.config_interval`` is not given."""

log: Final = logging.getLogger("aerospike_fluent.config")


@dataclasses.dataclass(frozen=True, slots=True)
class Kind:
    """What a key's value must be: its name in messages and the check."""

    name: str
    check: Callable[[Any], bool]


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 2**32 - 1


INT: Final = Kind("a whole number >= 0", _whole)
NUMBER: Final = Kind("a number", lambda v: isinstance(v, int | float) and not isinstance(v, bool))
BOOL: Final = Kind("true or false", lambda v: isinstance(v, bool))
STR: Final = Kind("a string", lambda v: isinstance(v, str))
INTS: Final = Kind("a list of whole numbers", lambda v: isinstance(v, list) and all(map(_whole, v)))
MAP: Final = Kind("a mapping", lambda v: isinstance(v, dict))


def _enum(*words: str) -> Kind:
    return Kind(f"one of {', '.join(words)}", lambda v: isinstance(v, str) and v.upper() in words)


REPLICA: Final = _enum("MASTER", "MASTER_PROLES", "SEQUENCE", "PREFER_RACK", "RANDOM")
READ_MODE_AP: Final = _enum("ONE", "ALL")
READ_MODE_SC: Final = _enum("SESSION", "LINEARIZE", "ALLOW_REPLICA", "ALLOW_UNAVAILABLE")
DURATION: Final = _enum("LONG", "SHORT", "LONG_RELAX_AP")


@dataclasses.dataclass(frozen=True, slots=True)
class Key:
    """A key of a section: its kind, and where its value goes (``None``: not applied here).

    ``target`` is ``("policy", field)``, ``("limits", field)`` (the section's command family),
    ``("option", connect option)`` or ``("interval", "")``; ``scale`` turns the file's unit
    into seconds.
    """

    kind: Kind
    target: tuple[str, str] | None = None
    scale: float = 1.0


def _ms(field: str) -> Key:
    return Key(INT, ("limits", field), 0.001)


_BASE: Final = {
    "connect_timeout": Key(INT),
    "socket_timeout": _ms("socket_timeout"),
    "total_timeout": _ms("total_timeout"),
    "timeout_delay": Key(INT),
    "max_retries": Key(INT, ("limits", "max_retries")),
    "sleep_between_retries": _ms("retry_pause"),
    "sleep_multiplier": Key(NUMBER),
    "error_detail_verbosity": Key(INT),
    "fail_on_filtered_out": Key(BOOL),
    "replica": Key(REPLICA),
    "read_mode_ap": Key(READ_MODE_AP),
    "read_mode_sc": Key(READ_MODE_SC),
}
_BATCH_FLAGS: Final = {
    name: Key(BOOL) for name in ("allow_inline", "allow_inline_ssd", "respond_all_keys")
} | {"max_concurrent_threads": Key(INT)}
_RECORD_WRITE: Final = {"send_key": Key(BOOL), "durable_delete": Key(BOOL)}

STATIC: Final[dict[str, dict[str, Key]]] = {
    "client": {
        "config_interval": Key(INT, ("interval", "")),
        "max_connections_per_node": Key(INT, ("option", "max_conns_per_node")),
        "min_connections_per_node": Key(INT, ("option", "min_conns_per_node")),
        "async_max_connections_per_node": Key(INT),
        "async_min_connections_per_node": Key(INT),
        "cluster_name": Key(STR, ("option", "cluster_name")),
    },
}
DYNAMIC: Final[dict[str, dict[str, Key]]] = {
    "client": {
        "timeout": Key(INT, ("option", "connect_timeout"), 0.001),
        "login_timeout": Key(INT),
        "max_socket_idle": Key(INT, ("option", "idle_timeout")),
        "tend_interval": Key(INT, ("option", "tend_interval"), 0.001),
        "max_error_rate": Key(INT, ("option", "max_error_rate")),
        "error_rate_window": Key(INT, ("option", "error_rate_window")),
        "rack_ids": Key(INTS, ("option", "rack_ids")),
        "rack_aware": Key(BOOL),
        "app_id": Key(STR),
        "fail_if_not_connected": Key(BOOL),
        "use_service_alternate": Key(BOOL),
        "use_service_alternative": Key(BOOL),
    },
    "read": _BASE
    | {
        "replica": Key(REPLICA, ("policy", "replica")),
        "read_mode_ap": Key(READ_MODE_AP, ("policy", "read_mode_ap")),
        "read_mode_sc": Key(READ_MODE_SC, ("policy", "read_mode_sc")),
    },
    "write": _BASE
    | {
        "send_key": Key(BOOL, ("policy", "send_key")),
        "durable_delete": Key(BOOL, ("policy", "durable_delete")),
        "xdr": Key(BOOL),
    },
    "query": _BASE
    | {
        "expected_duration": Key(DURATION),
        "include_bin_data": Key(BOOL),
        "record_queue_size": Key(INT),
        "info_timeout": Key(INT),
        "max_concurrent_nodes": Key(INT),
    },
    "scan": _BASE | {"concurrent_nodes": Key(BOOL), "max_concurrent_nodes": Key(INT)},
    "batch_read": _BASE | _BATCH_FLAGS,
    "batch": _BASE | _BATCH_FLAGS,
    "batch_write": {name: Key(key.kind) for name, key in (_BASE | _BATCH_FLAGS).items()}
    | _RECORD_WRITE,
    "batch_udf": _RECORD_WRITE,
    "batch_delete": _RECORD_WRITE,
    "txn_verify": {name: Key(key.kind) for name, key in (_BASE | _BATCH_FLAGS).items()},
    "txn_roll": {name: Key(key.kind) for name, key in (_BASE | _BATCH_FLAGS).items()},
    "metrics": {
        "enable": Key(BOOL, ("option", "metrics")),
        "enabled": Key(BOOL, ("option", "metrics")),
        "labels": Key(MAP),
        "extended": Key(MAP),
        "export_interval": Key(STR),
        "exporter": Key(STR),
        "report_dir": Key(STR),
        "report_size_limit": Key(INT),
        "latency_columns": Key(INT),
        "latency_shift": Key(INT),
        "latency_unit": Key(STR),
    },
}
FAMILY: Final = {
    "read": "read",
    "write": "write",
    "query": "query",
    "scan": "query",
    "batch_read": "batch",
    "batch": "batch",
}
"""The command family of this SDK whose limits a section's timeouts and retries set."""
_TOP: Final = ("version", "static", "dynamic")


@dataclasses.dataclass(frozen=True, slots=True)
class YamlConfig:
    """One good reading of the file."""

    path: Path
    text: bytes
    policy: Policy
    """The ``dynamic`` section's call defaults."""
    options: dict[str, Any]
    """Connect options (static, and the ``dynamic.client`` ones applied at connect)."""
    interval: float
    not_applied: tuple[str, ...]
    """Keys given that this SDK knows but does not apply (``dynamic.read.timeout_delay``)."""

    def changed_options(self, other: YamlConfig) -> list[str]:
        """Return the connect options that differ from ``other``'s (they need a reconnect)."""
        names = set(self.options) | set(other.options)
        return sorted(n for n in names if self.options.get(n) != other.options.get(n))


def location(url: str) -> Path:
    """Return the file a config URL names: ``file:///path`` or a bare path."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep:
        return Path(url.strip())
    if scheme != "file":
        raise InvalidArgumentError(
            f"{URL_ENV}={url!r}: only file:// URLs (or a bare path) are read, not {scheme}://"
        )
    return Path(rest)


def from_env() -> Path | None:
    """Return the file ``AEROSPIKE_CLIENT_CONFIG_URL`` names, if it is set."""
    url = os.environ.get(URL_ENV, "").strip()
    return location(url) if url else None


def read(path: Path) -> YamlConfig:
    """Read and check the file; refuse it (typed error naming file and key) when it is wrong."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise InvalidArgumentError(f"config file {path} does not exist") from None
    except OSError as e:
        raise InvalidArgumentError(f"config file {path} cannot be read: {e}") from e
    return parse(path, text)


def parse(path: Path, text: bytes) -> YamlConfig:
    """Check a document's text (see :func:`read`)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InvalidArgumentError(f"config file {path} is not valid YAML: {e}") from e
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidTypeError(f"{path}: the document is a mapping, not {_shown(data)}")
    for key in data:
        if key not in _TOP:
            _warn_unknown(path, str(key), _TOP)
    if "version" not in data:
        log.warning("%s: no 'version' key (the official clients expect one); read anyway", path)
    elif not isinstance(data["version"], str):
        raise InvalidTypeError(f'{path}: version is a string ("1.0.0"), not {data["version"]!r}')
    reading = _Reading(path)
    reading.sections("static", data.get("static"), STATIC)
    reading.sections("dynamic", data.get("dynamic"), DYNAMIC)
    return reading.result(text)


MS_FROM: Final = 250
"""A ``config_interval`` this large is milliseconds: the C-based official Python client reads it
so (and refuses one below its tend interval in ms), the spec and the Rust client in seconds."""


def _interval(path: Path, where: str, value: int) -> float:
    if value < 1:
        raise InvalidArgumentError(f"{path}: {where} is seconds between checks, not {value}")
    return value / 1000 if value >= MS_FROM else float(value)


def _shown(value: object) -> str:
    return f"{type(value).__name__} {value!r}"


def _warn_unknown(path: Path, where: str, known: tuple[str, ...] | list[str]) -> None:
    name = where.rsplit(".", 1)[-1]
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    log.warning("%s: unknown key %s ignored%s", path, where, hint)


class _Reading:
    """The settings gathered while walking one document."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.policy: dict[str, Any] = {}
        self.limits: dict[str, dict[str, Any]] = {}
        self.options: dict[str, Any] = {}
        self.interval = DEFAULT_INTERVAL
        self.not_applied: list[str] = []

    def sections(self, top: str, value: object, schema: Mapping[str, Mapping[str, Key]]) -> None:
        if value is None:
            return
        if not isinstance(value, dict):
            raise InvalidTypeError(f"{self.path}: {top} is a mapping, not {_shown(value)}")
        # scan's limits apply only where query's leave a key unset: both are this SDK's queries
        for name in sorted(value, key=lambda n: n == "scan"):
            where = f"{top}.{name}"
            if name not in schema:
                _warn_unknown(self.path, where, list(schema))
                continue
            section = value[name]
            if section is None:
                continue
            if not isinstance(section, dict):
                raise InvalidTypeError(f"{self.path}: {where} is a mapping, not {_shown(section)}")
            for key, given in section.items():
                self.key(f"{where}.{key}", schema[name], str(key), given, FAMILY.get(name))

    def key(
        self, where: str, schema: Mapping[str, Key], name: str, value: Any, family: str | None
    ) -> None:
        if name not in schema:
            _warn_unknown(self.path, where, list(schema))
            return
        spec = schema[name]
        if not spec.kind.check(value):
            raise InvalidTypeError(f"{self.path}: {where} is {spec.kind.name}, not {_shown(value)}")
        target = spec.target
        if target is None or (target[0] == "limits" and family is None):
            self.not_applied.append(where)
            return
        place, field = target
        if isinstance(value, str):
            value = value.lower()
        elif spec.scale != 1.0:
            value = value * spec.scale
        if place == "policy":
            self.policy[field] = value
        elif place == "limits":
            assert family is not None
            self.limits.setdefault(family, {}).setdefault(field, value)
        elif place == "option":
            self.options[field] = value
        else:
            self.interval = _interval(self.path, where, value)

    def result(self, text: bytes) -> YamlConfig:
        try:
            policy = Policy.from_mapping({**self.policy, **self.limits}, where="key")
        except (InvalidArgumentError, InvalidTypeError) as e:
            raise type(e)(f"{self.path}: dynamic: {e}") from None
        return YamlConfig(
            self.path, text, policy, self.options, self.interval, tuple(self.not_applied)
        )
