"""The configuration file: ``connect(config=path)`` or ``AEROSPIKE_FLUENT_CONFIG=path``.

A ``.toml`` file holds this SDK's own settings; a ``.yaml`` / ``.yml`` file is the official
clients' dynamic configuration (``_config_yaml``), which ``AEROSPIKE_CLIENT_CONFIG_URL`` names
too.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from aerospike_fluent import _config_yaml, _validate
from aerospike_fluent._config_yaml import YamlConfig
from aerospike_fluent.errors import AerospikeError, InvalidArgumentError, InvalidTypeError
from aerospike_fluent.policy import Policy

ENV: Final = "AEROSPIKE_FLUENT_CONFIG"
_TABLES: Final = ("seeds", "connection", "policy", "profiles")
_PARENT: Final = "from"


@dataclasses.dataclass(frozen=True, slots=True)
class Loaded:
    """A configuration file's settings."""

    path: Path
    seeds: str | list[str] | None
    options: dict[str, Any]
    policy: Policy
    profiles: dict[str, Policy]
    dynamic: YamlConfig | None = None
    """The dynamic configuration file (a YAML ``config=`` path); its settings are there."""


def load(path: str | os.PathLike[str] | None) -> Loaded | None:
    """Read ``path``, or the file ``AEROSPIKE_FLUENT_CONFIG`` names; ``None`` when neither."""
    if path is None:
        path = os.environ.get(ENV) or None
        if path is None:
            return None
    if not isinstance(path, str | os.PathLike):
        raise InvalidTypeError(f"connect option config is a path, not {path!r}")
    file = Path(path)
    if file.suffix.lower() in _config_yaml.SUFFIXES:
        return Loaded(file, None, {}, Policy(), {}, _config_yaml.read(file))
    try:
        with file.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise InvalidArgumentError(f"config file {file} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise InvalidArgumentError(f"config file {file} is not valid TOML: {e}") from e
    return _parse(file, data)


def _parse(file: Path, data: dict[str, Any]) -> Loaded:
    for key in data:
        if key not in _TABLES:
            raise InvalidArgumentError(_misplaced(file, key))
    seeds = data.get("seeds")
    if seeds is not None and not (
        isinstance(seeds, str)
        or (isinstance(seeds, list) and all(isinstance(s, str) for s in seeds))
    ):
        raise InvalidTypeError(f"{file}: seeds is 'host:port' or a list of them, not {seeds!r}")
    options = _table(file, data, "connection")
    policy = _policy(file, "[policy]", _table(file, data, "policy"))
    raw = _table(file, data, "profiles")
    profiles: dict[str, Policy] = {}
    for name in raw:
        profiles[name] = _profile(file, raw, name, ())
    return Loaded(file, seeds, options, policy, profiles)


def _table(file: Path, data: Mapping[str, Any], name: str) -> dict[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise InvalidTypeError(f"{file}: {name} is a table ([{name}]), not {table!r}")
    return table


def _profile(file: Path, raw: Mapping[str, Any], name: str, seen: tuple[str, ...]) -> Policy:
    where = f"[profiles.{name}]"
    if name in seen:
        chain = " -> ".join((*seen, name))
        raise InvalidArgumentError(f"{file}: profiles derive from each other in a loop: {chain}")
    table = raw[name]
    if not isinstance(table, dict):
        raise InvalidTypeError(f"{file}: {where} is a table, not {table!r}")
    settings = dict(table)
    parent = settings.pop(_PARENT, None)
    own = _policy(file, where, settings)
    if parent is None:
        return own
    if parent not in raw:
        raise InvalidArgumentError(_unknown(file, f"{where} from profile", str(parent), tuple(raw)))
    return own.over(_profile(file, raw, parent, (*seen, name)))


def _policy(file: Path, where: str, settings: dict[str, Any]) -> Policy:
    try:
        return Policy.from_mapping(settings, where="key")
    except AerospikeError as e:
        raise type(e)(f"{file}: {where}: {e}") from None


def _misplaced(file: Path, key: str) -> str:
    """Refuse a top-level ``key``, saying which table takes it when one does."""
    from aerospike_fluent._options import public_options  # that module reads this one

    table = dict.fromkeys(public_options(), "[connection]")
    table.update(dict.fromkeys(Policy.__dataclass_fields__, "[policy]"))
    table.update(dict.fromkeys(_TABLES, ""))
    close = difflib.get_close_matches(key, list(table), n=1)
    if key in table:
        hint = f": it goes in {table[key]}"
    elif close:
        where = f" (in {table[close[0]]})" if table[close[0]] else ""
        hint = f"; did you mean {close[0]!r}{where}?"
    else:
        hint = ""
    return f"{file}: unknown key {key!r}{hint} (known: {', '.join(_TABLES)})"


def _unknown(file: Path, what: str, key: str, known: tuple[str, ...]) -> str:
    return f"{file}: {_validate.unknown(what, key, known)}"
