"""Seeds: ``"host:port"`` lists, and ``embedded://`` starting an in-process server."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Literal, NamedTuple

from aerospike_fluent import _native, _validate
from aerospike_fluent._cluster import EmbeddedCluster
from aerospike_fluent._fork import started
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

EMBEDDED = "embedded://"
Embedded = _native.EmbeddedServer | EmbeddedCluster
DEFAULT_SEEDS = "127.0.0.1:3000"

Seeds = str | Iterable[str | tuple[str, int]] | None


def seeds_string(seeds: Seeds) -> str:
    """Normalise seeds to ``"h:p,h:p"``.

    Accepts that string, a list of ``"h:p"`` / ``(host, port)``, or None (``AEROSPIKE_HOST`` or
    ``127.0.0.1:3000``).
    """
    if seeds is None:
        return os.environ.get("AEROSPIKE_HOST") or DEFAULT_SEEDS
    if isinstance(seeds, str):
        text = seeds.strip()
    else:
        parts = []
        for s in seeds:
            if isinstance(s, tuple):
                parts.append(f"{s[0]}:{s[1]}")
            elif isinstance(s, str):
                parts.append(s)
            else:
                raise InvalidTypeError(f"a seed is 'host:port' or (host, port), not {s!r}")
        text = ",".join(parts)
    if not text:
        raise InvalidArgumentError("no seed hosts given")
    for part in text.split(","):
        if "://" in part:
            raise InvalidArgumentError(
                f"seed {part.strip()!r} is not host:port: give it without a scheme, as "
                "'127.0.0.1:3000' ('embedded://' alone starts an in-process server)"
            )
        host, sep, port = part.strip().rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise InvalidArgumentError(f"seed {part!r} is not host:port")
    return text


def start(seeds: Seeds) -> tuple[str, Embedded | None]:
    """Return the seeds to connect to, and the embedded server ``embedded://...`` started."""
    if isinstance(seeds, str) and seeds.startswith(EMBEDDED):
        options = embedded_options(seeds[len(EMBEDDED) :])
        nodes, rf = options.nodes, options.replication_factor
        if nodes == 1:
            server = started(
                _native.EmbeddedServer(
                    edition=options.edition, strong_consistency=options.strong_consistency
                )
            )
            return f"{server.host}:{server.port}", server
        cluster = EmbeddedCluster(
            nodes,
            rf,
            edition=options.edition,
            strong_consistency=options.strong_consistency,
        )
        return cluster.seeds, cluster
    return seeds_string(seeds), None


class EmbeddedOptions(NamedTuple):
    """What ``embedded://?...`` asks of the server it starts."""

    nodes: int = 1
    replication_factor: int = 1
    edition: Literal["community", "enterprise"] = "community"
    strong_consistency: tuple[str, ...] = ()


def embedded_options(rest: str) -> EmbeddedOptions:
    """Read ``embedded://?nodes=N&replication_factor=R&edition=E&strong_consistency=NS``."""
    usage = (
        "use connect('embedded://'), connect('embedded://?nodes=3&replication_factor=2') or "
        "connect('embedded://?edition=enterprise&strong_consistency=test')"
    )
    if not rest:
        return EmbeddedOptions()
    if not rest.startswith("?"):
        raise InvalidArgumentError(usage)
    values: dict[str, int] = {}
    edition = "community"
    strong: list[str] = []
    for part in rest[1:].split("&"):
        name, sep, value = part.partition("=")
        if name == "edition" and value in ("community", "enterprise"):
            edition = value
        elif name == "strong_consistency" and value:
            strong.append(value)
        elif name in ("nodes", "replication_factor") and sep and value.isdigit():
            values[name] = int(value)
        elif name not in EmbeddedOptions._fields:
            unknown = _validate.unknown("embedded option", name, EmbeddedOptions._fields, "options")
            raise InvalidArgumentError(f"{unknown}: {usage}")
        else:
            raise InvalidArgumentError(f"bad embedded option {part!r}: {usage}")
    nodes = values.get("nodes", 1)
    if not 1 <= nodes <= 32:
        raise InvalidArgumentError(f"embedded nodes must be within 1..32, not {nodes}")
    rf = values.get("replication_factor", min(2, nodes))
    if not 1 <= rf <= nodes:
        raise InvalidArgumentError(
            f"embedded replication_factor must be within 1..{nodes} (the node count), not {rf}"
        )
    return EmbeddedOptions(nodes, rf, edition, tuple(strong))  # type: ignore[arg-type]
