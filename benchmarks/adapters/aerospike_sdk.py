"""``aerospike-sdk`` (official fluent SDK over aerospike-native): sync/async, fast/builder paths.

The fast path is ``session.get/put``; it has no exists/operate/batch/scan form, so those
workloads go through the builder in both variants. The index query uses ``.filter(Filter.range)``:
AEL ``where`` text needs server-side AEL (8.2+), which the embedded server does not offer.
"""

from __future__ import annotations

from typing import Any

from benchmarks.adapters.base import NAMESPACE, SET, AsyncClient, Skip, SyncClient


def _import() -> Any:
    try:
        import aerospike_sdk
    except ImportError as e:
        raise Skip(f"aerospike-sdk not installed: {e}") from e
    return aerospike_sdk


class SdkAsync(AsyncClient):
    name = "aerospike-sdk async fast"
    package = "aerospike-sdk"
    fast = True

    async def connect(self) -> None:
        m = _import()
        self.cluster: Any = await m.ClusterDefinition(self.t.host, self.t.port).connect()
        self.s: Any = self.cluster.create_session(m.Behavior.DEFAULT)
        self.ds: Any = m.DataSet.of(NAMESPACE, SET)
        self.m = m

    async def close(self) -> None:
        await self.cluster.close()

    def _scan(self) -> Any:
        return self.s.query(self.m.DataSet.of(NAMESPACE, self.t.scan_set))

    async def put(self, i: int) -> None:
        key = self.ds.id(self.t.user_key(i))
        if self.fast:
            await self.s.put(key, self.t.record(i))
        else:
            await (await self.s.upsert(key).put(self.t.record(i)).execute()).first_or_raise()

    async def get(self, i: int) -> Any:
        key = self.ds.id(self.t.user_key(i))
        if self.fast:
            return (await self.s.get(key)).bins
        return (await (await self.s.query(key).execute()).first_or_raise()).record.bins

    async def exists(self, i: int) -> bool:
        stream = await self.s.exists(self.ds.id(self.t.user_key(i))).execute()
        return bool((await stream.first_or_raise()).as_bool())

    async def operate(self, i: int) -> Any:
        b = self.s.upsert(self.ds.id(self.t.user_key(i))).add("n", 1).add("t", 1).get("i")
        return (await (await b.execute()).first_or_raise()).record.bins

    async def batch(self, i: int, size: int) -> int:
        stream = await self.s.query(self.ds.ids(self.t.window(i, size))).execute()
        return sum(1 for r in await stream.collect() if r.record is not None)

    async def _count(self, builder: Any) -> int:
        n = 0
        async for _ in await builder.execute():
            n += 1
        return n

    async def scan(self) -> int:
        return await self._count(self._scan())

    async def query(self, low: int, high: int) -> int:
        return await self._count(self._scan().filter(self.m.Filter.range("g", low, high)))


class SdkAsyncBuilder(SdkAsync):
    name = "aerospike-sdk async builder"
    fast = False


class SdkSync(SyncClient):
    name = "aerospike-sdk sync fast"
    package = "aerospike-sdk"
    fast = True

    def connect(self) -> None:
        m = _import()
        from aerospike_sdk import sync

        self.cluster: Any = sync.ClusterDefinition(self.t.host, self.t.port).connect()
        self.s: Any = self.cluster.create_session(m.Behavior.DEFAULT)
        self.ds: Any = m.DataSet.of(NAMESPACE, SET)
        self.m = m

    def close(self) -> None:
        self.cluster.close()

    def _scan(self) -> Any:
        return self.s.query(self.m.DataSet.of(NAMESPACE, self.t.scan_set))

    def put(self, i: int) -> None:
        key = self.ds.id(self.t.user_key(i))
        if self.fast:
            self.s.put(key, self.t.record(i))
        else:
            self.s.upsert(key).put(self.t.record(i)).execute().first_or_raise()

    def get(self, i: int) -> Any:
        key = self.ds.id(self.t.user_key(i))
        if self.fast:
            return self.s.get(key).bins
        return self.s.query(key).execute().first_or_raise().record.bins

    def exists(self, i: int) -> bool:
        stream = self.s.exists(self.ds.id(self.t.user_key(i))).execute()
        return bool(stream.first_or_raise().as_bool())

    def operate(self, i: int) -> Any:
        b = self.s.upsert(self.ds.id(self.t.user_key(i))).add("n", 1).add("t", 1).get("i")
        return b.execute().first_or_raise().record.bins

    def batch(self, i: int, size: int) -> int:
        stream = self.s.query(self.ds.ids(self.t.window(i, size))).execute()
        return sum(1 for r in stream.collect() if r.record is not None)

    def scan(self) -> int:
        return sum(1 for _ in self._scan().execute())

    def query(self, low: int, high: int) -> int:
        return sum(1 for _ in self._scan().filter(self.m.Filter.range("g", low, high)).execute())


class SdkSyncBuilder(SdkSync):
    name = "aerospike-sdk sync builder"
    fast = False
