"""Re-reading the dynamic configuration file while a client runs.

A daemon thread reads the file every ``config_interval`` seconds. When its text changed and it
reads well, the new ``dynamic`` call defaults replace the old ones at once (the explicit
``connect()`` arguments still win); when it does not, the last good configuration stays and a
warning says why. Counted in ``db.metrics().config``.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Final

from aerospike_fluent._config_yaml import YamlConfig, log, parse
from aerospike_fluent.errors import AerospikeError
from aerospike_fluent.policy import Policy


@dataclasses.dataclass(frozen=True, slots=True)
class Layers:
    """The call defaults around the file's: explicit arguments above, the TOML file below."""

    above: Policy
    below: Policy

    def with_file(self, file: Policy) -> Policy:
        """Return the client's defaults with ``file`` as the dynamic file's policy."""
        return self.above.over(file.over(self.below))


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigReloads:
    """What the dynamic configuration file did since connect (``db.metrics().config``)."""

    path: str | None = None
    """The file watched (``None``: no dynamic configuration file)."""
    checks: int = 0
    applied: int = 0
    """Changed versions applied."""
    rejected: int = 0
    """Changed versions refused (the last good one stayed)."""


class Watcher:
    """Reads the file every ``interval`` seconds and hands each good new version to ``apply``."""

    __slots__ = (
        "_apply",
        "_current",
        "_layers",
        "_owner",
        "_stop",
        "_thread",
        "_warned",
        "applied",
        "checks",
        "rejected",
    )

    def __init__(
        self,
        current: YamlConfig,
        layers: Layers,
        apply: Callable[[Policy], None],
        owner: Callable[[], object],
    ) -> None:
        self._owner = owner
        self._current = current
        self._layers = layers
        self._apply = apply
        self._stop: Final = threading.Event()
        self.checks = 0
        self.applied = 0
        self.rejected = 0
        self._warned = ""
        self._thread = threading.Thread(
            target=self._run, name=f"aerospike-config {current.path}", daemon=True
        )
        self._thread.start()

    @property
    def current(self) -> YamlConfig:
        """The configuration in effect (the last good reading)."""
        return self._current

    def counts(self) -> ConfigReloads:
        """Return the counters, for metrics."""
        return ConfigReloads(str(self._current.path), self.checks, self.applied, self.rejected)

    def stop(self) -> None:
        """Stop watching (the thread ends within one interval; nothing waits for it)."""
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self._current.interval) and self._owner() is not None:
            try:
                self.check()
            except Exception:  # the watcher outlives a surprise; the client keeps running
                log.exception("%s: checking the dynamic configuration failed", self._current.path)

    def check(self) -> None:
        """Read the file once and apply it if it changed and reads well."""
        self.checks += 1
        path = self._current.path
        try:
            text = path.read_bytes()
        except OSError as e:
            self._refuse(f"cannot be read ({e})", text=None)
            return
        if text == self._current.text:
            return
        try:
            # static settings apply once, at connect: the check interval stays
            new = dataclasses.replace(parse(path, text), interval=self._current.interval)
            self._apply(self._layers.with_file(new.policy))
        except AerospikeError as e:
            self._refuse(str(e), text)
            return
        changed = new.changed_options(self._current)
        if changed:
            log.warning(
                "%s: %s changed; connection settings apply at the next connect",
                path,
                ", ".join(changed),
            )
        old = self._current.policy
        self._current = new
        self._warned = ""
        self.applied += 1
        log.info(
            "%s: applied the new dynamic configuration (was %r, now %r)", path, old, new.policy
        )

    def _refuse(self, why: str, text: bytes | None) -> None:
        self.rejected += 1
        if why != self._warned:  # a file that stays missing is reported once
            log.warning("%s: keeping the last good configuration: %s", self._current.path, why)
            self._warned = why
        if text is not None:  # the same bad text is refused once, not at every check
            self._current = dataclasses.replace(self._current, text=text)
