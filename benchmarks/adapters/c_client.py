"""The official C-based client (``aerospike`` on PyPI): sync only, the reference."""

from __future__ import annotations

import importlib
from typing import Any

from benchmarks.adapters.base import NAMESPACE, SET, Skip, SyncClient


class CClient(SyncClient):
    name = "C client (aerospike) sync"
    package = "aerospike"

    def connect(self) -> None:
        try:
            import aerospike
            from aerospike import predicates

            operations: Any = importlib.import_module("aerospike_helpers.operations.operations")
        except ImportError as e:
            raise Skip(f"aerospike not installed: {e}") from e
        self._predicates = predicates
        self._ops = [
            operations.increment("n", 1),
            operations.increment("t", 1),
            operations.read("i"),
        ]
        config = {"hosts": [(self.t.host, self.t.port)], "policies": {"timeout": 5000}}
        self.c: Any = aerospike.client(config)
        self.c.connect()

    def close(self) -> None:
        self.c.close()

    def _key(self, i: int) -> tuple[str, str, str]:
        return (NAMESPACE, SET, self.t.user_key(i))

    def put(self, i: int) -> None:
        self.c.put(self._key(i), self.t.record(i))

    def get(self, i: int) -> Any:
        return self.c.get(self._key(i))[2]

    def exists(self, i: int) -> bool:
        return self.c.exists(self._key(i))[1] is not None

    def operate(self, i: int) -> Any:
        return self.c.operate(self._key(i), self._ops)[2]

    def batch(self, i: int, size: int) -> int:
        keys = [(NAMESPACE, SET, k) for k in self.t.window(i, size)]
        rows = self.c.batch_read(keys).batch_records
        return sum(1 for r in rows if r.record is not None)

    def _count(self, query: Any) -> int:
        n = 0

        def each(_record: Any) -> None:
            nonlocal n
            n += 1

        query.foreach(each)
        return n

    def scan(self) -> int:
        return self._count(self.c.query(NAMESPACE, self.t.scan_set))

    def query(self, low: int, high: int) -> int:
        q = self.c.query(NAMESPACE, self.t.scan_set)
        q.where(self._predicates.between("g", low, high))
        return self._count(q)
