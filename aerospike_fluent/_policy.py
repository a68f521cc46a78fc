"""Per-call options → native :class:`Policy` (``None`` when everything is default)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final, Literal

from aerospike_fluent import _native, _validate
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.policy import GenerationBelow

Exists = Literal["upsert", "update", "replace", "replace_only", "create"]
EXISTS: Final[dict[str, int]] = {
    "upsert": 0,
    "update": 1,
    "replace": 2,
    "replace_only": 3,
    "create": 4,
}

Limits = tuple[int | None, int | None, int | None, bool | None]
"""Total ms, socket ms, retries, whether writes may be retried (``None``: the client's)."""
TTL = int | timedelta | None
"""A record TTL: seconds or a ``timedelta``; -1 never expires, -2 keeps the current TTL."""


def expiry(ttl: TTL, expire_at: datetime | None) -> TTL:
    """Return the TTL of a write: ``ttl``, or the seconds from now until ``expire_at``.

    ``expire_at`` is an absolute expiry (a timezone-aware ``datetime`` in the future); it is
    converted here, just before the request is built, so that clock and TTL agree.
    """
    if expire_at is None:
        return ttl
    if ttl is not None:
        raise InvalidArgumentError("give ttl or expire_at, not both")
    return _validate.expire_at(expire_at)


def is_default(
    ttl: object,
    generation: object,
    exists: object,
    send_key: object,
    durable: object,
    filter: object,
    lim: object,
    /,
) -> bool:
    """Whether every option of a request is at its default, so that it needs no policy.

    The common case, checked before anything is built; the chain's ``where`` filter and
    ``timeout`` limits count as options.
    """
    return (
        ttl is None
        and generation is None
        and not exists
        and send_key is None
        and durable is None
        and filter is None
        and lim is None
    )


def limits(
    total: float | timedelta | None,
    socket: float | timedelta | None,
    retries: int | None,
    retry_writes: bool | None = None,
) -> Limits | None:
    """Check transaction limits; ``None`` when all default."""
    total_ms = _validate.millis("timeout", total)
    socket_ms = _validate.millis("socket_timeout", socket)
    if retries is not None:
        _validate.integer("retries", retries, 0, 1000)
    flag("retry_writes", retry_writes)
    if total_ms is None and socket_ms is None and retries is None and retry_writes is None:
        return None
    return (total_ms, socket_ms, retries, retry_writes)


def flag(name: str, value: object) -> bool | None:
    """Check a per-call switch: True, False, or ``None`` for the client's default."""
    if value is not None and not isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be True, False or None, not {value!r}")
    return value


def exists(mode: str) -> int:
    """Return the record-exists action for a write mode name."""
    try:
        return EXISTS[mode]
    except KeyError:
        raise InvalidArgumentError(f"unknown exists mode {mode!r}; one of {list(EXISTS)}") from None


def build(
    *,
    filter: tuple[Any, ...] | None = None,
    lim: Limits | None = None,
    ttl: int | None = None,
    generation: int | None = None,
    exists: int = 0,
    send_key: bool | None = None,
    durable_delete: bool | None = None,
    operate: bool = False,
    pace: tuple[int, bool] | None = None,
) -> _native.Policy | None:
    """Return the native policy for these options, or ``None`` for all defaults.

    ``pace``: a query's ``(records_per_second, short_query)``.

    ``operate``: the policy of an operate chain, where only reads (and collection operations)
    answer, so a bin read after writes to it comes back as one value.
    """
    if pace is None and is_default(ttl, generation, exists, send_key, durable_delete, filter, lim):
        return operate_default() if operate else None
    records_per_second, short_query = pace or (0, False)
    total, socket, retries, retry_writes = lim if lim is not None else (None, None, None, None)
    return _native.Policy(
        ttl=ttl,
        generation=generation,
        exists=exists,
        send_key=send_key,
        durable_delete=durable_delete,
        filter=filter,
        total_timeout_ms=total,
        socket_timeout_ms=socket,
        max_retries=retries,
        retry_writes=retry_writes,
        respond_all_ops=not operate,
        records_per_second=records_per_second,
        short_query=short_query,
        generation_gt=type(generation) is GenerationBelow,
    )


_OPERATE: list[_native.Policy] = []


def operate_default() -> _native.Policy:
    """Return the policy of an operate chain with every option at its default."""
    if not _OPERATE:
        _OPERATE.append(_native.Policy(respond_all_ops=False))
    return _OPERATE[0]
