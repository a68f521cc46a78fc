"""This SDK: sync (``aerospike_fluent.sync``), async through the fluent builder (also with the
opt-in ``auto_batch``, for single-record calls), and async through the shortest path we offer
(the native client + ``aerospike_fluent._bridge.call``)."""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

from benchmarks.adapters.base import NAMESPACE, SET, AsyncClient, Skip, SyncClient

SCAN_TIMEOUT_S = 300


def _import() -> Any:
    try:
        return importlib.import_module("aerospike_fluent")
    except ImportError as e:
        raise Skip(f"aerospike_fluent not importable: {e}") from e


# The single-record workloads, for the variants that only change how a call waits.
SINGLE_RECORD = frozenset({"put", "get", "exists", "operate"})


class FluentSync(SyncClient):
    name = "this SDK sync"
    package = "aerospike_fluent"
    options: ClassVar[dict[str, Any]] = {}

    def connect(self) -> None:
        _import()
        try:
            sync: Any = importlib.import_module("aerospike_fluent.sync")
        except ImportError as e:
            raise Skip(f"aerospike_fluent.sync missing: {e}") from e
        self.db: Any = sync.connect(self.t.seed, **self.options)
        self.ns: Any = self.db.namespace(NAMESPACE)
        self.s: Any = self.ns.set(SET)

    def close(self) -> None:
        self.db.close()

    def _scan(self) -> Any:
        # The SDK's default total timeout (1 s) also applies to scans and cuts 100k-record scans.
        return self.ns.set(self.t.scan_set).query().timeout(SCAN_TIMEOUT_S)

    def put(self, i: int) -> None:
        self.s.key(self.t.user_key(i)).put(self.t.record(i))

    def get(self, i: int) -> Any:
        return self.s.key(self.t.user_key(i)).get().bins

    def exists(self, i: int) -> bool:
        return bool(self.s.key(self.t.user_key(i)).exists())

    def operate(self, i: int) -> Any:
        return self.s.key(self.t.user_key(i)).add("n", 1).add("t", 1).read("i").execute()

    def batch(self, i: int, size: int) -> int:
        rows = self.s.keys(self.t.window(i, size)).get()
        return sum(1 for r in rows if r.record is not None)

    def scan(self) -> int:
        return sum(1 for _ in self._scan().stream())

    def query(self, low: int, high: int) -> int:
        return sum(1 for _ in self._scan().where_index("g").between(low, high).stream())


class FluentAsync(AsyncClient):
    name = "this SDK async builder"
    package = "aerospike_fluent"
    options: ClassVar[dict[str, Any]] = {}

    async def connect(self) -> None:
        af = _import()
        self.db: Any = await af.connect(self.t.seed, **self.options)
        self.ns: Any = self.db.namespace(NAMESPACE)
        self.s: Any = self.ns.set(SET)

    async def close(self) -> None:
        self.db.close()

    def _scan(self) -> Any:
        # The SDK's default total timeout (1 s) also applies to scans and cuts 100k-record scans.
        return self.ns.set(self.t.scan_set).query().timeout(SCAN_TIMEOUT_S)

    async def put(self, i: int) -> None:
        await self.s.key(self.t.user_key(i)).put(self.t.record(i))

    async def get(self, i: int) -> Any:
        return (await self.s.key(self.t.user_key(i)).get()).bins

    async def exists(self, i: int) -> bool:
        return bool(await self.s.key(self.t.user_key(i)).exists())

    async def operate(self, i: int) -> Any:
        return await self.s.key(self.t.user_key(i)).add("n", 1).add("t", 1).read("i").execute()

    async def batch(self, i: int, size: int) -> int:
        rows = await self.s.keys(self.t.window(i, size)).get()
        return sum(1 for r in rows if r.record is not None)

    async def scan(self) -> int:
        n = 0
        async for _ in self._scan().stream():
            n += 1
        return n

    async def query(self, low: int, high: int) -> int:
        n = 0
        async for _ in self._scan().where_index("g").between(low, high).stream():
            n += 1
        return n


class FluentAutoBatch(FluentAsync):
    """The builder with ``auto_batch=True``: concurrent calls go out as batch requests (opt-in)."""

    name = "this SDK async auto-batch (opt-in)"
    only = SINGLE_RECORD
    options: ClassVar[dict[str, Any]] = {"auto_batch": True}


class FluentSyncNoSpin(FluentSync):
    """Sync with ``spin_wait=0``: calls sleep until their reply, as before 2026-11-22."""

    name = "this SDK sync, no polling"
    only = SINGLE_RECORD
    options: ClassVar[dict[str, Any]] = {"spin_wait": 0}


class FluentAsyncNoSpin(FluentAsync):
    """The builder with ``spin_wait=0``: lone calls do not poll for their reply."""

    name = "this SDK async builder, no polling"
    only = SINGLE_RECORD
    options: ClassVar[dict[str, Any]] = {"spin_wait": 0}


class FluentNative(AsyncClient):
    """The floor of our async stack: no builder, one native call + the completion bridge."""

    name = "this SDK async native"
    package = "aerospike_fluent"

    async def connect(self) -> None:
        _import()
        try:
            _native: Any = importlib.import_module("aerospike_fluent._native")
            _bridge: Any = importlib.import_module("aerospike_fluent._bridge")
        except ImportError as e:
            raise Skip(f"native pieces missing: {e}") from e
        self.n = _native
        self.wait: Any = _bridge.wait
        self.call: Any = _bridge.call  # what the builder's verbs use: no closure per call
        config = _native.ClientConfig(self.t.seed, min_conns_per_node=64)
        self.c: Any = await self.wait(lambda done: _native.connect(done, config))
        self.ops = [("add", "n", 1), ("add", "t", 1), ("read", "i")]

    async def close(self) -> None:
        self.c.close()

    def _key(self, i: int) -> tuple[str, str, str, None]:
        return (NAMESPACE, SET, self.t.user_key(i), None)

    async def put(self, i: int) -> None:
        key, bins = self._key(i), self.t.record(i)
        await self.call(self.c.put, key, bins, None)

    async def get(self, i: int) -> Any:
        key = self._key(i)
        return (await self.call(self.c.get, key, None, False, None)).bins

    async def exists(self, i: int) -> bool:
        key = self._key(i)
        return bool(await self.call(self.c.exists, key, None))

    async def operate(self, i: int) -> Any:
        key = self._key(i)
        return await self.call(self.c.operate, key, self.ops, None)

    async def batch(self, i: int, size: int) -> int:
        rows = [
            ("read", (NAMESPACE, SET, k, None), None, False, None) for k in self.t.window(i, size)
        ]
        result = await self.call(self.c.batch, rows, None)
        return sum(1 for r in result if r.record is not None)

    async def _drain(self, index_filter: tuple[Any, ...] | None) -> int:
        policy = self.n.Policy(total_timeout_ms=SCAN_TIMEOUT_S * 1000)
        stream = self.c.query(NAMESPACE, self.t.scan_set, None, index_filter, policy, 0, None, 256)
        n = 0
        while True:
            chunk = await self.wait(stream.next_chunk)
            if chunk is None:
                return n
            n += len(chunk)

    async def scan(self) -> int:
        return await self._drain(None)

    async def query(self, low: int, high: int) -> int:
        return await self._drain(("range", "g", low, high))


class _Idle:
    """Stands in for the native client under :class:`FluentFloor`: its get and put do nothing."""

    def __init__(self, idle: Any) -> None:
        self.get = self.put = idle


class FluentFloor(FluentAsync):
    """The floor under the builder: the same chain and bridge, each call doing no I/O.

    The executor's verbs call ``_native.idle``, which is spawned on the worker runtime and
    delivered through the loop's completer like any worker call, but sends and reads nothing:
    what is left is the Python call itself (builder, bridge, future, task wake-up, harness)
    and the hand-off to the worker and back.
    """

    name = "this SDK async builder, no I/O (floor)"
    only = frozenset({"put", "get"})

    async def connect(self) -> None:
        await super().connect()
        idle = getattr(importlib.import_module("aerospike_fluent._native"), "idle", None)
        if idle is None:
            raise Skip("aerospike_fluent._native.idle missing (an older build)")
        self.s._ex.retarget(_Idle(idle))

    async def get(self, i: int) -> Any:
        return await self.s.key(self.t.user_key(i)).get()
