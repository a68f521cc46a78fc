"""Client-wide call defaults: :class:`Policy`, per command family, and profiles derived from it.

A policy lists only what it changes; everything else inherits (from the client, the view, or
the built-in defaults in :data:`BUILT_IN`). ``connect(policy=...)`` sets a client's defaults,
``db.with_policy(...)`` makes a view with other ones, and a call's own options win over both.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Final, Literal, TypedDict, Unpack

from aerospike_fluent import _native, _validate
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

Replica = Literal["master", "master_proles", "sequence", "prefer_rack", "random"]
ReadModeAP = Literal["one", "all"]
ReadModeSC = Literal["session", "linearize", "allow_replica", "allow_unavailable"]
BytesKeys = Literal["blob", "string"]
Duration = float | timedelta
TTL = int | timedelta | Literal["never", "keep"]


class PolicyOptions(TypedDict, total=False):
    """The keywords of :class:`Policy`, for ``derive`` and ``with_policy``."""

    total_timeout: Duration | None
    socket_timeout: Duration | None
    max_retries: int | None
    retry_pause: Duration | None
    retry_writes: bool | None
    send_key: bool | None
    ttl: TTL | None
    durable_delete: bool | None
    compress: bool | None
    replica: Replica | None
    read_mode_ap: ReadModeAP | None
    read_mode_sc: ReadModeSC | None
    bytes_keys: BytesKeys | None
    read_touch_ttl_percent: int | None
    read: Limits | Mapping[str, Any] | None
    write: Limits | Mapping[str, Any] | None
    batch: Limits | Mapping[str, Any] | None
    query: Limits | Mapping[str, Any] | None
    udf: Limits | Mapping[str, Any] | None
    info: Limits | Mapping[str, Any] | None


class GenerationBelow(int):
    """A write's ``generation=``: write only if the record's generation is below this one.

    ``POLICY_GEN_GT`` of the other clients (restoring newer copies over older ones).

    A plain int as ``generation=`` writes only if the record's generation equals it.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"GenerationBelow({int(self)})"


REPLICAS: Final = ("master", "master_proles", "sequence", "prefer_rack", "random")
READ_MODES_AP: Final = ("one", "all")
READ_MODES_SC: Final = ("session", "linearize", "allow_replica", "allow_unavailable")
BYTES_KEYS: Final = ("blob", "string")
FAMILIES: Final = ("read", "write", "batch", "query", "udf", "info")
_TTL_WORDS: Final = {"never": -1, "keep": -2}
_RETRIES_MAX: Final = 1000


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class Limits:
    """Timeouts and retries of one command family; ``None`` inherits.

    Durations in seconds (a number or a ``timedelta``); 0 means no limit.
    """

    total_timeout: Duration | None = None
    socket_timeout: Duration | None = None
    max_retries: int | None = None
    retry_pause: Duration | None = None

    def __post_init__(self) -> None:
        for f in ("total_timeout", "socket_timeout", "retry_pause"):
            _millis(f, getattr(self, f))
        if self.max_retries is not None:
            _validate.integer("max_retries", self.max_retries, 0, _RETRIES_MAX)

    def _over(self, base: Limits) -> Limits:
        return Limits(**{f: _first(getattr(self, f), getattr(base, f)) for f in _LIMITS})

    def _native(self) -> tuple[int, int, int, int]:
        ms = _millis
        return (
            ms("total_timeout", self.total_timeout) or 0,
            ms("socket_timeout", self.socket_timeout) or 0,
            self.max_retries or 0,
            ms("retry_pause", self.retry_pause) or 0,
        )


_LIMITS: Final = tuple(f.name for f in dataclasses.fields(Limits))


def _names_checked(cls: type[Any], what: str) -> None:
    """Make ``cls(...)`` refuse an unknown keyword naming the closest known one."""
    init = cls.__init__
    known = tuple(f.name for f in dataclasses.fields(cls))

    @functools.wraps(init)
    def checked(self: Any, **options: Any) -> None:
        try:
            init(self, **options)
        except TypeError:
            for name in options:
                if name not in known:
                    raise InvalidArgumentError(_validate.unknown(what, name, known)) from None
            raise

    cls.__init__ = checked


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True, repr=False)
class Policy:
    """Defaults of calls, for every command family at once or per family.

    The top-level limits (``total_timeout``, ``socket_timeout``, ``max_retries``,
    ``retry_pause``) apply to reads, writes, batches and UDF calls; scans and queries take
    only their ``query`` section (a stream has no total deadline by default) and info commands
    their ``info`` section. A family's section wins over the top level. Sections are
    :class:`Limits` or a mapping of the same keys.

    ``replica`` and the read modes apply to reads (single, batch, scan and query);
    ``send_key``, ``ttl`` and ``durable_delete`` to writes (single, batch rows, UDF).
    ``replica="prefer_rack"`` needs a client with a rack (``connect(rack_id=...)``).
    ``bytes_keys`` says how a ``bytes`` user key is hashed: ``"blob"`` (the default, as
    aerospike-sdk, Java and the Rust client do) or ``"string"`` (as the official C-based
    Python client and aerospike-py do, to find their records); a ``bytearray`` is a blob.
    ``read_touch_ttl_percent`` (reads, single and batch): a read within that percentage of
    the record's last write TTL from its expiry gives it that TTL again (1 to 100; 0 the
    namespace's setting, -1 never).

    A policy never changes: :meth:`derive` returns a changed copy. Durations are seconds
    (a number or a ``timedelta``): 0 means no limit, otherwise at least 1 ms.
    """

    total_timeout: Duration | None = None
    socket_timeout: Duration | None = None
    max_retries: int | None = None
    retry_pause: Duration | None = None
    retry_writes: bool | None = None
    send_key: bool | None = None
    ttl: TTL | None = None
    durable_delete: bool | None = None
    compress: bool | None = None
    replica: Replica | None = None
    read_mode_ap: ReadModeAP | None = None
    read_mode_sc: ReadModeSC | None = None
    bytes_keys: BytesKeys | None = None
    read_touch_ttl_percent: int | None = None
    read: Limits | Mapping[str, Any] | None = None
    write: Limits | Mapping[str, Any] | None = None
    batch: Limits | Mapping[str, Any] | None = None
    query: Limits | Mapping[str, Any] | None = None
    udf: Limits | Mapping[str, Any] | None = None
    info: Limits | Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        for f in ("total_timeout", "socket_timeout", "retry_pause"):
            _millis(f, getattr(self, f))
        if self.max_retries is not None:
            _validate.integer("max_retries", self.max_retries, 0, _RETRIES_MAX)
        for f in ("retry_writes", "send_key", "durable_delete", "compress"):
            value = getattr(self, f)
            if value is not None and not isinstance(value, bool):
                raise InvalidTypeError(f"policy option {f} is True or False, not {value!r}")
        if self.ttl is not None:
            _ttl(self.ttl)
        if self.read_touch_ttl_percent is not None:
            _validate.integer(
                "policy option read_touch_ttl_percent", self.read_touch_ttl_percent, -1, 100
            )
        for f, allowed in (
            ("replica", REPLICAS),
            ("read_mode_ap", READ_MODES_AP),
            ("read_mode_sc", READ_MODES_SC),
            ("bytes_keys", BYTES_KEYS),
        ):
            value = getattr(self, f)
            if value is not None:
                _validate.choice(f"policy option {f}", value, allowed)
        for family in FAMILIES:
            section = getattr(self, family)
            if section is not None and not isinstance(section, Limits):
                object.__setattr__(self, family, _section(family, section))
        info = self.info
        if isinstance(info, Limits) and (info.socket_timeout, info.max_retries) != (None, None):
            raise InvalidArgumentError("policy section info takes only total_timeout")
        if isinstance(info, Limits) and info.retry_pause is not None:
            raise InvalidArgumentError("policy section info takes only total_timeout")

    def __repr__(self) -> str:
        return f"Policy({', '.join(f'{k}={v!r}' for k, v in self.changes().items())})"

    def derive(self, **changes: Unpack[PolicyOptions]) -> Policy:
        """Return a copy with ``changes`` (a family section merges with this one's)."""
        return Policy.from_mapping(dict(changes), where="derive option").over(self)

    def over(self, base: Policy) -> Policy:
        """Return a policy with this one's settings, and ``base``'s where this one has none."""
        values: dict[str, Any] = {}
        for f in _FIELDS:
            mine, theirs = getattr(self, f), getattr(base, f)
            if f in FAMILIES and isinstance(mine, Limits) and isinstance(theirs, Limits):
                values[f] = mine._over(theirs)
            else:
                values[f] = _first(mine, theirs)
        return Policy(**values)

    def changes(self) -> dict[str, Any]:
        """Return the settings this policy makes (``None`` left out), sections as dicts."""
        out: dict[str, Any] = {}
        for f in _FIELDS:
            value = getattr(self, f)
            if isinstance(value, Limits):
                section = {k: v for k in _LIMITS if (v := getattr(value, k)) is not None}
                if section:
                    out[f] = section
            elif value is not None:
                out[f] = value
        return out

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, where: str = "policy option") -> Policy:
        """Build a policy from a mapping (a config file's table), naming an unknown key."""
        if not isinstance(data, Mapping):
            raise InvalidTypeError(f"a policy is a mapping of options, not {data!r}")
        for key in data:
            if key not in _FIELDS:
                raise InvalidArgumentError(_validate.unknown(where, str(key), _FIELDS))
        return cls(**data)

    def resolved(self) -> Policy:
        """Return this policy over :data:`BUILT_IN`: every setting of every family given."""
        full = self.over(BUILT_IN)
        common = Limits(**{f: getattr(full, f) for f in _LIMITS})
        sections: dict[str, Limits] = {}
        for family in FAMILIES:
            own = getattr(self, family)
            built_in = getattr(BUILT_IN, family)
            assert isinstance(built_in, Limits)
            if family in ("query", "info"):
                base = built_in
            else:
                # top-level limits set by this policy beat the built-in family defaults
                mine = Limits(**{f: getattr(self, f) for f in _LIMITS})
                base = mine._over(built_in)._over(common)
            sections[family] = own._over(base) if isinstance(own, Limits) else base
        return dataclasses.replace(full, **sections)  # type: ignore[arg-type]

    def _call_defaults(self) -> _native.CallDefaults:
        r = self.resolved()
        sections = {f: getattr(r, f) for f in FAMILIES}
        info = sections["info"]
        info_ms = _millis("info.total_timeout", info.total_timeout) or 0
        if info_ms == 0:
            raise InvalidArgumentError("policy section info needs a total_timeout > 0")
        assert r.ttl is not None and r.replica is not None
        assert r.read_mode_ap is not None and r.read_mode_sc is not None
        assert r.bytes_keys is not None
        return _native.CallDefaults(
            read=sections["read"]._native(),
            write=sections["write"]._native(),
            batch=sections["batch"]._native(),
            query=sections["query"]._native(),
            udf=sections["udf"]._native(),
            info_timeout_ms=info_ms,
            retry_writes=bool(r.retry_writes),
            send_key=bool(r.send_key),
            ttl=_ttl(r.ttl),
            durable_delete=bool(r.durable_delete),
            compress=bool(r.compress),
            replica=r.replica,
            read_mode_ap=r.read_mode_ap,
            read_mode_sc=r.read_mode_sc,
            bytes_keys=r.bytes_keys,
            read_touch_ttl_percent=r.read_touch_ttl_percent or 0,
        )


_FIELDS: Final = tuple(f.name for f in dataclasses.fields(Policy))
_names_checked(Limits, "Limits option")
_names_checked(Policy, "Policy option")


def _first(mine: Any, theirs: Any) -> Any:
    return theirs if mine is None else mine


def _millis(name: str, value: object) -> int | None:
    if value is None:
        return None
    return _validate.millis(f"policy option {name}", value)  # type: ignore[arg-type]


def _ttl(value: object) -> int:
    if isinstance(value, str):
        if value not in _TTL_WORDS:
            raise InvalidArgumentError(
                f"policy option ttl is seconds, a timedelta, 'never' or 'keep', not {value!r}"
            )
        return _TTL_WORDS[value]
    if isinstance(value, bool) or not isinstance(value, int | timedelta):
        raise InvalidTypeError(
            f"policy option ttl is seconds, a timedelta, 'never' or 'keep', not {value!r}"
        )
    checked = _validate.ttl(value)
    assert checked is not None
    return checked


def _section(family: str, value: object) -> Limits:
    if not isinstance(value, Mapping):
        raise InvalidTypeError(
            f"policy section {family} is a Limits or a mapping of {', '.join(_LIMITS)}, "
            f"not {value!r}"
        )
    for key in value:
        if key not in _LIMITS:
            where = f"policy section {family}"
            raise InvalidArgumentError(_validate.unknown(where, str(key), _LIMITS))
    return Limits(**value)


BUILT_IN: Final = Policy(
    total_timeout=1.0,
    socket_timeout=0,
    max_retries=2,
    retry_pause=0,
    retry_writes=False,
    send_key=False,
    ttl=0,
    durable_delete=False,
    compress=False,
    replica="sequence",
    read_mode_ap="one",
    read_mode_sc="session",
    bytes_keys="blob",
    read_touch_ttl_percent=0,
    read=Limits(),
    write=Limits(),
    batch=Limits(),
    query=Limits(total_timeout=0, socket_timeout=30.0, max_retries=2, retry_pause=0),
    udf=Limits(),
    info=Limits(total_timeout=1.0),
)
"""The defaults of a client given no policy (a TTL of 0 is the namespace's default)."""
