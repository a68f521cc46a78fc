"""Async-first Aerospike SDK: fluent builders over a Rust core, plus an embedded test server.

Example:
    >>> import aerospike_fluent as af
    >>> from aerospike_fluent import F
    >>> async with af.connect("embedded://") as db:
    ...     users = db.namespace("test").set("users")
    ...     await users.key("u1").put({"name": "Ann", "age": 30})
    ...     rec = await users.key("u1").add("age", 1).read("age").execute()

"""

from __future__ import annotations

import logging as _logging
from importlib import import_module as _import_module
from importlib import metadata as _metadata
from typing import TYPE_CHECKING

from aerospike_fluent import _validate, errors, exp, metrics, progress, sync
from aerospike_fluent import exp as F
from aerospike_fluent._arrow import ArrowBatches, AsyncArrowBatches
from aerospike_fluent._bins import ExpRead, ExpWrite
from aerospike_fluent._bits import BitOverflow, BitResize, BitWrite
from aerospike_fluent._exec import Async, Sync
from aerospike_fluent._hll import HllWrite
from aerospike_fluent._native import ArrowTable, GeoJSON, Record
from aerospike_fluent._options import ConnectOptions
from aerospike_fluent.batch import Batch
from aerospike_fluent.cdt import ListOrder, ListSort, ListWrite, MapOrder, MapWrite, Return
from aerospike_fluent.client import AsyncClient, Client, Connecting, SyncClient, connect
from aerospike_fluent.errors import AerospikeError
from aerospike_fluent.keys import KeyRef, KeysRef
from aerospike_fluent.metrics import MetricsSnapshot, NodeInfo
from aerospike_fluent.partitions import partition_ranges
from aerospike_fluent.policy import GenerationBelow, Limits, Policy
from aerospike_fluent.progress import Progress
from aerospike_fluent.query import Query
from aerospike_fluent.results import BatchResult, Page
from aerospike_fluent.scopes import Namespace, RecordSet
from aerospike_fluent.streams import AsyncRecordStream, RecordStream
from aerospike_fluent.transaction import AbortStatus, CommitStatus, Transaction

if TYPE_CHECKING:
    from aerospike_fluent import dask

# A library's records go where the application's logging sends them, and nowhere by default.
_logging.getLogger("aerospike_fluent").addHandler(_logging.NullHandler())

try:
    __version__ = _metadata.version("aerospike-fluent")
except _metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    from aerospike_fluent._native import __version__

NEVER_EXPIRE = _validate.NEVER_EXPIRE
"""TTL: the record never expires."""
KEEP_TTL = _validate.KEEP_TTL
"""TTL: an update keeps the record's current TTL."""

_LAZY = frozenset({"dask", "polars"})
"""Submodules that import optional libraries: loaded on first use (``af.dask``, ``af.polars``)."""


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return _import_module(f"aerospike_fluent.{name}")
    raise AttributeError(f"module 'aerospike_fluent' has no attribute {name!r}")


__all__ = [
    "KEEP_TTL",
    "NEVER_EXPIRE",
    "AbortStatus",
    "AerospikeError",
    "ArrowBatches",
    "ArrowTable",
    "Async",
    "AsyncArrowBatches",
    "AsyncClient",
    "AsyncRecordStream",
    "Batch",
    "BatchResult",
    "BitOverflow",
    "BitResize",
    "BitWrite",
    "Client",
    "CommitStatus",
    "ConnectOptions",
    "Connecting",
    "ExpRead",
    "ExpWrite",
    "F",
    "GenerationBelow",
    "GeoJSON",
    "HllWrite",
    "KeyRef",
    "KeysRef",
    "Limits",
    "ListOrder",
    "ListSort",
    "ListWrite",
    "MapOrder",
    "MapWrite",
    "MetricsSnapshot",
    "Namespace",
    "NodeInfo",
    "Page",
    "Policy",
    "Progress",
    "Query",
    "Record",
    "RecordSet",
    "RecordStream",
    "Return",
    "Sync",
    "SyncClient",
    "Transaction",
    "__version__",
    "connect",
    "dask",
    "errors",
    "exp",
    "metrics",
    "partition_ranges",
    "polars",
    "progress",
    "sync",
]
