"""One interface for every client under test (sync and async twins)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

NAMESPACE = "test"
SET = "bench"

Kind = Literal["sync", "async", "external"]


class Skip(Exception):
    """The client cannot run here (not installed, not built yet, cannot connect)."""


@dataclass
class Target:
    """Where a client connects and which keys it owns."""

    host: str
    port: int
    prefix: str
    keys: int
    scan_set: str = "bench_scan"
    user_keys: list[str] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.user_keys = [f"{self.prefix}:{i}" for i in range(self.keys)]
        self.strings = [f"value-{i:026d}" for i in range(self.keys)]

    @property
    def seed(self) -> str:
        return f"{self.host}:{self.port}"

    def user_key(self, i: int) -> str:
        return self.user_keys[i % self.keys]

    def record(self, i: int) -> dict[str, Any]:
        """The record every client writes: an int, a 32-char string, a counter."""
        return {"i": i, "s": self.strings[i % self.keys], "n": 0}

    def window(self, i: int, size: int) -> list[str]:
        """``size`` consecutive user keys starting at batch number ``i``."""
        start = (i * size) % self.keys
        return [self.user_keys[(start + j) % self.keys] for j in range(size)]


class SyncClient(ABC):
    """Blocking client. ``operate`` = add n 1, add t 1, read i (one command)."""

    kind: ClassVar[Kind] = "sync"
    name: ClassVar[str]
    package: ClassVar[str]
    # The workload ops this client is meant for (None: all of them).
    only: ClassVar[frozenset[str] | None] = None

    def __init__(self, target: Target) -> None:
        self.t = target

    @abstractmethod
    def connect(self) -> None: ...
    @abstractmethod
    def close(self) -> None: ...
    @abstractmethod
    def put(self, i: int) -> None: ...
    @abstractmethod
    def get(self, i: int) -> Any: ...
    @abstractmethod
    def exists(self, i: int) -> bool: ...
    @abstractmethod
    def operate(self, i: int) -> Any: ...
    @abstractmethod
    def batch(self, i: int, size: int) -> int:
        """Read ``size`` keys in one batch; return how many records came back."""

    @abstractmethod
    def scan(self) -> int:
        """Read every record of the scan set; return the count."""

    @abstractmethod
    def query(self, low: int, high: int) -> int:
        """Secondary-index query ``low <= g <= high`` on the scan set; return the count."""


class AsyncClient(ABC):
    """Asyncio client with the same workloads as :class:`SyncClient`."""

    kind: ClassVar[Kind] = "async"
    name: ClassVar[str]
    package: ClassVar[str]
    # The workload ops this client is meant for (None: all of them).
    only: ClassVar[frozenset[str] | None] = None

    def __init__(self, target: Target) -> None:
        self.t = target

    @abstractmethod
    async def connect(self) -> None: ...
    @abstractmethod
    async def close(self) -> None: ...
    @abstractmethod
    async def put(self, i: int) -> None: ...
    @abstractmethod
    async def get(self, i: int) -> Any: ...
    @abstractmethod
    async def exists(self, i: int) -> bool: ...
    @abstractmethod
    async def operate(self, i: int) -> Any: ...
    @abstractmethod
    async def batch(self, i: int, size: int) -> int: ...
    @abstractmethod
    async def scan(self) -> int: ...
    @abstractmethod
    async def query(self, low: int, high: int) -> int: ...
