"""Scan/query data: ``n`` records with int keys ``0..n`` and ``g = id % 1000``, indexed on g."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from typing import Any

from benchmarks.adapters import RustCeiling
from benchmarks.adapters.base import NAMESPACE


def set_name(records: int) -> str:
    return f"bench_scan_{records}"


def _load_with_c(host: str, port: int, name: str, records: int, index: bool) -> None:
    aerospike: Any = importlib.import_module("aerospike")
    c: Any = aerospike.client({"hosts": [(host, port)]}).connect()
    try:
        for i in range(records):
            c.put((NAMESPACE, name, i), {"i": i, "s": f"value-{i:026d}", "n": 0, "g": i % 1000})
        if index:
            with contextlib.suppress(aerospike.exception.IndexFoundError):
                c.index_integer_create(NAMESPACE, name, "g", f"{name}_g")
    finally:
        c.close()


def load(
    rust: RustCeiling | None,
    host: str,
    port: int,
    records: int,
    log: Callable[[str], None],
    index: bool = True,
) -> str:
    """Write the set (idempotent) and create the index; returns the set name."""
    name = set_name(records)
    log(f"loading {records} records into {NAMESPACE}.{name}")
    if rust is not None:
        rust.command("load", set=name, count=records, conc=64)
        if index:
            try:
                rust.command("index", set=name, bin="g", name=f"{name}_g")
            except RuntimeError as e:
                if "exist" not in str(e).lower():
                    log(f"  index on g failed: {e}")
        return name
    _load_with_c(host, port, name, records, index)
    return name
