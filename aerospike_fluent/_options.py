"""``connect()`` options: checked, converted to the native config, merged with a config file."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, TypedDict

from aerospike_fluent import _config_file, _config_yaml, _native, _validate
from aerospike_fluent._config_watch import Layers
from aerospike_fluent._config_yaml import YamlConfig
from aerospike_fluent.errors import AerospikeError, InvalidArgumentError, InvalidTypeError
from aerospike_fluent.models.codecs import Codec, Codecs
from aerospike_fluent.policy import BUILT_IN, BYTES_KEYS, BytesKeys, Duration, Policy


class ConnectOptions(TypedDict, total=False):
    """The keywords of ``connect()`` (``af.connect`` and ``af.sync.connect``).

    Editors complete them and a type checker refuses a misspelled one; at run time an unknown
    name is refused naming the closest. Durations are seconds (a number or a ``timedelta``).
    """

    cluster_name: str | None
    user: str | None
    password: str | None
    auth_mode: Literal["internal", "external", "pki"] | None
    tls_name: str | None
    tls_ca_file: str | None
    tls_cert_file: str | None
    tls_key_file: str | None
    connect_timeout: Duration
    tend_interval: Duration
    idle_timeout: Duration
    spin_wait: Duration
    max_conns_per_node: int
    min_conns_per_node: int
    max_error_rate: int
    error_rate_window: int
    metrics: bool
    rack_id: int | None
    rack_ids: Iterable[int] | None
    total_timeout: Duration
    socket_timeout: Duration
    max_retries: int
    bytes_keys: BytesKeys
    policy: Policy | Mapping[str, Any] | None
    profiles: Mapping[str, Policy | Mapping[str, Any]] | None
    config: str | os.PathLike[str] | None
    auto_batch: bool | int
    max_in_flight: int | None
    queue_timeout: Duration
    codecs: Codecs | Iterable[Codec[Any]] | None
    # The older names, in whole ms or µs (deprecated: each warns, naming its replacement).
    connect_timeout_ms: int
    tend_interval_ms: int
    idle_timeout_ms: int
    spin_wait_us: int
    total_timeout_ms: int
    socket_timeout_ms: int


# Every numeric connect option is a count or a duration held in 32 bits.
OPTION_MAX: Final = 2**32 - 1

DURATIONS: Final = {
    "connect_timeout": ("connect_timeout_ms", 1000),
    "tend_interval": ("tend_interval_ms", 1000),
    "idle_timeout": ("idle_timeout_ms", 1000),
    "spin_wait": ("spin_wait_us", 1_000_000),
    "queue_timeout": ("queue_timeout_ms", 1000),
}
"""Duration options of the native config, in seconds (a number or a ``timedelta``): the native
option each becomes and its units per second."""

_NATIVE_DURATIONS: Final = {native: (name, per) for name, (native, per) in DURATIONS.items()}
_NEVER_IN_UNITS: Final = ("queue_timeout",)
"""Duration options that never had a name in whole ms or µs."""

POLICY_SHORTHANDS: Final = ("total_timeout", "socket_timeout", "max_retries", "bytes_keys")
"""``connect(total_timeout=...)`` is short for ``connect(policy=Policy(total_timeout=...))``."""
_DURATION_SHORTHANDS: Final = ("total_timeout", "socket_timeout")

DEPRECATED: Final = {
    **{
        native: (name, per)
        for name, (native, per) in DURATIONS.items()
        if name not in _NEVER_IN_UNITS
    },
    "total_timeout_ms": ("total_timeout", 1000),
    "socket_timeout_ms": ("socket_timeout", 1000),
}
"""The older names, in whole ms or µs: the name that replaces each, and its units per second."""

_PYTHON_ONLY: Final = {
    **{name: getattr(BUILT_IN, name) for name in POLICY_SHORTHANDS},
    "rack_id": None,
    "codecs": None,
    "policy": None,
    "profiles": None,
    "config": None,
    "auto_batch": False,
}
_UNITS: Final = {"ms": "milliseconds", "us": "microseconds"}


@dataclasses.dataclass(frozen=True, slots=True)
class Prepared:
    """What a connect needs: seeds, the native config's options, call defaults, profiles."""

    seeds: Any
    native: dict[str, Any]
    policy: Policy
    profiles: dict[str, Policy]
    auto_batch: Any
    codecs: Codecs | None
    dynamic: tuple[YamlConfig, Layers] | None = None
    """The dynamic configuration file to watch, and the defaults around its own."""


@functools.cache
def native_options() -> dict[str, Any]:
    """Every option the native config takes, with its default (``defaults`` aside)."""
    params = inspect.signature(_native.ClientConfig).parameters
    return {
        p.name: p.default
        for p in params.values()
        if p.kind is p.KEYWORD_ONLY and p.name != "defaults"
    }


def public_options() -> dict[str, Any]:
    """Every ``connect()`` option with its default (durations in seconds)."""
    out: dict[str, Any] = {}
    for name, default in native_options().items():
        if name in _NATIVE_DURATIONS:
            public, per = _NATIVE_DURATIONS[name]
            out[public] = default / per
        else:
            out[name] = default
    return {**out, **_PYTHON_ONLY}


def prepare(seeds: Any, options: dict[str, Any], stacklevel: int) -> Prepared:
    """Check ``connect()``'s options and merge them with the config file, if any.

    Unknown names are refused with the closest known one; a deprecated millisecond name warns,
    naming its replacement (at the caller ``stacklevel`` frames up). Explicit arguments win
    over the file.
    """
    options = dict(options)
    loaded = _config_file.load(options.pop("config", None))
    dynamic = loaded.dynamic if loaded is not None else None
    if dynamic is None and (url_file := _config_yaml.from_env()) is not None:
        dynamic = _config_yaml.read(url_file)
    explicit, given = _split(_checked(options, stacklevel + 1))
    below = Policy()
    from_files: dict[str, Any] = {}
    profiles: dict[str, Policy] = {}
    if loaded is not None and loaded.dynamic is None:
        try:
            file_options = _checked(loaded.options, 0, "[connection] option")
        except AerospikeError as e:
            raise type(e)(f"{loaded.path}: {e}") from None
        file_policy, from_files = _split(file_options)
        below = file_policy.over(loaded.policy)
        profiles.update(loaded.profiles)
        if seeds is None and not os.environ.get("AEROSPIKE_HOST"):
            seeds = loaded.seeds
    layers = Layers(explicit, below)
    policy = layers.with_file(Policy())
    if dynamic is not None:
        policy = layers.with_file(dynamic.policy)
        from_files |= _checked(dynamic.options, 0, f"{dynamic.path}: option")
    if given.get("rack_id") is not None:
        from_files.pop("rack_ids", None)
    given = {**from_files, **given}
    profiles.update(_profiles(given.pop("profiles", None)))
    rack_id = given.pop("rack_id", None)
    if rack_id is not None:
        if given.get("rack_ids") is not None:
            raise InvalidArgumentError("give connect option rack_id or rack_ids, not both")
        given["rack_ids"] = [rack_id]
    auto_batch = given.pop("auto_batch", None)
    codecs = given.pop("codecs", None)
    policy.resolved()  # every setting checked before anything starts
    has_rack = given.get("rack_ids") is not None
    check_rack(policy, has_rack, "policy")
    for name, profile in profiles.items():
        check_rack(profile, has_rack, f"profile {name!r}")
    watch = None if dynamic is None else (dynamic, layers)
    return Prepared(seeds, given, policy, profiles, auto_batch, _codecs(codecs), watch)


def check_rack(policy: Policy, has_rack: bool, where: str) -> None:
    """Refuse ``replica="prefer_rack"`` for a client that has no rack: every read would fail."""
    if policy.replica == "prefer_rack" and not has_rack:
        raise InvalidArgumentError(
            f"{where}: replica='prefer_rack' reads from the client's own rack, and this client "
            "has none: give connect(rack_id=...) (or rack_ids=[...]) too"
        )


def _split(options: dict[str, Any]) -> tuple[Policy, dict[str, Any]]:
    """Split checked options into call defaults (``policy`` and its shorthands) and the rest."""
    rest = dict(options)
    policy = _policy(rest.pop("policy", None), "policy")
    shorthand = {name: rest.pop(name) for name in POLICY_SHORTHANDS if name in rest}
    return Policy(**shorthand).over(policy), rest


def _checked(
    options: Mapping[str, Any], stacklevel: int, where: str = "connect option"
) -> dict[str, Any]:
    public = public_options()
    out: dict[str, Any] = {}
    for name, value in options.items():
        if name in DURATIONS:
            native, per = DURATIONS[name]
            if native in options:
                raise InvalidArgumentError(f"give {where} {name} or {native}, not both")
            out[native] = units(name, value, per, where)
        elif name in _DURATION_SHORTHANDS:
            if f"{name}_ms" in options:
                raise InvalidArgumentError(f"give {where} {name} or {name}_ms, not both")
            units(name, value, 1000, where)
            out[name] = value
        elif name in DEPRECATED:
            new, per = DEPRECATED[name]
            if not stacklevel:
                raise InvalidArgumentError(f"{where} {name} is an old name: use {new} in seconds")
            _whole(name, value, where)  # before value / per: a huge int overflows a float
            if stacklevel:
                example = (
                    value / per if isinstance(value, int) and not isinstance(value, bool) else 1
                )
                warnings.warn(
                    f"{where} {name} is deprecated: use {new} in seconds (e.g. {new}={example!r})",
                    DeprecationWarning,
                    stacklevel=stacklevel + 1,
                )
            if new in POLICY_SHORTHANDS:
                out[new] = value / per
            else:
                out[name] = value
        elif name in public:
            out[name] = _typed(name, value, where)
        else:
            raise InvalidArgumentError(_validate.unknown(where, name, sorted(public), "options"))
    return out


def _typed(name: str, value: Any, where: str) -> Any:
    default = public_options()[name]
    if name in ("policy", "profiles", "auto_batch", "codecs"):
        return value  # checked where they are used
    if name == "rack_ids":
        return _rack_ids(value, where)
    if name == "max_in_flight":
        return _max_in_flight(value, where)
    if name == "bytes_keys":
        _validate.choice(f"{where} bytes_keys", value, BYTES_KEYS)
        return value
    if name in ("max_retries", "rack_id") or (
        isinstance(default, int) and not isinstance(default, bool)
    ):
        _whole(name, value, where)
    elif isinstance(default, bool) and not isinstance(value, bool):
        raise InvalidTypeError(f"{where} {name} is True or False, not {value!r}")
    elif default is None and value is not None and not isinstance(value, str):
        raise InvalidTypeError(f"{where} {name} is a str, not {value!r}")
    return value


def _whole(name: str, value: object, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        unit = _UNITS.get(name.rsplit("_", 1)[-1], "a count")
        raise InvalidTypeError(f"{where} {name} takes a whole number ({unit}), not {value!r}")
    if not 0 <= value <= OPTION_MAX:
        raise InvalidArgumentError(
            f"{where} {name} must be within 0..{OPTION_MAX}, not {_validate.shown(value)}"
        )


def _max_in_flight(value: object, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(
            f"{where} max_in_flight takes a whole number of calls, or None for no limit, "
            f"not {value!r}"
        )
    if not 1 <= value <= OPTION_MAX:
        raise InvalidArgumentError(
            f"{where} max_in_flight must be within 1..{OPTION_MAX} (None: no limit), "
            f"not {_validate.shown(value)}"
        )
    return value


def _rack_ids(value: object, where: str) -> list[int] | None:
    if value is None:
        return None
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise InvalidTypeError(f"{where} rack_ids is a list of whole numbers, not {value!r}")
    ids = list(value)
    for rack in ids:
        _whole("rack_ids", rack, where)
    if not ids:
        raise InvalidArgumentError(f"{where} rack_ids is empty: give at least one rack id")
    return ids


def _codecs(value: object) -> Codecs | None:
    if value is None:
        return None
    if isinstance(value, Codecs):
        return value
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise InvalidTypeError(f"connect option codecs is a list of Codec, not {value!r}")
    return Codecs(value)


def _policy(value: object, what: str) -> Policy:
    if value is None:
        return Policy()
    if isinstance(value, Policy):
        return value
    if isinstance(value, Mapping):
        return Policy.from_mapping(value, where=f"{what} option")
    raise InvalidTypeError(f"connect option {what} is an af.Policy or a mapping, not {value!r}")


def _profiles(value: object) -> dict[str, Policy]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"connect option profiles maps names to policies, not {value!r}")
    out = {}
    for name, policy in value.items():
        if not isinstance(name, str) or not name:
            raise InvalidTypeError(f"a profile name is a non-empty str, not {name!r}")
        out[name] = _policy(policy, f"profile {name!r}")
    return out


def units(name: str, value: object, per_second: int, what: str = "connect option") -> int:
    """Whole units (ms or µs) of a duration option given in seconds or as a ``timedelta``."""
    return _validate.duration(f"{what} {name}", value, per_second, OPTION_MAX)


def config(seeds: str, prepared: Prepared) -> _native.ClientConfig:
    """Return the native config of a prepared connect."""
    return _native.ClientConfig(seeds, defaults=prepared.policy._call_defaults(), **prepared.native)
