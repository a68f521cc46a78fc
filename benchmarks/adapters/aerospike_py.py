"""``aerospike-py`` (Rust/PyO3, legacy-client-style API): sync and async."""

from __future__ import annotations

from typing import Any

from benchmarks.adapters.base import NAMESPACE, SET, AsyncClient, Skip, SyncClient


def _import() -> Any:
    try:
        import aerospike_py
    except ImportError as e:
        raise Skip(f"aerospike-py not installed: {e}") from e
    return aerospike_py


def _ops(m: Any) -> list[dict[str, Any]]:
    return [
        {"op": m.OPERATOR_INCR, "bin": "n", "val": 1},
        {"op": m.OPERATOR_INCR, "bin": "t", "val": 1},
        {"op": m.OPERATOR_READ, "bin": "i", "val": None},
    ]


def _found(lazy: Any) -> int:
    # Materialise every record as Python dicts, as the other clients do.
    return sum(1 for r in lazy.to_list() if r is not None)


class AerospikePySync(SyncClient):
    name = "aerospike-py sync"
    package = "aerospike-py"

    def connect(self) -> None:
        self.m = _import()
        self.c: Any = self.m.client({"hosts": [(self.t.host, self.t.port)]}).connect()
        self._ops = _ops(self.m)

    def close(self) -> None:
        self.c.close()

    def _key(self, i: int) -> tuple[str, str, str]:
        return (NAMESPACE, SET, self.t.user_key(i))

    def put(self, i: int) -> None:
        self.c.put(self._key(i), self.t.record(i))

    def get(self, i: int) -> Any:
        return self.c.get(self._key(i)).bins

    def exists(self, i: int) -> bool:
        return self.c.exists(self._key(i))[1] is not None

    def operate(self, i: int) -> Any:
        return self.c.operate(self._key(i), self._ops).bins

    def batch(self, i: int, size: int) -> int:
        return _found(self.c.batch_read([(NAMESPACE, SET, k) for k in self.t.window(i, size)]))

    def scan(self) -> int:
        return len(self.c.query(NAMESPACE, self.t.scan_set).results())

    def query(self, low: int, high: int) -> int:
        q = self.c.query(NAMESPACE, self.t.scan_set)
        q.where(self.m.predicates.between("g", low, high))
        return len(q.results())


class AerospikePyAsync(AsyncClient):
    name = "aerospike-py async"
    package = "aerospike-py"

    async def connect(self) -> None:
        self.m = _import()
        self.c: Any = self.m.async_client({"hosts": [(self.t.host, self.t.port)]})
        await self.c.connect()
        self._ops = _ops(self.m)

    async def close(self) -> None:
        await self.c.close()

    def _key(self, i: int) -> tuple[str, str, str]:
        return (NAMESPACE, SET, self.t.user_key(i))

    async def put(self, i: int) -> None:
        await self.c.put(self._key(i), self.t.record(i))

    async def get(self, i: int) -> Any:
        return (await self.c.get(self._key(i))).bins

    async def exists(self, i: int) -> bool:
        return (await self.c.exists(self._key(i)))[1] is not None

    async def operate(self, i: int) -> Any:
        return (await self.c.operate(self._key(i), self._ops)).bins

    async def batch(self, i: int, size: int) -> int:
        keys = [(NAMESPACE, SET, k) for k in self.t.window(i, size)]
        return _found(await self.c.batch_read(keys))

    async def scan(self) -> int:
        return len(await self.c.query(NAMESPACE, self.t.scan_set).results())

    async def query(self, low: int, high: int) -> int:
        q = self.c.query(NAMESPACE, self.t.scan_set)
        q.where(self.m.predicates.between("g", low, high))
        return len(await q.results())
